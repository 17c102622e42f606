/**
 * The Widget operator's wiring: installs the Widget CRD (`crd.yaml`) at start-up with
 * `mgr.ensureCrd`, and registers a controller for Widgets that owns their inventory ConfigMaps,
 * carries the finalizer `example.com/widget-cleanup` (cleanup deletes the inventory and records an
 * Event), and writes `status` through the controller's status sink (only when the desired status
 * differs, which — the status being derived from the spec — is only when the generation changed).
 * Works against any API server the Manager's client points at.
 *
 * @module
 */
import type { ModuleOptions } from '@rxkube/cli';
import type { KubeClient, Manager, ResourceType } from '@rxkube/kube';
import { findCondition } from '@rxkube/kube';
import { tap } from 'rxjs';
import { exampleFile } from '../../src/paths.js';
import {
  type CleanupOutcome,
  type ConfigMap,
  FIELD_MANAGER,
  FINALIZER,
  type InventoryApply,
  MANAGED_SELECTOR,
  cleanupWidget,
  inventoryName,
  reconcileWidget,
  specOf,
} from './reconcile.js';
import { setupWebhooks } from './webhooks.js';
import { type Widget, widgetType } from './widget.js';

/** The controller's name in the Manager (metrics, logs, Event `reportingController`). */
export const name = 'widget';

const CONFIGMAP: ResourceType = { apiVersion: 'v1', kind: 'ConfigMap' };

/**
 * The module's options (`rxkube run|rbac widget --webhooks`): serve the Widget webhooks with
 * self-managed certificates in the operator's namespace.
 */
export const options = {
  webhooks: {
    type: 'boolean',
    env: 'WIDGET_WEBHOOKS',
    description: 'serve the validating and mutating Widget webhooks (self-managed certificates)',
  },
  'webhook-namespace': {
    type: 'string',
    env: 'POD_NAMESPACE',
    default: 'rxkube-system',
    description: "the operator's namespace: the webhook Service and the certificates Secret",
  },
} satisfies ModuleOptions;

/** Where the webhook server listens and which names its certificate carries besides the Service's. */
export interface WidgetWebhookOptions {
  /** Extra DNS names / IPs of the serving certificate (tests: `127.0.0.1`). */
  readonly hosts?: readonly string[];
  /** Port (default 9443). */
  readonly port?: number;
  /** Bind address (default every interface). */
  readonly host?: string;
}

/** What the operator did, for logs, demos and tests. */
export type WidgetActivity =
  | { readonly type: 'inventory'; readonly key: string; readonly result: InventoryApply }
  | { readonly type: 'cleanup'; readonly key: string; readonly outcome: CleanupOutcome };

/** Options of {@link setup}. */
export interface WidgetOperatorOptions {
  /** Called after each inventory apply and each cleanup. */
  readonly onActivity?: (activity: WidgetActivity) => void;
  /**
   * Install or update the CRD from `crd.yaml` with `mgr.ensureCrd` (default true: `managerRbac`
   * then grants get/patch on it by name); false when it is managed elsewhere (no CRD request, no
   * CRD grant).
   */
  readonly installCrd?: boolean;
  /**
   * Serve the Widget webhooks (`webhooks.ts`) on the Manager with self-managed certificates: the
   * CA in the Secret `widget-webhook-certs` of {@link WidgetOperatorOptions.webhookNamespace},
   * the serving certificate for `widget-webhook.<namespace>.svc`, the caBundle injected into the
   * `widget` webhook configurations (`rxkube rbac widget --webhooks` prints them).
   */
  readonly webhooks?: boolean | WidgetWebhookOptions;
  /** The operator's namespace (default `rxkube-system`). */
  readonly webhookNamespace?: string;
}

/**
 * Installs the Widget CRD (waiting until it is served) and registers the `widget` controller with
 * the Manager. Call before `mgr.start()`.
 *
 * ## Example
 * ```ts
 * const mgr = new Manager({ client: KubeClient.default(), name: 'widget-operator' });
 * await setup(mgr);
 * await mgr.start();
 * ```
 *
 * ## Semantics
 * - Create: the finalizer is added (JSON patch `test`+`add`) before the reconcile first runs; the
 *   reconcile applies `widget-<name>-inventory` (server-side apply, owner reference to the Widget)
 *   and then the status (`observedGeneration`, `inventory`, a `Ready` condition).
 * - Label or annotation change: reconciled, the inventory apply changes nothing, no status request.
 * - Spec change (new generation): inventory updated, one status PATCH.
 * - Inventory edited or deleted by someone else: the owned-ConfigMap watch re-reconciles the Widget.
 * - Delete: the cleanup deletes the inventory (404 = already gone) and records `InventoryDeleted`,
 *   then the finalizer is removed and the Widget disappears; the reconcile is not called.
 *
 * @throws {InvalidCrdError} when `crd.yaml` is invalid; {@link CrdNotEstablishedError} when the
 *   API server does not establish it.
 */
