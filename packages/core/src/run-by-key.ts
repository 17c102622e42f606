import { asyncScheduler } from 'rxjs';
import type { ObservableInput, OperatorFunction, SchedulerLike } from 'rxjs';

import { keyedRun, validateKeyedArgs } from './internal/keyed-run.js';
import type { RunByKeyOptions } from './internal/keyed-run.js';

export { KeyOfError } from './internal/keyed-run.js';
export type { RunByKeyObserver, RunByKeyOptions } from './internal/keyed-run.js';

/**
 * Keyed workqueue: runs `work` for each source value with at most one run per key and at most
 * `concurrency` runs overall, coalescing values that arrive while their key waits or runs.
 *
 * It is controller-runtime's workqueue as an operator: a key is "dirty" at most once, a key is
 * processed by one worker at a time, and a change that lands during processing causes exactly one
 * rerun with the latest value.
 *
 * ## Example
 * ```ts
 * const requests$ = new Subject<{ key: string }>(); // e.g. triggers of a watch
 * const reconcile = (r: { key: string }) => of(Action.awaitChange());
 * requests$.pipe(
 *   debounceByKey((r) => r.key, 200, { maxWait: 2_000 }),
 *   runByKey((r) => r.key, (r) => reconcile(r), { concurrency: 4 }),
 * )
 * ```
 *
 * ## Semantics
 * - next: the value's key is computed with `keyOf`.
 *   - idle key → it joins the back of the FIFO and starts as soon as fewer than `concurrency` runs
 *     are in flight;
 *   - key waiting in the FIFO → the waiting value is replaced (latest wins) and keeps its position;
 *   - key in flight → the value is parked (a later value replaces it); when the run completes, the
 *     parked value goes to the BACK of the FIFO, so a hot key cannot starve the others.
 * - output: every value emitted by every `work` run, as it is emitted (runs of different keys
 *   interleave).
 * - complete: waiting and parked values are still processed; the output completes once the last
 *   run completes.
 * - error (source): in-flight runs are unsubscribed, waiting values dropped, the error forwarded.
 * - error (`work` throws or its Observable errors): same — the error is forwarded and everything
 *   else is cancelled. A reconcile that can fail should catch and return its failure as a value
 *   (`catchError(e => of(failed(e)))`), or use `sinkByKey`, which does that for you.
 * - error (`keyOf` throws): a {@link KeyOfError} naming the value is forwarded; in-flight runs are
 *   unsubscribed (their results are lost) and waiting values dropped. Keep `keyOf` total.
 * - unsubscribe: in-flight runs are unsubscribed, waiting and parked values dropped.
 * - concurrency: `options.concurrency` runs at most (default 1, like controller-runtime's
 *   `MaxConcurrentReconciles`); never two runs of one key.
 *
 * ## Guarantees
 * - Per-key mutual exclusion: a run for a key starts only after the previous run of that key
 *   completed.
 * - No lost update: the last value of every key is processed, by a run that starts after it
 *   arrived.
 * - FIFO across keys, by the time a key became waiting (a replacement does not move it).
 * - Synchronous work (`of(x)`) is drained by a loop, not recursion: the stack stays flat for any
 *   number of events.
 *
 * ## Memory
 * At most one waiting and one parked value per key, so O(distinct keys) — not O(events). All
 * state of a key is deleted the moment it has nothing waiting, parked or in flight.
 *
 * @param keyOf extracts the key (compared with SameValueZero, as `Map` does); must not throw.
 * @param work starts the work for a value; Observable, Promise, array or iterable.
 * @param options `concurrency` (integer >= 1, default 1) and `observer` hooks for metrics.
 * @param scheduler clock for the observer's timings; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously, for a non-function `keyOf`/`work`, a
 *   `concurrency` that is not an integer >= 1, or a scheduler that is not a SchedulerLike.
 */
export function runByKey<T, K, R>(
  keyOf: (value: T) => K,
  work: (value: T, key: K) => ObservableInput<R>,
  options?: RunByKeyOptions<K>,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, R> {
  const { concurrency, observer } = validateKeyedArgs('runByKey', 'work', keyOf, work, options, scheduler);
  return keyedRun<T, K, R>({
    operator: 'runByKey',
    keyOf,
    work,
    concurrency,
    observer,
    scheduler,
    onReplaced: undefined,
  });
}
