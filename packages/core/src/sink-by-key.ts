import { asyncScheduler, catchError, from, map, of, reduce } from 'rxjs';
import type { Observable, ObservableInput, OperatorFunction, SchedulerLike } from 'rxjs';

import { keyedRun, validateKeyedArgs } from './internal/keyed-run.js';
import type { RunByKeyObserver } from './internal/keyed-run.js';

/**
 * The outcome of one value given to `sinkByKey`: every value gets exactly one.
 *
 * ## Example
 * ```ts
 * type Status = { key: string; phase: string };
 * const statuses$ = new Subject<Status>(); // desired statuses, newest last
 * const writeStatus = (s: Status) => of(undefined); // your PATCH
 * const describe = (r: SinkResult<Status, string, undefined>) =>
 *   r.kind === 'failed' ? `${r.key}: ${String(r.error)}` : `${r.key}: ${r.kind}`;
 * statuses$.pipe(sinkByKey((s) => s.key, writeStatus), map(describe)).subscribe(console.log);
 * ```
 */
export type SinkResult<T, K, R> =
  /** `write` completed; `result` is the last value it emitted. */
  | { readonly kind: 'written'; readonly key: K; readonly value: T; readonly result: R }
  /** `write` threw, errored, or completed without emitting; `error` says why. */
  | { readonly kind: 'failed'; readonly key: K; readonly value: T; readonly error: unknown }
  /** A newer value for the same key arrived before this one was written. */
  | { readonly kind: 'superseded'; readonly key: K; readonly value: T };

/**
 * Options of `sinkByKey`.
 *
 * ## Example
 * ```ts
 * const options: SinkByKeyOptions<string> = { concurrency: 4 };
 * const statuses$ = new Subject<{ key: string; phase: string }>();
 * statuses$.pipe(sinkByKey((s) => s.key, (s) => of(s.phase), options));
 * ```
 */
export interface SinkByKeyOptions<K> {
  /** Max writes in flight across keys; default 1; an integer >= 1. */
  readonly concurrency?: number;
  /** Optional instrumentation hooks (workqueue metrics); times come from the `scheduler`. */
  readonly observer?: RunByKeyObserver<K>;
}

/**
 * Latest-wins, per-key serialised writer: writes each key's latest value with at most one write
 * per key in flight, and reports the outcome of every value as a {@link SinkResult}.
 *
 * The base of status and patch sinks: a write is never run concurrently with another write of the
 * same object, stale values are skipped rather than written, and one failing write never stops the
 * sink.
 *
 * ## Example
 * ```ts
 * const desiredStatus$ = new Subject<{ key: string; phase: string }>();
 * const patchStatus = (s: { key: string; phase: string }) => of(s.phase); // your PATCH
 * desiredStatus$
 *   .pipe(
 *     sinkByKey((s) => s.key, (s) => patchStatus(s), { concurrency: 4 }),
 *     filter((r) => r.kind === 'failed'),
 *   )
 *   .subscribe((r) => console.warn(r.key, 'status write failed', r.kind === 'failed' ? r.error : undefined));
 * ```
 *
 * ## Semantics
 * - Scheduling is `runByKey`'s: one write per key at a time, `concurrency` overall, FIFO across
 *   keys, a value for a busy key parked and written once after the current write.
 * - `written`: emitted when `write` completes, with the last value it emitted.
 * - `failed`: `write` threw, its Observable errored or its Promise rejected, or it completed
 *   without emitting anything (an `Error` saying so). The sink goes on with the next values.
 * - `superseded`: emitted at once, when a newer value for the same key replaces a value that was
 *   waiting or parked; the replaced value is never written.
 * - complete: waiting and parked values are written, then complete.
 * - error (source, or `keyOf` throws): in-flight writes unsubscribed, waiting values dropped
 *   without a result, error forwarded.
 * - unsubscribe: in-flight writes unsubscribed, waiting values dropped without a result.
 *
 * ## Guarantees
 * - Exactly one result per source value while the sink runs (complete included).
 * - Never two writes of one key in flight; the last value of every key is written (or `failed`).
 *
 * ## Memory
 * O(distinct keys with a write waiting or in flight); a key's state is deleted once idle.
 *
 * @param keyOf extracts the key; must not throw.
 * @param write performs the write; Observable, Promise, array or iterable; must emit a result.
 * @param options `concurrency` (integer >= 1, default 1) and `observer` hooks.
 * @param scheduler clock for the observer's timings; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously, for a non-function `keyOf`/`write`, a
 *   `concurrency` that is not an integer >= 1, or a scheduler that is not a SchedulerLike.
 */
export function sinkByKey<T, K, R>(
  keyOf: (value: T) => K,
  write: (value: T, key: K) => ObservableInput<R>,
  options?: SinkByKeyOptions<K>,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, SinkResult<T, K, R>> {
  const { concurrency, observer } = validateKeyedArgs('sinkByKey', 'write', keyOf, write, options, scheduler);
  return keyedRun<T, K, SinkResult<T, K, R>>({
    operator: 'sinkByKey',
    keyOf,
    work: (value, key) => writeOnce(write, value, key),
    concurrency,
    observer,
    scheduler,
    onReplaced: (previous, key) => ({ kind: 'superseded', key, value: previous }),
  });
}

/** Runs one write and turns whatever it does into exactly one SinkResult, never an error. */
function writeOnce<T, K, R>(
  write: (value: T, key: K) => ObservableInput<R>,
  value: T,
  key: K,
): Observable<SinkResult<T, K, R>> {
  let written: Observable<R>;
  try {
    written = from(write(value, key));
  } catch (error) {
    return of({ kind: 'failed', key, value, error });
  }
  return written.pipe(
    // keep only the last result; `undefined` (the seed) means the write emitted nothing
    reduce<R, { readonly last: R } | undefined>((_, last) => ({ last }), undefined),
    map((outcome): SinkResult<T, K, R> =>
      outcome === undefined
        ? {
            kind: 'failed',
            key,
            value,
            error: new Error(
              `sinkByKey: write completed without emitting a result for key ${String(key)}; ` +
                'return an Observable or Promise that emits once the write is done.',
            ),
          }
        : { kind: 'written', key, value, result: outcome.last },
    ),
    catchError((error: unknown) => of<SinkResult<T, K, R>>({ kind: 'failed', key, value, error })),
  );
}
