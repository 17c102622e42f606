/**
 * The engine behind `runByKey` and `sinkByKey`: a {@link KeyedQueue} driven by a source
 * Observable, starting `work` for taken keys and draining iteratively (never recursively), so
 * synchronous work over millions of events keeps a flat stack.
 *
 * Not exported from the package.
 */
import { Observable, Subscriber, from } from 'rxjs';
import type { ObservableInput, OperatorFunction, SchedulerLike } from 'rxjs';

import { runDirect } from './direct.js';

import { KeyedQueue } from './keyed-queue.js';
import { assertFunction, assertIntegerAtLeast, assertOptionalObject, assertScheduler } from './validate.js';

/**
 * Instrumentation hooks of `runByKey` / `sinkByKey`. Times are `scheduler.now()` differences in
 * milliseconds. Hooks run synchronously inside the operator and must not throw.
 *
 * ## Example
 * ```ts
 * let depth = 0; // e.g. a gauge
 * const durations: number[] = []; // e.g. a histogram
 * const observer: RunByKeyObserver<string> = {
 *   enqueued: (_key, waiting) => (depth = waiting),
 *   finished: (_key, durationMs) => durations.push(durationMs / 1000),
 * };
 * const work$ = new Subject<{ key: string }>();
 * const handle = (w: { key: string }) => of(w.key); // your work
 * work$.pipe(runByKey((w) => w.key, handle, { observer }));
 * ```
 */
export interface RunByKeyObserver<K> {
  /**
   * A key entered the FIFO: a value arrived for an idle key, or a parked value moved to the back
   * after its key's run finished. `depth` is the number of keys waiting, this one included. Every
   * `started` is preceded by exactly one `enqueued` of its key.
   */
  enqueued?(key: K, depth: number): void;
  /** A value replaced a waiting one, or was parked behind the key's in-flight work. */
  coalesced?(key: K): void;
  /** Work started for `key` after waiting `queuedMs`; `active` runs are now in flight, this one included. */
  started?(key: K, queuedMs: number, active: number): void;
  /** Work for `key` completed after `durationMs`; `active` runs remain in flight. */
  finished?(key: K, durationMs: number, active: number): void;
}

/**
 * Options of `runByKey`.
 *
 * ## Example
 * ```ts
 * const options: RunByKeyOptions<string> = { concurrency: 8 };
 * const work$ = new Subject<{ key: string }>();
 * work$.pipe(runByKey((w) => w.key, (w) => of(w.key), options));
 * ```
 */
export interface RunByKeyOptions<K> {
  /** Max work in flight across keys; default 1; an integer >= 1. */
  readonly concurrency?: number;
  /** Optional instrumentation hooks (workqueue metrics); times come from the `scheduler`. */
  readonly observer?: RunByKeyObserver<K>;
}

/**
 * The error a keyed operator fails with when its `keyOf` throws. `cause` is what `keyOf` threw,
 * `value` the source value it was given.
 *
 * ## Example
 * ```ts
 * const work$ = new Subject<{ meta: { key: string } }>();
 * work$.pipe(runByKey((w) => w.meta.key, (w) => of(w))).subscribe({
 *   error: (e) => {
 *     if (e instanceof KeyOfError) console.error(`${e.operator}: no key for`, e.value, e.cause);
 *   },
 * });
 * ```
 */
export class KeyOfError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'KeyOfError' as const;
  override readonly name = 'KeyOfError';
  /** The operator whose `keyOf` threw, e.g. `runByKey`. */
  readonly operator: string;
  /** The source value whose key could not be computed. */
  readonly value: unknown;

  /** @param operator the operator.  @param value the source value.  @param cause what keyOf threw. */
  constructor(operator: string, value: unknown, cause: unknown) {
    super(
      `${operator}: keyOf threw while computing the key of source value ${preview(value)}: ` +
        `${cause instanceof Error ? cause.message : String(cause)}. In-flight work was cancelled and ` +
        `pending values were dropped. Make keyOf total (return a key for every value), or filter ` +
        `such values out before ${operator}.`,
      { cause },
    );
    this.operator = operator;
    this.value = value;
  }
}

/** Everything the engine needs; `onReplaced` may turn a superseded value into an output value. */
export interface KeyedRunSpec<T, K, R> {
  readonly operator: string;
  readonly keyOf: (value: T) => K;
  readonly work: (value: T, key: K) => ObservableInput<R>;
  readonly concurrency: number;
  readonly observer: RunByKeyObserver<K> | undefined;
  readonly scheduler: SchedulerLike;
  readonly onReplaced: ((previous: T, key: K) => R) | undefined;
  /** Test-only window on the queue of each subscription (to assert per-key state is released). */
  readonly onQueue?: (queue: KeyedQueue<K, T>) => void;
}

