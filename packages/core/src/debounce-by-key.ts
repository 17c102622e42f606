import { asapScheduler, asyncScheduler, Observable } from 'rxjs';
import type { MonoTypeOperatorFunction, SchedulerLike, Subscription } from 'rxjs';

import { InvalidArgumentError } from './invalid-argument-error.js';
import {
  assertCallback,
  assertDuration,
  assertOptionalCallback,
  assertOptions,
  assertSchedulerLike,
} from './internal/timed-checks.js';
import { KeyOfError } from './internal/keyed-run.js';
import { TimedQueue } from './internal/timed-queue.js';
import type { TimedSlot } from './internal/timed-queue.js';

/**
 * Options of {@link debounceByKey}.
 *
 * ## Example
 * ```ts
 * const options: DebounceByKeyOptions = { maxWait: 5_000 }; // a hot key still emits every 5 s
 * const changes$ = new Subject<{ key: string }>();
 * changes$.pipe(debounceByKey((c) => c.key, 500, options));
 * ```
 */
export interface DebounceByKeyOptions {
  /**
   * Longest time (ms, `>= dueTime`) a key's first pending value may be held: a key that keeps
   * receiving values faster than `dueTime` still emits its latest value at first arrival +
   * `maxWait` (lodash's `maxWait`), so a hot key is never starved. Unbounded when left out.
   */
  readonly maxWait?: number;
  /**
   * Called with the number of keys holding a pending value each time it changes (before the
   * value that leaves is emitted); `0` means nothing is held. Not called on unsubscribe or error.
   * Must not throw. What a caller tracking idleness needs without keying every value twice.
   */
  readonly onPending?: (keys: number) => void;
}

interface Pending<K, T> extends TimedSlot {
  readonly key: K;
  value: T;
  /** First arrival + maxWait (`Infinity` without maxWait). */
  readonly maxDue: number;
}

const OPERATOR = 'debounceByKey';

/**
 * Per-key trailing `debounceTime`: emits the latest value of a key once no newer value for that
 * key arrived for `dueTime`. Keys never delay each other.
 *
 * ## Example
 * ```ts
 * // Reconcile each object at most once per 500 ms burst, and at least every 5 s while it stays hot.
 * const events$ = new Subject<{ object: { metadata: { namespace: string; name: string } } }>();
 * const reconcile = (key: string) => of(Action.awaitChange());
 * events$.pipe(
 *   debounceByKey((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`, 500, { maxWait: 5_000 }),
 *   runByKey((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}`, (_e, key) => reconcile(key)),
 * );
 * ```
 *
 * ## Semantics
 * - next: the value replaces the key's pending value and restarts its quiet period; the first
 *   value of a key starts its `maxWait` window. A key's value is emitted at
 *   `min(last arrival + dueTime, first arrival + maxWait)`. Keys due at the same instant are
 *   emitted in the order they first arrived.
 * - `dueTime` 0: values arriving in the same synchronous burst (the same scheduler tick) coalesce
 *   to one value per key, emitted on the next tick of `scheduler` — with the default
 *   `asyncScheduler`, as soon as the burst ends (a microtask: no timer, no 1 ms wait). This is
 *   the cheap way to collapse a relist of thousands of events into one per object; `maxWait`
 *   changes nothing here (nothing waits longer than the burst).
 * - complete: pending values are flushed at once (in first-arrival order), then complete.
 * - error: pending values are dropped, the error is forwarded.
 * - unsubscribe: the timer is cancelled; no per-key state survives.
 * - `keyOf` throws: the source is unsubscribed, pending values dropped, and a `KeyOfError`
 *   (the one `runByKey` uses; the thrown value as `cause`) is sent downstream.
 * - concurrency: synchronous values emitted by a downstream feedback loop while a batch of due keys
 *   is being emitted wait for the next tick, even with `dueTime` 0.
 * - `options.onPending`: told the number of keys holding a value whenever it changes — a new key
 *   arrives, or a key's value is about to be emitted (also in a completion's flush) — so a caller
 *   can tell when nothing is held without keying each value again around the operator.
 *
 * ## Guarantees
 * - At most one pending value per key; the latest value always wins; no value is emitted twice.
 * - With `maxWait`, a continuously hot key emits at least once every `maxWait`.
 *
 * ## Memory
 * One entry per key with a pending value, released when it is emitted. All keys share ONE
 * scheduler action (a min-heap of deadlines): a new value only updates its key's deadline, so the
 * cost per value is O(1) and per quiet period O(log keys), never a timer per value.
 *
 * @param keyOf extracts the key (compared with `Map` semantics: SameValueZero).
 * @param dueTime quiet period in ms, finite and `>= 0`.
 * @param options `maxWait`: see {@link DebounceByKeyOptions}.
 * @param scheduler time source; `TestScheduler.run` virtualises it.
 * @throws InvalidArgumentError when `dueTime` or `options.maxWait` is negative or not finite, when
 *   `maxWait < dueTime`, or when `keyOf` is not a function.
 */
