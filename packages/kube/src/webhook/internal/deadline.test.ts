import { throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';

import { withDeadline } from './deadline.js';

describe('withDeadline', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('answers with the handler’s value when it comes before the deadline', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const handler = cold('---a|', { a: 1 });
      //                        a at 3 < deadline at 5
      expectObservable(withDeadline(() => handler, 5, testScheduler)).toBe('---(v|)', { v: { value: 1 } });
      expectSubscriptions(handler.subscriptions).toBe('^--!');
    });
  });

  it('times out at the deadline, unsubscribes the handler and aborts its signal', () => {
    testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      let signal: AbortSignal | undefined;
      const handler = cold('-------a|', { a: 1 });
      //                    deadline at 4 wins over a at 7
      expectObservable(
        withDeadline(
          (s) => {
            signal = s;
            return handler;
          },
          4,
          testScheduler,
        ),
      ).toBe('----(t|)', { t: { timedOut: true } });
      expectSubscriptions(handler.subscriptions).toBe('^---!');
      testScheduler.flush();
      expect(signal?.aborted).toBe(true);
    });
  });

  it('turns a throwing handler into an error outcome, never an Observable error', () => {
    testScheduler.run(({ expectObservable }) => {
      const boom = new Error('boom');
      expectObservable(withDeadline(() => throwError(() => boom), 4, testScheduler)).toBe('(e|)', {
        e: { error: boom },
      });
    });
  });
});
