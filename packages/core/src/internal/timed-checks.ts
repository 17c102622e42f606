/**
 * Argument checks and user-callback error wrapping for the timed keyed operators
 * (`debounceByKey`, `groupByKey`, the predicates). Checks throw an {@link InvalidArgumentError}
 * synchronously, while the pipeline is being built.
 *
 * Not exported from the package.
 */
import type { SchedulerLike } from 'rxjs';

import { InvalidArgumentError } from '../invalid-argument-error.js';

/** Throws unless `value` is a finite number `>= 0` (a duration in scheduler units, ms by default). */
export function assertDuration(operator: string, argument: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(
      operator,
      argument,
      value,
      'must be a finite number of milliseconds >= 0 (an unbounded duration would keep per-key state forever)',
    );
  }
}

/** Throws unless `value` is a function. */
export function assertCallback(operator: string, argument: string, value: unknown): void {
  if (typeof value !== 'function') {
    throw new InvalidArgumentError(operator, argument, value, 'must be a function');
  }
}

/** Throws unless `value` is `undefined` or a function. */
export function assertOptionalCallback(operator: string, argument: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new InvalidArgumentError(operator, argument, value, 'must be a function or be left out');
  }
}

/** Throws unless `value` is `undefined` or a non-null object. */
export function assertOptions(operator: string, argument: string, value: unknown): void {
  if (value !== undefined && (value === null || typeof value !== 'object')) {
    throw new InvalidArgumentError(operator, argument, value, 'must be an options object or be left out');
  }
}

/** Throws unless `value` looks like an RxJS `SchedulerLike`. */
export function assertSchedulerLike(operator: string, value: unknown): asserts value is SchedulerLike {
  const s = value as Partial<SchedulerLike> | null | undefined;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s.now !== 'function' ||
    typeof s.schedule !== 'function'
  ) {
    throw new InvalidArgumentError(
      operator,
      'scheduler',
      value,
      'must be an RxJS SchedulerLike (asyncScheduler, a TestScheduler, ...) or be left out',
    );
  }
}

/**
 * The error sent downstream when a user callback (`keyOf`, `select`, ...) throws: names the
 * operator and the callback, keeps the original as `cause`.
 */
export function callbackError(operator: string, callback: string, cause: unknown): Error {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new Error(
    `${operator}: ${callback} threw while handling a value: ${detail}. ` +
      `${callback} must not throw; guard or filter such values before this operator.`,
    { cause },
  );
}
