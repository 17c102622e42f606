/**
 * Thrown synchronously when an operator is created with an argument it cannot work with.
 *
 * It is a programming error, not a runtime failure: it is thrown while the pipeline is being built
 * (before anything subscribes), never sent down the Observable error channel.
 *
 * ## Example
 * ```ts
 * try {
 *   runByKey((name: string) => name, (name) => of(name), { concurrency: 0 });
 * } catch (e) {
 *   if (e instanceof InvalidArgumentError) console.error(e.argument, e.message);
 * }
 * ```
 */
export class InvalidArgumentError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'InvalidArgumentError' as const;
  override readonly name = 'InvalidArgumentError';
  /** The operator (or function) that refused the argument, e.g. `runByKey`. */
  readonly operator: string;
  /** The argument's name as written in the signature, e.g. `options.concurrency`. */
  readonly argument: string;
  /** The value that was passed. */
  readonly received: unknown;

  /**
   * @param operator the refusing operator.  @param argument the argument's name.
   * @param received the value passed.  @param expectation what a valid value looks like and what to do.
   */
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
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}
