/**
 * A registration's controller options in its Manager: where it watches (its own namespace,
 * cluster-wide for a cluster-scoped kind, else the manager's namespaces) and what the manager
 * supplies (client, shared registry, shutdown signal, default concurrency; to run: logger, metrics
 * observer, Event recorder). Pure: planning from these options builds nothing.
 *
 * @module
 */
import type { Observable } from 'rxjs';

import type { Client } from '../client/client.js';
import type { ControllerOptions } from '../controller/options.js';
import type { WatchRegistry } from '../reflector/watch-registry.js';
import type { KubeObject } from '../types.js';
import type { ManagedController, ManagedControllerOptions } from './registration.js';

/** Where a controller watches. */
export interface ControllerScope {
  readonly namespace?: string;
  readonly namespaces?: readonly string[];
}

/**
 * Where a registration watches: its own `namespace`; cluster-wide for a kind in `clusterScoped`
 * (`apiVersion/kind`: a Namespace, a cluster-scoped CRD); else the manager's `namespaces` (all
 * when none).
 */
export function scopeOf(
  options: ManagedControllerOptions<KubeObject>,
  clusterScoped: ReadonlySet<string>,
  namespaces: readonly string[] | undefined,
): ControllerScope {
  if (options.namespace !== undefined) return { namespace: options.namespace };
  if (clusterScoped.has(`${options.for.apiVersion}/${options.for.kind}`)) return {};
  if (namespaces === undefined || namespaces.length === 0) return {};
  return namespaces.length === 1 && namespaces[0] !== undefined
    ? { namespace: namespaces[0] }
    : { namespaces };
}

/** What the manager gives every controller. */
export interface ManagerSupplies {
  readonly client: Client;
  readonly registry: WatchRegistry;
  readonly shutdown: Observable<void>;
  /** The manager's default concurrency. */
  readonly concurrency: number | undefined;
  /** The manager's default reconcile deadline. */
  readonly reconcileTimeoutMs: number | false | undefined;
}

/** What a controller built to run gets besides (see `ControllerOptions`). */
export type RunSupplies = Pick<ControllerOptions<KubeObject>, 'log' | 'observer' | 'recorder' | 'tracing'>;

/** The controller options of registration `c` in `scope`; `run` adds what a run needs. */
export function managedOptions(
  c: ManagedController,
  scope: ControllerScope,
  supplies: ManagerSupplies,
  run?: (concurrency: number) => RunSupplies,
): ControllerOptions<KubeObject> {
  const { events: _events, permissions: _permissions, single: _single, ...rest } = c.options;
  const concurrency = rest.concurrency ?? supplies.concurrency;
  const reconcileTimeoutMs = rest.reconcileTimeoutMs ?? supplies.reconcileTimeoutMs;
  return {
    ...rest,
    ...scope,
    ...(reconcileTimeoutMs !== undefined ? { reconcileTimeoutMs } : {}),
    name: c.name,
    ...(concurrency !== undefined ? { concurrency } : {}),
    client: supplies.client,
    registry: supplies.registry,
    shutdown: supplies.shutdown,
    // The manager logs every outcome once (logReconcile); the controller logs the rest.
    logResults: false,
    ...(run === undefined ? {} : run(concurrency ?? 1)),
  };
}
