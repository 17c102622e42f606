/**
 * `createWatchRegistry`: a {@link WatchRegistry} whose watches run over HTTP through a
 * {@link KubeClient} — one upstream list+watch per (resource, namespace, selectors, metadata-only).
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type { ShareWatchOptions } from './share-watch.js';
import type { WatchTarget } from './watch-registry.js';
import { WatchRegistry } from './watch-registry.js';
import type { KubeObject } from '../types.js';
import type { WatcherConfig } from '../watcher/config.js';
import { resolveWatcherConfig } from '../watcher/config.js';
import type { WatcherHealth } from '../watcher/health.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { assertScheduler } from '../watcher/watcher.js';
import { watchResource } from '../watcher/watch-resource.js';

/** Options of {@link createWatchRegistry}. */
export interface CreateWatchRegistryOptions extends ShareWatchOptions<KubeObject> {
  /** Watcher config of every target (backoff, idle timeout, page size, …); `health` is not allowed here. */
  readonly watcher?: Omit<WatcherConfig, 'health'>;
  /** Health of every upstream watcher, with the target it belongs to. */
  readonly health?: (target: WatchTarget, health: WatcherHealth) => void;
}

/**
 * A {@link WatchRegistry} over a client: `registry.watch(target)` hands out one shared watch (one
 * HTTP list+watch, one Store) per target, whoever asks.
 *
 * ## Example
 * ```ts
 * const registry = createWatchRegistry(client, { gracePeriodMs: 5_000 });
 * const pods = registry.watch({ resource: { apiVersion: 'v1', kind: 'Pod' }, namespace: 'ns' });
 * pods.events$.subscribe(controllerA);
 * registry.watch({ resource: { apiVersion: 'v1', kind: 'Pod' }, namespace: 'ns' }).events$.subscribe(controllerB); // same request
 * pods.store.byIndex('owner', rs.metadata.uid);
 * ```
 *
 * ## Semantics
 * - The upstream of a target is `watchResource(client, target.resource, { ...target, ...options.watcher })`,
 *   started by its first subscriber and stopped when the last leaves (after `gracePeriodMs`).
 * - A late subscriber first receives the shared Store as `Init`, `InitApply`*, `InitDone`
 *   ({@link shareWatch}).
 * - Failures never reach subscribers as errors; they arrive at `options.health`.
 *
 * ## Memory
 * One entry per distinct target ever asked for; each Store is emptied while nobody subscribes.
 *
 * @param client the API client.  @param options watcher config, health callback, sharing options.
 * @param scheduler time source of the watchers and of the grace periods.
 * @throws {InvalidArgumentError} at call time for an unusable option or scheduler.
 */
export function createWatchRegistry(
  client: KubeClient,
  options: CreateWatchRegistryOptions = {},
  scheduler: SchedulerLike = asyncScheduler,
): WatchRegistry {
  const { watcher: config = {}, health, ...share } = options;
  if (config === null || typeof config !== 'object' || 'health' in config) {
    throw new InvalidArgumentError(
      'createWatchRegistry',
      'options.watcher',
      config,
      'must be a WatcherConfig without health (pass options.health, which also names the target)',
    );
  }
  resolveWatcherConfig('createWatchRegistry', config);
  if (health !== undefined && typeof health !== 'function') {
    throw new InvalidArgumentError(
      'createWatchRegistry',
      'options.health',
      health,
      'must be a function or undefined',
    );
  }
  assertScheduler('createWatchRegistry', scheduler);
  return new WatchRegistry(
    (target) =>
      watchResource(
        client,
        target.resource,
        {
          ...config,
          ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
          ...(target.labelSelector !== undefined ? { labelSelector: target.labelSelector } : {}),
          ...(target.fieldSelector !== undefined ? { fieldSelector: target.fieldSelector } : {}),
          ...(target.metadataOnly !== undefined ? { metadataOnly: target.metadataOnly } : {}),
          ...(health !== undefined ? { health: (h: WatcherHealth) => health(target, h) } : {}),
        },
        scheduler,
      ),
    share,
    scheduler,
  );
}
