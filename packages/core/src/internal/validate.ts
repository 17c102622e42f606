/**
 * Argument checks shared by the operators of `@rxkube/core`. Each check throws an
 * {@link InvalidArgumentError} naming the operator and the argument; none returns a value.
 *
 * Not exported from the package.
 */
import type { SchedulerLike } from 'rxjs';

import { InvalidArgumentError } from '../invalid-argument-error.js';

/** Throws unless `value` is a function. */
export function assertFunction(operator: string, argument: string, value: unknown): void {
  if (typeof value !== 'function') {
    throw new InvalidArgumentError(operator, argument, value, 'must be a function');
  }
}

/** Throws unless `value` is an integer `>= min` (finite: `Infinity` is refused). */
export function assertIntegerAtLeast(operator: string, argument: string, value: unknown, min: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidArgumentError(
      operator,
      argument,
      value,
      `must be an integer >= ${min} (use Number.MAX_SAFE_INTEGER for "no limit")`,
    );
  }
}

/** Throws unless `value` is `undefined` or a non-null object (an options bag or hooks object). */
export function assertOptionalObject(operator: string, argument: string, value: unknown): void {
  if (value !== undefined && (value === null || typeof value !== 'object')) {
    throw new InvalidArgumentError(operator, argument, value, 'must be an object or undefined');
  }
}

/** Throws unless `value` looks like an RxJS `SchedulerLike` (has `now()` and `schedule()`). */
export function assertScheduler(
  operator: string,
  argument: string,
  value: unknown,
): asserts value is SchedulerLike {
  const candidate = value as Partial<SchedulerLike> | null | undefined;
  if (
    candidate === null ||
    typeof candidate !== 'object' ||
    typeof candidate.now !== 'function' ||
    typeof candidate.schedule !== 'function'
  ) {
    throw new InvalidArgumentError(
      operator,
      argument,
      value,
      'must be an RxJS SchedulerLike (asyncScheduler, a TestScheduler, ...) or be left out',
    );
  }
}
