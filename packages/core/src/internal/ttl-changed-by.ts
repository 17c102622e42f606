/**
 * The engine of `changedBy` and the metadata predicates built on it (`generationChanged`, ...),
 * plus their shared argument checks. Per-key memory is a {@link TtlMap} (one sweep timer).
 *
 * Not exported from the package.
 */
import { Observable } from 'rxjs';
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';

import { InvalidArgumentError } from '../invalid-argument-error.js';
import { KeyOfError } from './keyed-run.js';
import {
  assertDuration,
  assertOptionalCallback,
  assertOptions,
  assertSchedulerLike,
  callbackError,
} from './timed-checks.js';
import { TtlMap } from './ttl-map.js';

/** Default memory lifetime of a key after its last sighting: 10 minutes. */
export const DEFAULT_PREDICATE_TTL = 600_000;

/** Everything the engine needs, already validated. */
export interface ChangedBySpec<T, K, V> {
  readonly operator: string;
  readonly keyOf: (value: T) => K;
  readonly select: (value: T) => V;
  readonly isEqual: (a: V, b: V) => boolean;
  readonly isDelete: ((value: T) => boolean) | undefined;
  readonly ttl: number;
  readonly scheduler: SchedulerLike;
  /** Test hook: receives each subscription's memory. */
  readonly inspect?: (memory: TtlMap<K, V>) => void;
}

/** Checks `ttl` (finite, > 0, default 10 min), `isDelete`, the options bag and the scheduler. */
export function checkPredicateOptions(
  operator: string,
  options: { readonly ttl?: number; readonly isDelete?: unknown } | undefined,
  scheduler: unknown,
): number {
  assertOptions(operator, 'options', options);
  const ttl = options?.ttl ?? DEFAULT_PREDICATE_TTL;
  assertDuration(operator, 'options.ttl', ttl);
  if (ttl === 0) {
    throw new InvalidArgumentError(
      operator,
      'options.ttl',
      ttl,
      'must be > 0 ms (it is how long a key is remembered after its last sighting; default 600000)',
    );
  }
  assertOptionalCallback(operator, 'options.isDelete', options?.isDelete);
  assertSchedulerLike(operator, scheduler);
  return ttl;
}

/** The operator; see `changedBy` for the semantics. */
export function ttlChangedBy<T, K, V>(spec: ChangedBySpec<T, K, V>): MonoTypeOperatorFunction<T> {
  const { operator, keyOf, select, isEqual, isDelete, ttl, scheduler, inspect } = spec;
  return (source) =>
    new Observable<T>((subscriber) => {
      const memory = new TtlMap<K, V>(ttl, scheduler);
      inspect?.(memory);
      let done = false;
      subscriber.add(() => {
        done = true;
        memory.clear();
      });
      subscriber.add(
        source.subscribe({
          next: (value) => {
            if (done) return;
            let key: K;
            try {
              key = keyOf(value);
            } catch (cause) {
              subscriber.error(new KeyOfError(operator, value, cause));
              return;
            }
            let stage = 'options.isDelete';
            let pass: boolean;
            try {
              if (isDelete?.(value) === true) {
                memory.delete(key);
                pass = true;
              } else {
                stage = 'select';
                const selected = select(value);
                const now = scheduler.now();
                const seen = memory.get(key, now);
                stage = 'options.isEqual';
                pass = seen === undefined || !isEqual(seen.value, selected);
                memory.set(key, selected, now);
              }
            } catch (cause) {
              subscriber.error(callbackError(operator, stage, cause));
              return;
            }
            if (pass) subscriber.next(value);
          },
          error: (err: unknown) => {
            if (!done) subscriber.error(err);
          },
          complete: () => {
            if (!done) subscriber.complete();
          },
        }),
      );
    });
}
