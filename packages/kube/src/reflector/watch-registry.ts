/**
 * `WatchRegistry`: one shared watch — one list+watch, one Store — per (resource, namespace,
 * selectors, metadata-only) target, whoever asks: kube-rs's shared reflector stores, client-go's
 * shared informers. Over a client (watches over HTTP) or over a factory of event streams (scripted
 * watches in tests).
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler, Observable } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type { KubeObject, ResourceType, WatchEvent } from '../types.js';
import { assertNumber, InvalidArgumentError } from '../internal/invalid-argument.js';
import { assertSelectors } from '../selector/label-selector.js';
import type { WatcherConfig } from '../watcher/config.js';
import { resolveWatcherConfig } from '../watcher/config.js';
import type { WatcherHealth } from '../watcher/health.js';
import { ServerRecovery } from '../watcher/server-recovery.js';
import { assertScheduler, watcher } from '../watcher/watcher.js';
import type { SharedWatch, ShareWatchOptions } from './share-watch.js';
import { shareWatch } from './share-watch.js';

/**
 * What one watch is about. Two targets with the same fields share one upstream.
 *
 * ## Example
 * ```ts
 * const target: WatchTarget = { resource: { apiVersion: 'v1', kind: 'Pod' }, namespace: 'shop', metadataOnly: true };
 * registry.watch(target).events$.subscribe();
 * ```
 */
export interface WatchTarget {
  readonly resource: ResourceType;
  /** Unset: all namespaces (or a cluster-scoped resource). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Watch `PartialObjectMetadata` only (cheap watches of children). */
  readonly metadataOnly?: boolean;
}

/**
 * The identity of a target: equal for targets that must share a watch.
 *
 * ## Example
 * ```ts
 * watchTargetKey({ resource: { apiVersion: 'v1', kind: 'Pod' }, namespace: 'ns' });
 * ```
 */
export function watchTargetKey(target: WatchTarget): string {
  return JSON.stringify([
    target.resource.apiVersion,
    target.resource.kind,
    target.namespace ?? '',
    target.labelSelector ?? '',
    target.fieldSelector ?? '',
    target.metadataOnly === true,
  ]);
}

/**
 * Builds the upstream events of a target, e.g. `(t) => watcher(client, t.resource, t)`.
 *
 * ## Example
 * ```ts
 * const factory: WatchFactory = (target) => watcher(client, target.resource, target);
 * const registry = new WatchRegistry(factory);
 * ```
 */
export type WatchFactory = (target: WatchTarget) => Observable<WatchEvent<KubeObject>>;

/**
 * Options of a {@link WatchRegistry}.
 *
 * ## Example
 * ```ts
 * const options: WatchRegistryOptions = {
 *   gracePeriodMs: 5_000,
 *   watcher: { pageSize: 100 },
 *   health: (target, h) => h.lastError && log.warn(`${target.resource.kind}: ${h.lastError.message}`),
 * };
 * const registry = new WatchRegistry(client, options);
 * ```
 */
export interface WatchRegistryOptions extends ShareWatchOptions<KubeObject> {
  /**
   * Watcher config of every target (backoff, idle timeout, page size, …); `health` is not allowed
   * here (see `health`). Over a client only.
   */
  readonly watcher?: Omit<WatcherConfig, 'health'>;
  /** Health of every upstream watcher, with the target it belongs to. Over a client only. */
  readonly health?: (target: WatchTarget, health: WatcherHealth) => void;
}

/**
 * Hands out one {@link SharedWatch} per target: every subscriber of the same target shares one
 * upstream watch and one Store.
 *
 * ## Example
 * ```ts
 * import type { Observer } from 'rxjs';
 *
 * declare const controllerA: Observer<WatchEvent<Pod>>;
 * declare const controllerB: Observer<WatchEvent<Pod>>;
 * declare const rs: KubeObject; // a ReplicaSet
 * const registry = new WatchRegistry(client, { gracePeriodMs: 5_000 }); // watches over HTTP
 * const pods = registry.watch<Pod>({ resource: { apiVersion: 'v1', kind: 'Pod' }, namespace: 'ns' });
 * pods.events$.subscribe(controllerA);
 * registry.watch<Pod>({ resource: { apiVersion: 'v1', kind: 'Pod' }, namespace: 'ns' }).events$.subscribe(controllerB); // same request
 * pods.store.byIndex('owner', rs.metadata.uid ?? ''); // its Pods
 * // scripted, in a test: new WatchRegistry((target) => streams[target.resource.kind] ?? NEVER)
 * ```
 *
 * ## Semantics
 * - `watch(target)` returns the same {@link SharedWatch} for equal targets ({@link watchTargetKey}).
 *   Its upstream is `watcher(client, target.resource, { ...target, ...options.watcher })` (or
 *   `factory(target)`), started by its first subscriber, stopped when the last leaves (after
 *   `gracePeriodMs`).
 * - A late subscriber first receives the shared Store as `Init`, `InitApply`*, `InitDone`, then the
 *   live events; the upstream ending (error or complete) reaches every subscriber and clears the
 *   Store.
 * - Over a client, failures never reach subscribers as errors; they arrive at `options.health`.
 * - Over a client, the watchers share one `ServerRecovery` (or `options.watcher.recovery`): after
 *   an outage, the first success of any of them — or of a `GET /api` probe sent every second
 *   while one waits — ends every connection backoff, so all reconnect within about 2 s.
 *
 * ## Memory
 * One entry per distinct target ever asked for (targets are few and fixed by code); each entry's
 * Store is emptied while nobody subscribes.
 */
