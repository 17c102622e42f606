import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { BucketGate } from './bucket-gate.js';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('BucketGate', () => {
  it('runs work only in an open bucket', () => {
    const gate = new BucketGate();
    newScheduler().run(({ cold }) => {
      expect(gate.run(1, cold('a|'))).toBeUndefined();
      gate.open(1);
      expect(gate.run(1, cold('a|'))).toBeDefined();
      gate.close(1);
      expect(gate.run(1, cold('a|'))).toBeUndefined();
    });
  });

  it('counts work in flight; drained$ emits when the last one ends', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const gate = new BucketGate();
      gate.open(2);
      const first = cold('  ---a|');
      const second = cold(' -----a|');
      gate.run(2, first)!.subscribe();
      gate.run(2, second)!.subscribe();
      gate.close(2); // intake stops; in-flight goes on
      expect(gate.inFlight(2)).toBe(2);
      //                      second ends at 6
      expectObservable(gate.drained$(2)).toBe('------(x|)', { x: undefined });
      flush();
      expect(gate.inFlight(2)).toBe(0);
    });
  });

  it('cancel unsubscribes the bucket’s work in flight, and only that bucket’s', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectSubscriptions, flush }) => {
      const gate = new BucketGate();
      gate.open(1);
      gate.open(2);
      const one = cold('----------a|');
      const two = cold('----a|');
      gate.run(1, one)!.subscribe();
      gate.run(2, two)!.subscribe();
      scheduler.schedule(() => gate.cancel(1), 3);
      flush();
      expectSubscriptions(one.subscriptions).toBe('^--!');
      expectSubscriptions(two.subscriptions).toBe('^----!');
      expect(gate.isOpen(1)).toBe(false);
      expect(gate.isOpen(2)).toBe(true);
    });
  });
});
