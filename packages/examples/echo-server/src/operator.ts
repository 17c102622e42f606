/**
 * The echo-server operator's wiring: install the EchoServer CRD, register a controller that owns
 * Deployments and Services (a change of either reruns its EchoServer), and give the reconcile its
 * ports over the API client — `applyChildren` (server-side apply, controller references, pruning),
 * GETs of the children, and the controller's status sink. Works against any API server the
 * Manager's client points at; against `@rxkube/testing`'s, start it with
 * `simulateDeployments: true` so Deployments report ready pods.
 *
 * @module
 */
import {
  type ControllerReconcile,
  type KubeClient,
  type KubeObject,
  type Manager,
  type PolicyRule,
  type ReconcileContext,
} from '@rxkube/kube';
import { defer, of } from 'rxjs';

import { exampleFile } from '../../src/paths.js';
import { type EchoServer, echoServerType } from './echo-server.js';
import {
  childTypes,
  deploymentType,
  type EchoServerPorts,
  FIELD_MANAGER,
  reconcileEchoServer,
  serviceType,
  statusRecipe,
} from './reconcile.js';

/** The operator's name (the Manager's, and this example's folder). */
export const name = 'echo-server';

/** What the reconcile writes beyond the controller's own watches and status (RBAC for `Manager.rbacRules`). */
export const permissions: readonly PolicyRule[] = [
  // ctx.applyChildren: server-side apply (create or patch) and prune (delete); existing children
  // and the read-back come from the owned Stores (list/watch), never a GET
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'create', 'patch', 'delete'] },
  { apiGroups: [''], resources: ['services'], verbs: ['list', 'create', 'patch', 'delete'] },
];

/** Options of {@link setup}. */
export interface EchoServerSetupOptions {
  /** Reconciles in flight (default: the Manager's). */
  readonly concurrency?: number;
}

/**
 * Installs the EchoServer CRD (server-side apply, waits until served) and registers the
 * `echo-server` controller with the Manager.
 *
 * ## Example
 * ```ts
 * const mgr = new Manager({ client: KubeClient.default(), name });
 * await setup(mgr);
 * await mgr.start();
 * ```
 */
export async function setup(mgr: Manager, options: EchoServerSetupOptions = {}): Promise<void> {
  // Through the manager, so `managerRbac` (`rxkube rbac`) grants get/patch on this CRD.
  await mgr.ensureCrd(exampleFile('echo-server', 'crd.yaml'), { fieldManager: FIELD_MANAGER });
  mgr.add<EchoServer>(
    'echo-server',
    {
      for: echoServerType,
      owns: childTypes,
      status: { fieldManager: FIELD_MANAGER },
      permissions,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    },
    echoServerReconciler(),
  );
}

/**
 * The controller's reconcile: {@link reconcileEchoServer} of the current object with ports over
 * the controller's context.
 *
 * ## Example
 * ```ts
 * controller<EchoServer>({ for: echoServerType, owns: childTypes, client, status: {} })
 *   .run(echoServerReconciler());
 * ```
 */
export function echoServerReconciler(): ControllerReconcile<EchoServer> {
  return (_request, ctx) => reconcileEchoServer(ctx.object, echoServerPorts(ctx));
}

/**
 * The reconcile's ports over a controller context: `ctx.applyChildren` as {@link FIELD_MANAGER}
 * (existing children from the owned Stores, no LIST; pruning Deployments and Services the
 * EchoServer controls but no longer wants; tracked as the controller's own writes), reads of the
 * children from the controller's cache (which shows the reconcile's own writes), and `ctx.status`
 * (no request when nothing changed).
 *
 * ## Example
 * ```ts
 * reconcileEchoServer(ctx.object, echoServerPorts(ctx));
 * ```
 */
export function echoServerPorts(ctx: ReconcileContext<EchoServer>): EchoServerPorts {
  return {
    applyChildren: (_parent, desired) =>
      defer(() => ctx.applyChildren(desired, { fieldManager: FIELD_MANAGER, childTypes })),
    getDeployment: (ref) => of(ctx.cache.get(deploymentType, ref)),
    getService: (ref) => of(ctx.cache.get(serviceType, ref)),
    writeStatus: (derived) => ctx.status(statusRecipe(derived)),
  };
}

/** One EchoServer as the demo's summary shows it. */
export interface EchoServerRow {
  readonly namespace: string;
  readonly name: string;
  readonly message: string;
  readonly replicas: number;
  readonly readyReplicas: number;
  /** The `Ready` condition's status (`-` before the first status write). */
  readonly ready: string;
  readonly url: string;
  /** Children it controls, e.g. `Deployment, Service`. */
  readonly children: string;
}

/**
 * Reads every EchoServer (of a namespace, or all) and the Deployments and Services it controls,
 * through the client, as rows for a summary table.
 *
 * ## Example
 * ```ts
 * console.table(await echoServerRows(mgr.client, 'demo'));
 * ```
 */
export async function echoServerRows(client: KubeClient, namespace?: string): Promise<EchoServerRow[]> {
  const at = namespace !== undefined ? { namespace } : {};
  const [echos, deployments, services] = await Promise.all([
    client.list<EchoServer>(echoServerType, at),
    client.list<KubeObject>(deploymentType, { ...at, metadataOnly: true }),
    client.list<KubeObject>(serviceType, { ...at, metadataOnly: true }),
  ]);
  const controlledBy = (uid: string | undefined, items: readonly KubeObject[]): boolean =>
    items.some((o) => o.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === uid));
  return echos.items
    .map((e) => {
      const uid = e.metadata.uid;
      const owned = [
        ...(controlledBy(uid, deployments.items) ? ['Deployment'] : []),
        ...(controlledBy(uid, services.items) ? ['Service'] : []),
      ];
      return {
        namespace: e.metadata.namespace ?? '',
        name: e.metadata.name ?? '',
        message: e.spec?.message ?? '',
        replicas: e.spec?.replicas ?? 0,
        readyReplicas: e.status?.readyReplicas ?? 0,
        ready: e.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '-',
        url: e.status?.url ?? '-',
        children: owned.join(', ') || '-',
      };
    })
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
}
