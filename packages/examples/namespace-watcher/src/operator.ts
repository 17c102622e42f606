/**
 * The namespace watcher's wiring: a controller for core Namespaces (cluster-wide) whose reconcile
 * keeps a `rxkube-welcome` ConfigMap in every welcomed namespace (server-side apply, field manager
 * `namespace-watcher`), re-run when that ConfigMap changes or disappears (a mapped watch of the
 * operator's ConfigMaps), plus a journal logging one line per ADDED/MODIFIED/DELETED namespace
 * seen on the shared Namespace watch. Works against any API server the Manager's client points at.
 *
 * What it does not do: run with a Manager restricted to `namespaces` (Namespaces are
 * cluster-scoped; the controller needs a cluster-wide watch).
 *
 * @module
 */
import { Action, InvalidArgumentError } from '@rxkube/core';
import type { KubeClient, Manager, ResourceType } from '@rxkube/kube';
import { map, tap } from 'rxjs';
import { namespaceJournal } from './journal.js';
import {
  type ConfigMap,
  FIELD_MANAGER,
  MANAGED_SELECTOR,
  type Namespace,
  WELCOME_CONFIGMAP,
  type WelcomeOutcome,
  type WelcomePolicy,
  decide,
  labelList,
  reconcileNamespace,
  skipReason,
} from './reconcile.js';

/** The controller's name in the Manager (metrics, logs). */
export const name = 'namespace-watcher';

const NAMESPACE: ResourceType<Namespace> = { apiVersion: 'v1', kind: 'Namespace' };
const CONFIGMAP: ResourceType<ConfigMap> = { apiVersion: 'v1', kind: 'ConfigMap' };

/** Fields of a log line. */
export interface LineFields {
  readonly namespace: string;
  /** `ADDED`/`MODIFIED`/`DELETED` for journal lines; the outcome (`created`, …) for writes. */
  readonly change: string;
}

/** Options of {@link setup}. */
export interface NamespaceWatcherOptions extends WelcomePolicy {
  /** Where the journal and write lines go. Default `mgr.log.info(fields, line)`. */
  readonly log?: (line: string, fields: LineFields) => void;
}

/**
 * Registers the namespace watcher with a Manager: the `namespace-watcher` controller and, while
 * this replica leads, the journal of namespace changes. Call before `mgr.start()`.
 *
 * ## Example
 * ```ts
 * const mgr = new Manager({ client: KubeClient.default(), name: 'namespace-watcher' });
 * await setup(mgr, { exclude: ['kube-system', 'kube-public', 'kube-node-lease', 'default'] });
 * await mgr.start();
 * ```
 *
 * ## Semantics
 * - Level-triggered: the reconcile reads the Namespace and its welcome ConfigMap from the Stores,
 *   writes only when the ConfigMap is missing or stale, and deletes it once the namespace opts out
 *   (`rxkube.io/welcome=false`). Terminating namespaces are skipped; deleted ones are reported
 *   `skipped` by the controller (the reconcile is not called).
 * - The journal shares the controller's Namespace watch (no second connection). It is a runnable
 *   of the manager (`mgr.addRunnable`): it runs while this replica leads and stops with the manager.
 *
 * @throws {InvalidArgumentError} (rejects) when the Manager watches only some `namespaces`.
 */
