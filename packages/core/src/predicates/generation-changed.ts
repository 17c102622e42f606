import { asyncScheduler } from 'rxjs';
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';

import { metaPredicate } from '../internal/ttl-meta.js';
import type { MetaObject, MetaPredicateOptions } from './meta-object.js';

/**
 * Passes an object when its `metadata.generation` changed (controller-runtime's
 * `GenerationChangedPredicate`): spec changes pass, status-only and metadata-only updates do not.
 *
 * ## Example
 * ```ts
 * // Reconcile Widgets on spec changes only, not on our own status writes.
 * const widgets$ = new Subject<MetaObject>(); // e.g. a watch's objects
 * widgets$.pipe(generationChanged(), debounceByKey((w) => `${w.metadata?.namespace}/${w.metadata?.name}`, 200));
 * ```
 *
 * ## Semantics
 * - next: the first sighting of a key passes (like a Create event); later objects pass when
 *   `metadata.generation` differs from the last one seen for the key.
 * - objects without `metadata.generation` (ConfigMap, Secret, most built-in kinds without a
 *   `spec`): the generation is `undefined` on every update, so after the first sighting every
 *   update is filtered, exactly like controller-runtime. Use `resourceVersionChanged` for
 *   those.
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
export function generationChanged<T extends MetaObject>(
  options?: MetaPredicateOptions<T>,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  return metaPredicate<T, number | undefined>(
    'generationChanged',
    (o) => o.metadata?.generation,
    Object.is,
    options,
    scheduler,
  );
}