export class WatchRegistry {
  private readonly entries = new Map<string, SharedWatch<KubeObject>>();
  private readonly factory: WatchFactory;
  private readonly share: ShareWatchOptions<KubeObject>;

  /**
   * @param source the API client whose watches to share, or a factory of each target's events.
   * @param options sharing, watcher config and health callback (the last two over a client).
   * @param scheduler time source of the watchers and of the grace periods.
   * @throws {InvalidArgumentError} at call time for an unusable source, option or scheduler.
   */
  constructor(
    source: KubeClient | WatchFactory,
    options: WatchRegistryOptions = {},
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    if (options === null || typeof options !== 'object') {
      throw new InvalidArgumentError('WatchRegistry', 'options', options, 'must be an object or undefined');
    }
    const { watcher: config = {}, health, ...share } = options;
    assertNumber('WatchRegistry', 'options.gracePeriodMs', share.gracePeriodMs ?? 0, 0, false);
    this.share = share;
    assertScheduler('WatchRegistry', scheduler);
    if (typeof source === 'function') {
      this.factory = source;
      return;
    }
    if (source === null || typeof source !== 'object' || typeof source.discovery?.resolve !== 'function') {
      throw new InvalidArgumentError(
        'WatchRegistry',
        'source',
        source,
        'must be a KubeClient or a function (target) => Observable of WatchEvents',
      );
    }
    if (config === null || typeof config !== 'object' || 'health' in config) {
      throw new InvalidArgumentError(
        'WatchRegistry',
        'options.watcher',
        config,
        'must be a WatcherConfig without health (pass options.health, which also names the target)',
      );
    }
    resolveWatcherConfig('WatchRegistry', config);
    if (health !== undefined && typeof health !== 'function') {
      throw new InvalidArgumentError(
        'WatchRegistry',
        'options.health',
        health,
        'must be a function or undefined',
      );
    }
    const client = source;
    // One recovery per registry: its watches share a server, so one's success (or a probe of
    // `GET /api`) ends the others' connection backoff after an outage.
    const recovery =
      config.recovery ??
      new ServerRecovery(
        {
          probe: () => client.transport.request({ method: 'GET', path: '/api', target: { verb: 'get' } }),
        },
        scheduler,
      );
    this.factory = (target) =>
      watcher(
        client,
        target.resource,
        {
          ...config,
          recovery,
          ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
          ...(target.labelSelector !== undefined ? { labelSelector: target.labelSelector } : {}),
          ...(target.fieldSelector !== undefined ? { fieldSelector: target.fieldSelector } : {}),
          ...(target.metadataOnly !== undefined ? { metadataOnly: target.metadataOnly } : {}),
          ...(health !== undefined ? { health: (h: WatcherHealth) => health(target, h) } : {}),
        },
        scheduler,
      );
  }

  /** Number of distinct targets handed out. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The shared watch of `target` (created on first request), typed by its resource
   * (`{ resource: widgets }` with `widgets: ResourceType<Widget>` → `SharedWatch<Widget>`).
   *
   * @throws {InvalidArgumentError} when the target has no `resource.apiVersion`/`resource.kind`;
   *   `InvalidSelectorError` for a `labelSelector` or `fieldSelector` the server would refuse (400),
   *   with the position of the error — at registration, not as a watch that retries forever.
   */
  watch<T extends KubeObject = KubeObject>(
    target: WatchTarget & { readonly resource: ResourceType<T> },
  ): SharedWatch<T> {
    const resource = (target as Partial<WatchTarget> | null | undefined)?.resource;
    if (typeof resource?.apiVersion !== 'string' || typeof resource.kind !== 'string') {
      throw new InvalidArgumentError(
        'WatchRegistry.watch',
        'target',
        target,
        "must have resource: { apiVersion, kind } (e.g. { resource: { apiVersion: 'v1', kind: 'Pod' } })",
      );
    }
    assertSelectors('WatchRegistry.watch', 'target.', target);
    const key = watchTargetKey(target);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const upstream$ = new Observable<WatchEvent<KubeObject>>((subscriber) =>
        this.factory(target).subscribe(subscriber),
      );
      entry = shareWatch(upstream$, this.share, this.scheduler);
      this.entries.set(key, entry);
    }
    return entry as unknown as SharedWatch<T>;
  }
}
