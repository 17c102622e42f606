import { asyncScheduler } from 'rxjs';
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';

import { assertCallback, assertOptionalCallback } from '../internal/timed-checks.js';
import { checkPredicateOptions, ttlChangedBy } from '../internal/ttl-changed-by.js';

/**
 * Options of {@link changedBy}.
 *
 * ## Example
 * ```ts
 * type Deployment = {
 *   metadata: { namespace: string; name: string; deletionTimestamp?: string };
 *   spec: { template: { spec: { containers: { image: string }[] } } };
 * };
 * const deployments$ = new Subject<Deployment>(); // e.g. a watch's objects
 * const images = (d: Deployment) => d.spec.template.spec.containers.map((c) => c.image);
 * const options: ChangedByOptions<Deployment, string[]> = {
 *   ttl: 60_000,
 *   isEqual: (a, b) => a.join() === b.join(),
 *   isDelete: (d) => d.metadata.deletionTimestamp !== undefined,
 * };
 * deployments$.pipe(changedBy((d) => `${d.metadata.namespace}/${d.metadata.name}`, images, options));
 * ```
 */
export interface ChangedByOptions<T, V> {
  /**
   * How long (ms, finite, > 0) a key is remembered after its last sighting; a key seen again
   * after that passes as if new. Default 10 minutes (600 000 ms).
   */
  readonly ttl?: number;
  /** Equality of selected values. Default `Object.is`. */
  readonly isEqual?: (a: V, b: V) => boolean;
  /** Marks deletions: they always pass, and their key is forgotten. Default: nothing is a deletion. */
  readonly isDelete?: (value: T) => boolean;
}

/**
 * Keyed change filter (controller-runtime's Predicate, for a stream of objects): passes a value
 * when `select(value)` differs from the last selected value seen for its key.
 *
 * ## Example
 * ```ts
 * // Only reconcile a Deployment when its replica count changed (or it was deleted).
 * type Deployment = { metadata: { namespace: string; name: string; deletionTimestamp?: string }; spec?: { replicas?: number } };
 * const deployments$ = new Subject<Deployment>(); // e.g. a watch's objects
 * deployments$.pipe(
 *   changedBy(
 *     (d) => `${d.metadata.namespace}/${d.metadata.name}`,
 *     (d) => d.spec?.replicas,
 *     { isDelete: (d) => d.metadata.deletionTimestamp !== undefined },
 *   ),
 * );
 * ```
 *
 * ## Semantics
 * - next: the first sighting of a key passes; later values pass when
 *   `!isEqual(previous, select(value))`. Every sighting (passed or not) is remembered as the key's
 *   latest selected value and restarts its `ttl`.
 * - delete (`isDelete(value)`): always passes; the key is forgotten, so its next value passes.
 * - ttl: a key not seen for `ttl` is forgotten (exactly: a value arriving `ttl` or more after the
 *   previous sighting passes), so idle and deleted-but-unnoticed keys do not pile up.
 * - complete / error: forwarded; the memory is dropped and the sweep timer cancelled.
 * - unsubscribe: the memory is dropped and the sweep timer cancelled.
 * - `keyOf` throws: a `KeyOfError` is sent downstream. `select`, `isEqual` or `isDelete` throws:
 *   an `Error` naming that callback (with the thrown value as `cause`). The source is unsubscribed.
 *
 * ## Guarantees
 * - Order is preserved; values are never delayed (a pure filter, no scheduling on the value path).
 * - Within `ttl` of a key's last sighting, a value passes only if its selected value changed or
 *   it is a delete.
 *
 * ## Memory
 * One entry (the selected value and a timestamp) per key seen within the last `ttl`, per
 * subscription. ONE sweep timer per subscription (armed only while the memory is not empty) deletes
 * expired entries; the memory is ordered by last sighting, so a sweep only touches expired
 * entries.
 *
 * @param keyOf extracts the key (SameValueZero, as `Map` does); must not throw.
 * @param select the part of the value whose change matters.
 * @param options `ttl`, `isEqual`, `isDelete`: see {@link ChangedByOptions}.
 * @param scheduler time source for the ttl; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously for a non-function `keyOf`/`select`/`isEqual`/
 *   `isDelete` or a `ttl` that is not a finite number > 0.
 */
export function changedBy<T, K, V>(
  keyOf: (value: T) => K,
  select: (value: T) => V,
  options?: ChangedByOptions<T, V>,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  assertCallback('changedBy', 'keyOf', keyOf);
  assertCallback('changedBy', 'select', select);
  const ttl = checkPredicateOptions('changedBy', options, scheduler);
  assertOptionalCallback('changedBy', 'options.isEqual', options?.isEqual);
  return ttlChangedBy<T, K, V>({
    operator: 'changedBy',
    keyOf,
    select,
    isEqual: options?.isEqual ?? Object.is,
    isDelete: options?.isDelete,
    ttl,
    scheduler,
  });
}
