import { asyncScheduler } from 'rxjs';
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';

import { metaPredicate } from '../internal/ttl-meta.js';
import type { MetaObject, MetaPredicateOptions } from './meta-object.js';

/**
 * Passes an object when its `metadata.resourceVersion` changed (controller-runtime's
 * `ResourceVersionChangedPredicate`): drops replays of a version already seen, e.g. resyncs.
 *
 * ## Example
 * ```ts
 * // ConfigMaps have no generation: filter on resourceVersion instead.
 * const configMaps$ = new Subject<MetaObject>(); // e.g. a watch's objects
 * configMaps$.pipe(resourceVersionChanged());
 * ```
 *
 * ## Semantics
 * - next: the first sighting of a key passes; later objects pass when `metadata.resourceVersion`
 *   differs from the last one seen (compared as opaque strings, never ordered: resourceVersions
 *   are not comparable).
 * - complete / error: forwarded; the memory is dropped and the sweep timer cancelled.
 * - unsubscribe: the memory is dropped and the sweep timer cancelled.
 * - a key not seen for `options.ttl` is forgotten: its next value passes as a first sighting.
 * - `options.isDelete(value)`: always passes and forgets the key.
 *
 * ## Guarantees
 * - A pure filter: order preserved, nothing delayed. Keys are independent.
 *
 * ## Memory
 * One entry per key seen within the last `ttl` (default 10 minutes), per subscription, swept by ONE
 * timer that is armed only while the memory is not empty. Deletes forget their key at once.
 *
 * @param options `ttl`, `isDelete`, `keyOf` (default `namespace/name`): see {@link MetaPredicateOptions}.
 * @param scheduler time source for the ttl; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously for a `ttl` that is not a finite number > 0 or a
 *   non-function `isDelete`/`keyOf`.
 */
export function resourceVersionChanged<T extends MetaObject>(
  options?: MetaPredicateOptions<T>,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  return metaPredicate<T, string | undefined>(
    'resourceVersionChanged',
    (o) => o.metadata?.resourceVersion,
    Object.is,
    options,
    scheduler,
  );
}