export function setup(mgr: Manager, options: NamespaceWatcherOptions = {}): Promise<void> {
  if (mgr.namespaces !== undefined && mgr.namespaces.length > 0) {
    return Promise.reject(
      new InvalidArgumentError(
        `${name} setup`,
        'mgr.namespaces',
        mgr.namespaces,
        'must be unset: Namespaces are cluster-scoped, so the namespace watcher needs a cluster-wide Manager (drop --namespace / the namespaces option)',
      ),
    );
  }
  const log = options.log ?? ((line: string, fields: LineFields) => mgr.log.info(fields, line));
  const policy: WelcomePolicy = options.exclude !== undefined ? { exclude: options.exclude } : {};

  // A runnable of the manager: it runs while this replica leads and stops with the manager.
  mgr.addRunnable(`${name}-journal`, () =>
    mgr.registry.watch({ resource: NAMESPACE }).events$.pipe(
      namespaceJournal(),
      tap((entry) => log(entry.line, { namespace: entry.namespace, change: entry.type })),
    ),
  );

  mgr.add<Namespace>(
    name,
    {
      for: NAMESPACE,
      watches: [
        {
          resource: CONFIGMAP,
          labelSelector: MANAGED_SELECTOR,
          // a change to (or the loss of) a welcome ConfigMap re-reconciles its namespace
          map: (cm) =>
            cm.metadata.name === WELCOME_CONFIGMAP && cm.metadata.namespace !== undefined
              ? [{ name: cm.metadata.namespace }]
              : [],
        },
      ],
      permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'delete'] }],
    },
    (request, ctx) => {
      const current = ctx.cache.get(CONFIGMAP, `${request.name}/${WELCOME_CONFIGMAP}`);
      return reconcileNamespace(
        ctx.object,
        current,
        {
          // Through the context: the controller's own writes, whose echoes do not rerun it.
          apply: (cm) => ctx.apply(cm, { fieldManager: FIELD_MANAGER, force: true }),
          remove: (ref) => ctx.delete(ref),
        },
        policy,
        request.name,
      ).pipe(
        tap((outcome) => {
          const line = outcomeLine(outcome);
          if (line !== undefined) log(line, { namespace: outcome.namespace, change: outcome.type });
        }),
        map(() => Action.awaitChange()),
      );
    },
  );
  return Promise.resolve();
}

/** The log line of a write; none for a reconcile that wrote nothing (the Manager logs every result). */
function outcomeLine(o: WelcomeOutcome): string | undefined {
  switch (o.type) {
    case 'created':
    case 'updated':
      return `${o.type.padEnd(8)} ${o.namespace}/${WELCOME_CONFIGMAP}`;
    case 'deleted':
      return `deleted  ${o.namespace}/${WELCOME_CONFIGMAP} (namespace opted out)`;
    case 'skipped':
    case 'unchanged':
      return undefined;
  }
}

/** One row of {@link summarise}. */
export interface WelcomeRow {
  readonly namespace: string;
  readonly phase: string;
  readonly labels: string;
  /** `ok`, `missing`, `stale`, or `skipped (excluded|terminating)`. */
  readonly welcome: string;
  /** The ConfigMap's `summary`, `-` when none. */
  readonly summary: string;
  /** True when the namespace is as the operator wants it (a current ConfigMap, or rightly none). */
  readonly converged: boolean;
}

/**
 * The server's state, as the operator sees it: one row per namespace with its welcome ConfigMap's
 * state. For the demo's summary table and convergence checks.
 *
 * ## Example
 * ```ts
 * const rows = await summarise(mgr.client);
 * const done = rows.every((r) => r.converged);
 * ```
 */
export async function summarise(client: KubeClient, policy: WelcomePolicy = {}): Promise<WelcomeRow[]> {
  const [namespaces, configMaps] = await Promise.all([
    client.list<Namespace>(NAMESPACE),
    client.list<ConfigMap>(CONFIGMAP, { labelSelector: MANAGED_SELECTOR }),
  ]);
  const welcome = new Map(
    configMaps.items
      .filter((cm) => cm.metadata.name === WELCOME_CONFIGMAP)
      .map((cm) => [cm.metadata.namespace ?? '', cm] as const),
  );
  return namespaces.items.map((ns): WelcomeRow => {
    const nsName = ns.metadata.name ?? '';
    const cm = welcome.get(nsName);
    const skip = skipReason(ns, policy);
    const decision = decide(ns, cm, policy);
    const state =
      skip !== undefined
        ? `skipped (${skip})`
        : cm === undefined
          ? 'missing'
          : decision.type === 'unchanged'
            ? 'ok'
            : 'stale';
    return {
      namespace: nsName,
      phase: ns.status?.phase ?? 'Unknown',
      labels: labelList(ns.metadata.labels),
      welcome: state,
      summary: cm?.data?.['summary'] ?? '-',
      // terminating namespaces are the namespace controller's to empty
      converged:
        decision.type === 'unchanged' ||
        (decision.type === 'skip' && (skip === 'terminating' || cm === undefined)),
    };
  });
}
