import { asyncScheduler } from 'rxjs';
import type { GroupedObservable, OperatorFunction, SchedulerLike } from 'rxjs';

import { InvalidArgumentError } from './invalid-argument-error.js';
import { assertCallback, assertDuration, assertSchedulerLike } from './internal/timed-checks.js';
import { timedGroupBy } from './internal/timed-group-by.js';

/**
 * Options of {@link groupByKey} and {@link groupByNamespace}.
 *
 * ## Example
 * ```ts
 * const options: GroupByKeyOptions = { duration: 60_000 }; // a lane closes after 1 min idle
 * const events$ = new Subject<{ key: string }>();
 * events$.pipe(groupByKey((e) => e.key, options));
 * ```
 */
export interface GroupByKeyOptions {
  /**
   * Idle time in ms (finite, `>= 0`): a group that received no value for this long completes and
   * is forgotten; a later value of its key opens a new group.
   */
  readonly duration: number;
}

/**
 * rxjs `groupBy` whose groups complete after `duration` of idleness, so the group map is bounded
 * by the keys active in the last `duration`, not by every key ever seen.
 *
 * ## Example
 * ```ts
 * // One lane per tenant; each lane is closed after 10 minutes without events.
 * type TenantEvent = { tenant: string; id: string };
 * const events$ = new Subject<TenantEvent>();
 * const handle = (tenant: string, e: TenantEvent) => of(`${tenant}: ${e.id}`); // your work
 * events$.pipe(
 *   groupByKey((e) => e.tenant, { duration: 600_000 }),
 *   mergeMap((lane) => lane.pipe(runByKey((e) => e.id, (e) => handle(lane.key, e)))),
 * );
 * ```
 *
 * ## Semantics
 * - next: the value goes to its key's group; the first value of a key (or the first after its
 *   group idled out) emits a new `GroupedObservable` (with `.key`) and then the value to it.
 *   Groups are hot, like rxjs `groupBy`'s: subscribe to a group synchronously when it is emitted
 *   (`mergeMap` does) or its first value is missed. Each value restarts its group's idle timer.
 * - idle: `duration` after its last value a group completes and leaves the map, even if its
 *   subscriber is still busy with earlier values (the lane's work is the subscriber's business).
 * - complete: every open group completes (in the order they opened), then the outer completes.
 * - error: every open group errors with the error, then the outer errors. `keyOf` throwing does
 *   the same with a `KeyOfError` (the one `runByKey` uses).
 * - unsubscribe (outer): like rxjs `groupBy`, the source stays subscribed while any group is
 *   subscribed, so lanes keep receiving values; values of keys without an open group are dropped
 *   (there is nobody to hand a new group to). The source is unsubscribed and the timer cancelled
 *   once the outer and every group subscription are gone.
 * - unsubscribe (a group): the group stays open (dropping its values) until it idles out.
 *
 * ## Guarantees
 * - At most one open group per key; values of a key reach its groups in source order.
 * - A group is complete before a new group of the same key is emitted.
 *
 * ## Memory
 * One entry per key that had a value within the last `duration`; all idle timers share ONE
 * scheduler action (a min-heap of deadlines), and a value only moves its key's deadline.
 *
 * @param keyOf extracts the key (compared with SameValueZero, as `Map` does); must not throw.
 * @param options `duration`: see {@link GroupByKeyOptions}.
 * @param scheduler time source; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously for a non-function `keyOf`, a missing options object
 *   or a `duration` that is negative or not finite.
 */
export function groupByKey<T, K>(
  keyOf: (value: T) => K,
  options: GroupByKeyOptions,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, GroupedObservable<K, T>> {
  return checked('groupByKey', keyOf, options, scheduler);
}

/**
 * {@link groupByKey} by `metadata.namespace` (`''` for cluster-scoped objects): namespace lanes,
 * so a busy namespace cannot starve the others.
 *
 * ## Example
 * ```ts
 * // Each namespace gets its own workqueue (1 reconcile at a time per namespace, namespaces in
 * // parallel); a namespace quiet for 5 minutes releases its lane.
 * const objects$ = new Subject<MetaObject>(); // e.g. a watch's objects
 * const reconcile = (o: MetaObject) => of(Action.awaitChange());
 * objects$.pipe(
 *   groupByNamespace({ duration: 300_000 }),
 *   mergeMap((lane) => lane.pipe(runByKey((o) => `${lane.key}/${o.metadata?.name ?? ''}`, reconcile))),
 * );
 * ```
 *
 * ## Semantics
 * As {@link groupByKey}, keyed by `value.metadata?.namespace ?? ''`.
 *
 * ## Memory
 * One entry per namespace that had a value within the last `duration`.
 *
 * @param options `duration`: idle ms after which a namespace's lane completes.
 * @param scheduler time source; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously for a `duration` that is negative or not finite.
 */
export function groupByNamespace<T extends { readonly metadata?: { readonly namespace?: string } }>(
  options: GroupByKeyOptions,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, GroupedObservable<string, T>> {
  return checked<T, string>('groupByNamespace', namespaceOf, options, scheduler);
}

function namespaceOf(value: { readonly metadata?: { readonly namespace?: string } }): string {
  return value.metadata?.namespace ?? '';
}

function checked<T, K>(
  operator: string,
  keyOf: (value: T) => K,
  options: GroupByKeyOptions,
  scheduler: SchedulerLike,
): OperatorFunction<T, GroupedObservable<K, T>> {
  assertCallback(operator, 'keyOf', keyOf);
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError(
      operator,
      'options',
      options,
      'must be an object like { duration: 60_000 }',
    );
  }
  assertDuration(operator, 'options.duration', options.duration);
  assertSchedulerLike(operator, scheduler);
  return timedGroupBy(operator, keyOf, options.duration, scheduler);
}