export function debounceByKey<T, K>(
  keyOf: (value: T) => K,
  dueTime: number,
  options?: DebounceByKeyOptions,
  scheduler: SchedulerLike = asyncScheduler,
): MonoTypeOperatorFunction<T> {
  assertCallback(OPERATOR, 'keyOf', keyOf);
  assertDuration(OPERATOR, 'dueTime', dueTime);
  assertOptions(OPERATOR, 'options', options);
  const maxWait = options?.maxWait;
  if (maxWait !== undefined) {
    assertDuration(OPERATOR, 'options.maxWait', maxWait);
    if (maxWait < dueTime) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.maxWait',
        maxWait,
        `must be >= dueTime (${dueTime}); leave it out for no upper bound`,
      );
    }
  }
  assertSchedulerLike(OPERATOR, scheduler);
  const wait = maxWait ?? Infinity;
  const onPending = options?.onPending;
  assertOptionalCallback(OPERATOR, 'options.onPending', onPending);

  if (dueTime === 0) return burstDebounce(keyOf, scheduler, onPending);
  return (source) =>
    new Observable<T>((subscriber) => {
      const pending = new Map<K, Pending<K, T>>();
      const queue = new TimedQueue<Pending<K, T>>(scheduler, (slot) => {
        pending.delete(slot.key);
        onPending?.(pending.size);
        subscriber.next(slot.value);
      });
      let done = false;
      subscriber.add(() => {
        done = true;
        queue.clear();
        pending.clear();
      });
      subscriber.add(
        source.subscribe({
          next: (value) => {
            if (done) return;
            let key: K;
            try {
              key = keyOf(value);
            } catch (cause) {
              subscriber.error(new KeyOfError(OPERATOR, value, cause));
              return;
            }
            const now = scheduler.now();
            const entry = pending.get(key);
            if (entry === undefined) {
              const slot: Pending<K, T> = {
                due: now + dueTime,
                index: -1,
                filedAt: 0,
                seq: 0,
                key,
                value,
                maxDue: now + wait,
              };
              pending.set(key, slot);
              queue.arm(slot);
              onPending?.(pending.size);
            } else {
              entry.value = value;
              const due = now + dueTime;
              entry.due = due < entry.maxDue ? due : entry.maxDue;
            }
          },
          error: (err: unknown) => {
            if (done) return;
            subscriber.error(err);
          },
          complete: () => {
            if (done) return;
            queue.clear();
            const flush = [...pending.values()];
            pending.clear();
            let left = flush.length;
            for (const entry of flush) {
              onPending?.(--left);
              subscriber.next(entry.value);
            }
            subscriber.complete();
          },
        }),
      );
    });
}

/** Settled once: its reactions are bare microtasks. */
const RESOLVED = Promise.resolve();

/**
 * Where the default scheduler's clock stands when it tells wall-clock time (epoch milliseconds,
 * 2001 on): `TestScheduler.run` virtualises it, and its virtual clock starts at frame 0.
 */
const WALL_CLOCK_FROM_MS = 1e12;

/**
 * `debounceByKey` with `dueTime` 0: one map of the burst's latest value per key (insertion order
 * = first arrival) and one scheduled flush per burst — no deadline heap, no timer per key. With
 * the default `asyncScheduler` the flush is a microtask (a settled promise's reaction; under
 * `TestScheduler.run`, `asapScheduler`, which it virtualises), so a burst costs no `setInterval`;
 * any other scheduler (a test's) keeps its own 0 ms action.
 */
function burstDebounce<T, K>(
  keyOf: (value: T) => K,
  scheduler: SchedulerLike,
  onPending: ((keys: number) => void) | undefined,
): MonoTypeOperatorFunction<T> {
  const real = scheduler === asyncScheduler;
  return (source) =>
    new Observable<T>((subscriber) => {
      let pending = new Map<K, T>();
      /** Keys held: `pending`'s and those of the burst being emitted not emitted yet. */
      let held = 0;
      let flush: Subscription | undefined;
      /** A bare microtask flush is queued. */
      let queued = false;
      let done = false;
      const flushSoon = (): void => {
        if (flush !== undefined || queued) return;
        // The default scheduler on wall-clock time (not virtualised by `TestScheduler.run`, whose
        // clock starts at frame 0): a bare microtask, what `asapScheduler` would run the flush
        // in, without its action, flush queue and handle per burst (issue 21). Virtualised, the
        // flush is asapScheduler's, which run mode virtualises too.
        if (real && asyncScheduler.now() >= WALL_CLOCK_FROM_MS) {
          queued = true;
          // a reaction of a settled promise, not queueMicrotask (Node wraps each of those in an
          // AsyncResource)
          void RESOLVED.then(microFlush);
          return;
        }
        flush = (real ? asapScheduler : scheduler).schedule(emit);
      };
      const microFlush = (): void => {
        queued = false;
        if (!done) emit();
      };
      /** The map of the burst emitted last, emptied: the next burst's (no Map per burst). */
      let spare: Map<K, T> | undefined;
      const emit = (): void => {
        flush = undefined;
        // values a downstream feedback loop sends while this burst is emitted wait for the next
        const burst = pending;
        pending = spare ?? new Map<K, T>();
        spare = undefined;
        for (const value of burst.values()) {
          if (done) return;
          if (onPending !== undefined) onPending(--held);
          subscriber.next(value);
        }
        burst.clear();
        spare = burst;
      };
      subscriber.add(() => {
        done = true;
        flush?.unsubscribe();
        flush = undefined;
        pending.clear();
      });
      subscriber.add(
        source.subscribe({
          next: (value) => {
            if (done) return;
            let key: K;
            try {
              key = keyOf(value);
            } catch (cause) {
              subscriber.error(new KeyOfError(OPERATOR, value, cause));
              return;
            }
            // a key already pending keeps its place (first arrival) and takes the newer value
            if (onPending === undefined) pending.set(key, value);
            else {
              const size = pending.size;
              pending.set(key, value);
              if (pending.size !== size) onPending(++held);
            }
            flushSoon();
          },
          error: (err: unknown) => {
            if (done) return;
            subscriber.error(err);
          },
          complete: () => {
            if (done) return;
            flush?.unsubscribe();
            flush = undefined;
            const burst = pending;
            pending = new Map<K, T>();
            for (const value of burst.values()) {
              if (onPending !== undefined) onPending(--held);
              subscriber.next(value);
            }
            subscriber.complete();
          },
        }),
      );
    });
}
