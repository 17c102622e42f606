/**
 * `WatchRegistry`: one shared watch per (resource, namespace, selectors, metadata-only) target.
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler, Observable } from 'rxjs';

import type { KubeObject, ResourceType, WatchEvent } from '../types.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import type { SharedWatch, ShareWatchOptions } from './share-watch.js';
import { shareWatch } from './share-watch.js';

/** What one watch is about. Two targets with the same fields share one upstream. */
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

/** Builds the upstream events of a target, e.g. `(t) => watcher(listWatchSource(client, t.resource, t))`. */
export type WatchFactory = (target: WatchTarget) => Observable<WatchEvent<KubeObject>>;

/**
 * Hands out one {@link SharedWatch} per target: every subscriber of the same target shares one
 * upstream watch and one Store.
 *
 * ## Example
 * ```ts
 * const registry = new WatchRegistry((t) => watcher(listWatchSource(client, t.resource, t)));
 * const pods = registry.watch<Pod>({ resource: { apiVersion: 'v1', kind: 'Pod' }, namespace: 'ns' });
 * pods.events$.subscribe(...); registry.watch<Pod>({ ...same }).events$.subscribe(...); // one watch
 * ```
 *
 * ## Semantics
 * - `watch(target)` returns the same {@link SharedWatch} for equal targets ({@link watchTargetKey});
 *   the factory is called each time that shared watch's first subscriber arrives.
 * - Everything else (replay to late subscribers, refCount with grace period) is {@link shareWatch}'s.
 *
 * ## Memory
 * One entry per distinct target ever asked for (targets are few and fixed by code); each entry's
 * Store is emptied while nobody subscribes.
 */
export class WatchRegistry {
  private readonly entries = new Map<string, SharedWatch<KubeObject>>();

  /**
   * @param factory builds a target's upstream events.  @param options shared-watch options for all
   * targets.  @param scheduler time source of grace periods.
   * @throws {InvalidArgumentError} when `factory` is not a function.
   */
  constructor(
    private readonly factory: WatchFactory,
    private readonly options: ShareWatchOptions<KubeObject> = {},
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    if (typeof factory !== 'function') {
      throw new InvalidArgumentError(
        'WatchRegistry',
        'factory',
        factory,
        'must be a function (target) => Observable',
      );
    }
  }

  /** Number of distinct targets handed out. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The shared watch of `target` (created on first request).
   *
   * @throws {InvalidArgumentError} when the target has no `resource.apiVersion`/`resource.kind`.
   */
  watch<T extends KubeObject = KubeObject>(target: WatchTarget): SharedWatch<T> {
    const resource = (target as Partial<WatchTarget> | null | undefined)?.resource;
    if (typeof resource?.apiVersion !== 'string' || typeof resource.kind !== 'string') {
      throw new InvalidArgumentError(
        'WatchRegistry.watch',
        'target',
        target,
        "must have resource: { apiVersion, kind } (e.g. { resource: { apiVersion: 'v1', kind: 'Pod' } })",
      );
    }
    const key = watchTargetKey(target);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const upstream$ = new Observable<WatchEvent<KubeObject>>((subscriber) =>
        this.factory(target).subscribe(subscriber),
      );
      entry = shareWatch(upstream$, this.options, this.scheduler);
      this.entries.set(key, entry);
    }
    return entry as unknown as SharedWatch<T>;
  }
}
