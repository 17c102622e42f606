/**
 * Argument checks of the watcher and the Store. They throw `@rxkube/core`'s `InvalidArgumentError`
 * (synchronously, while a pipeline is built), naming the function, the argument, what it must be
 * and what was passed. Not exported from the package.
 */
import { InvalidArgumentError } from '@rxkube/core';

export { InvalidArgumentError };

/** Throws unless `value` is a finite number `>= min` (and an integer when `integer`). */
export function assertNumber(
  operator: string,
  argument: string,
  value: unknown,
  min: number,
  integer: boolean,
  hint = '',
): asserts value is number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    (integer && !Number.isInteger(value))
  ) {
    const what = integer ? 'an integer' : 'a finite number';
    throw new InvalidArgumentError(operator, argument, value, `must be ${what} >= ${min}${hint}`);
  }
}