/** Validates the public arguments shared by `runByKey` and `sinkByKey`; throws InvalidArgumentError. */
export function validateKeyedArgs(
  operator: string,
  workName: string,
  keyOf: unknown,
  work: unknown,
  options: unknown,
  scheduler: unknown,
): { concurrency: number; observer: RunByKeyObserver<unknown> | undefined } {
  assertFunction(operator, 'keyOf', keyOf);
  assertFunction(operator, workName, work);
  assertOptionalObject(operator, 'options', options);
  const opts = (options ?? {}) as { concurrency?: unknown; observer?: unknown };
  const concurrency = opts.concurrency ?? 1;
  assertIntegerAtLeast(operator, 'options.concurrency', concurrency, 1);
  assertOptionalObject(operator, 'options.observer', opts.observer);
  assertScheduler(operator, 'scheduler', scheduler);
  return {
    concurrency: concurrency as number,
    observer: opts.observer as RunByKeyObserver<unknown> | undefined,
  };
}

/** Builds the keyed workqueue operator described by `spec`. */
export function keyedRun<T, K, R>(spec: KeyedRunSpec<T, K, R>): OperatorFunction<T, R> {
  const { operator, keyOf, work, concurrency, observer, scheduler, onReplaced, onQueue } = spec;
  const timed = observer !== undefined;
  const now = timed ? () => scheduler.now() : () => 0;

  return (source) =>
    new Observable<R>((subscriber) => {
      const queue = new KeyedQueue<K, T>();
      onQueue?.(queue);
      /** Inner subscriptions of in-flight work that did not complete synchronously. */
      const running = new Map<K, { unsubscribe(): void }>();
      let sourceDone = false;
      let draining = false;

      const fail = (err: unknown): void => {
        // Errors tear everything down through the teardown below.
        subscriber.error(err);
      };

      const start = (key: K, value: T, since: number): void => {
        const startedAt = now();
        observer?.started?.(key, startedAt - since, queue.activeCount);
        let input: Observable<R>;
        try {
          // `from` throws for something that is not an ObservableInput: reported like a throwing work
          input = from(work(value, key));
        } catch (err) {
          fail(err);
          return;
        }
        let completed = false;
        const inner = runDirect(input, {
          next: (result) => subscriber.next(result),
          error: fail,
          complete: () => {
            completed = true;
            if (subscriber.closed) return;
            running.delete(key);
            const depth = queue.finish(key);
            if (timed) {
              observer.finished?.(key, now() - startedAt, queue.activeCount);
              if (depth !== undefined) observer.enqueued?.(key, depth);
            }
            drain();
          },
        });
        if (!completed && !subscriber.closed) running.set(key, inner);
      };

      /**
       * Starts work while slots and waiting keys remain. Re-entrant calls (synchronous work that
       * completes inside `start`, a value pushed from downstream) return at once: the outer loop
       * re-checks the queue, so the stack stays flat however many events go through.
       */
      const drain = (): void => {
        if (draining) return;
        draining = true;
        try {
          for (;;) {
            if (subscriber.closed) return;
            const next = queue.take(concurrency);
            if (next === undefined) break;
            start(next.key, next.value, next.since);
          }
        } finally {
          draining = false;
        }
        if (sourceDone && queue.idle) subscriber.complete();
      };

      const upstream = new Subscriber<T>({
        next: (value: T) => {
          let key: K;
          try {
            key = keyOf(value);
          } catch (err) {
            fail(new KeyOfError(operator, value, err));
            return;
          }
          const outcome = queue.push(key, value, now());
          switch (outcome.kind) {
            case 'enqueued':
              observer?.enqueued?.(key, outcome.depth);
              drain();
              return;
            case 'parked':
              observer?.coalesced?.(key);
              return;
            case 'replaced':
              observer?.coalesced?.(key);
              if (onReplaced !== undefined) subscriber.next(onReplaced(outcome.previous, key));
              return;
          }
        },
        error: fail,
        complete: () => {
          sourceDone = true;
          drain();
        },
      });
      subscriber.add(upstream);
      source.subscribe(upstream);

      return () => {
        upstream.unsubscribe();
        for (const inner of running.values()) inner.unsubscribe();
        running.clear();
        queue.clear();
      };
    });
}

/** A short, safe rendering of a value for error messages. */
function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