export async function setup(mgr: Manager, options: WidgetOperatorOptions = {}): Promise<void> {
  if (options.installCrd !== false) {
    // Through the manager, so `managerRbac` (`rxkube rbac`) grants get/patch on this CRD.
    await mgr.ensureCrd(exampleFile('widget', 'crd.yaml'), { fieldManager: FIELD_MANAGER });
  }
  if (options.webhooks !== undefined && options.webhooks !== false) {
    const serving = options.webhooks === true ? {} : options.webhooks;
    const namespace = options.webhookNamespace ?? 'rxkube-system';
    setupWebhooks(mgr, {
      ...(serving.port !== undefined ? { port: serving.port } : {}),
      ...(serving.host !== undefined ? { host: serving.host } : {}),
      tls: {
        selfManaged: {
          secret: { namespace, name: `${name}-webhook-certs` },
          hosts: [`${name}-webhook.${namespace}.svc`, ...(serving.hosts ?? [])],
          inject: { validating: [name], mutating: [name] },
        },
      },
    });
  }
  const notify = options.onActivity ?? (() => undefined);
  mgr.add<Widget>(
    name,
    {
      for: widgetType,
      owns: [CONFIGMAP],
      status: { fieldManager: FIELD_MANAGER },
      finalizer: {
        name: FINALIZER,
        fieldManager: FIELD_MANAGER,
        cleanup: (widget, ctx) =>
          cleanupWidget(widget, {
            deleteInventory: (ref) => ctx.delete(ref),
            record: (event) => ctx.record(event),
          }).pipe(tap((outcome) => notify({ type: 'cleanup', key: ctx.key, outcome }))),
      },
      events: true,
      permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'delete'] }],
    },
    (_request, ctx) =>
      reconcileWidget(ctx.object, {
        applyInventory: async (cm: ConfigMap): Promise<InventoryApply> => {
          // Existing children from the owned ConfigMap Store (no LIST); writes tracked as our own.
          const result = await ctx.applyChildren([cm], {
            fieldManager: FIELD_MANAGER,
            labelSelector: MANAGED_SELECTOR,
          });
          const outcome = result.applied.length > 0 ? 'applied' : 'unchanged';
          notify({ type: 'inventory', key: ctx.key, result: outcome });
          return outcome;
        },
        writeStatus: (recipe) => ctx.status(recipe),
        record: (event) => ctx.record(event),
      }),
  );
}

/** One row of {@link summarise}. */
export interface WidgetRow {
  readonly namespace: string;
  readonly name: string;
  readonly size: number;
  readonly color: string;
  readonly generation: number | undefined;
  readonly observedGeneration: number | undefined;
  /** The `Ready` condition's status, `-` when none. */
  readonly ready: string;
  /** Whether the finalizer is on the Widget. */
  readonly finalizer: boolean;
  /** The inventory ConfigMap's `size`/`color`, `-` when it does not exist. */
  readonly inventory: string;
  /** Status and inventory reflect the current spec. */
  readonly converged: boolean;
}

/**
 * The server's state, as the operator sees it: one row per Widget with its status and inventory.
 * For the demo's summary table and convergence checks.
 *
 * ## Example
 * ```ts
 * const rows = await summarise(mgr.client, 'demo');
 * const done = rows.every((r) => r.converged);
 * ```
 */
export async function summarise(client: KubeClient, namespace?: string): Promise<WidgetRow[]> {
  const scope = namespace !== undefined ? { namespace } : {};
  const [widgets, configMaps] = await Promise.all([
    client.list<Widget>(widgetType, scope),
    client.list<ConfigMap>(CONFIGMAP, { ...scope, labelSelector: MANAGED_SELECTOR }),
  ]);
  const inventories = new Map(
    configMaps.items.map((cm) => [`${cm.metadata.namespace ?? ''}/${cm.metadata.name ?? ''}`, cm]),
  );
  return widgets.items.map((w): WidgetRow => {
    const { size, color } = specOf(w);
    const cm = inventories.get(`${w.metadata.namespace ?? ''}/${inventoryName(w)}`);
    const generation = w.metadata.generation;
    const observedGeneration = w.status?.observedGeneration;
    const ready = findCondition(w.status, 'Ready')?.status ?? '-';
    return {
      namespace: w.metadata.namespace ?? '',
      name: w.metadata.name ?? '',
      size,
      color,
      generation,
      observedGeneration,
      ready,
      finalizer: w.metadata.finalizers?.includes(FINALIZER) === true,
      inventory: cm === undefined ? '-' : `${cm.data?.['size'] ?? '?'} ${cm.data?.['color'] ?? '?'}`,
      converged:
        observedGeneration === generation &&
        ready === 'True' &&
        cm?.data?.['size'] === String(size) &&
        cm.data['color'] === color,
    };
  });
}
