/**
 * `testScheduler()`: RxJS's `TestScheduler` asserting with vitest's `expect(…).toEqual`, the line
 * every marble test otherwise writes by hand.
 *
 * @module
 */
import { TestScheduler } from 'rxjs/testing';
import { expect } from 'vitest';

/**
 * A `TestScheduler` whose assertions are vitest's deep equality.
 *
 * ## Example
 * ```ts
 * import { testScheduler } from '@rxkube/testing/vitest';
 * testScheduler().run(({ cold, expectObservable }) => {
 *   expectObservable(cold('-a|').pipe(map((x) => x.toUpperCase()))).toBe('-A|');
 * });
 * ```
 */
export function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}
