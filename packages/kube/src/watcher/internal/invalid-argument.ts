/**
 * Builds the error thrown (synchronously, while a pipeline is built) for an argument the watcher
 * or the Store cannot work with. Not exported from the package.
 */
export class InvalidArgumentError extends Error {
  readonly _tag = 'InvalidArgumentError' as const;
  override readonly name = 'InvalidArgumentError';
  readonly operator: string;
  readonly argument: string;
  readonly received: unknown;

  constructor(operator: string, argument: string, received: unknown, expectation: string) {
    super(`${operator}: ${argument} ${expectation}; got ${describe(received)}.`);
    this.operator = operator;
    this.argument = argument;
    this.received = received;
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return `[${value.map(describe).join(', ')}]`;
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object';
}

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
