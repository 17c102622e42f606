import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { KubeObject, WatchEvent } from '../types.js';
import { shareWatch } from './share-watch.js';

const cm = (name: string, rv: string): KubeObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv },
});
const values: Record<string, WatchEvent> = {
  I: { type: 'Init' },
  a: { type: 'InitApply', object: cm('a', '1') },
  D: { type: 'InitDone' },
  b: { type: 'Apply', object: cm('b', '2') },
  c: { type: 'Apply', object: cm('c', '3') },
  x: { type: 'Delete', object: cm('a', '4') },
};

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('shareWatch', () => {
  it('shares one upstream; a late subscriber first gets the Store as Init…InitDone, then live events', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const upstream = cold<WatchEvent>('-IaD------b----c', values);
      const shared = shareWatch(upstream, {}, ts);
      expectObservable(shared.events$, '^ 11ms !').toBe('-IaD------b', values);
      expectObservable(shared.events$, '----^ 13ms !').toBe('----(IaD)-b----c', values);
      //                                                      joins at 4: replay at once; b at 10, c at 15
      expectSubscriptions(upstream.subscriptions).toBe('^ 17ms !');
      //                                                 one subscription, until the last subscriber leaves at 18
    });
  });

  it('hands a subscriber joining mid-list the objects listed so far, then the rest live', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const upstream = cold<WatchEvent>('-Ia-------b---D--x', {
        ...values,
        b: { type: 'InitApply', object: cm('b', '2') },
      });
      const shared = shareWatch(upstream, {}, ts);
      expectObservable(shared.events$, '^ 20ms !').toBe('-Ia-------b---D--x', {
        ...values,
        b: { type: 'InitApply', object: cm('b', '2') },
      });
      expectObservable(shared.events$, '----^ 16ms !').toBe('----(Ia)--b---D--x', {
        ...values,
        b: { type: 'InitApply', object: cm('b', '2') },
      });
    });
  });

  it('unsubscribes the upstream when the last subscriber leaves and starts afresh for the next', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const upstream = cold<WatchEvent>('-IaD', values);
      const s = shareWatch(upstream, {}, ts);
      expectObservable(s.events$, '^---!').toBe('-IaD', values);
      // the Store was cleared at 4: no replay, a new list from a new upstream subscription
      expectObservable(s.events$, '------^ 5ms !').toBe('-------IaD', values);
      expectSubscriptions(upstream.subscriptions).toBe(['^---!', '------^ 5ms !']);
      ts.schedule(() => expect(s.store.ready).toBe(false), 5);
      ts.schedule(() => expect(s.store.size).toBe(0), 5);
    });
  });

  it('keeps the upstream through the grace period and replays the Store to a returning subscriber', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const upstream = cold<WatchEvent>('-IaD', values);
      const s = shareWatch(upstream, { gracePeriodMs: 5 }, ts);
      expectObservable(s.events$, '^----!').toBe('-IaD', values);
      expectObservable(s.events$, '--------^-!').toBe('--------(IaD)', values);
      //                           left at 5 (grace until 10); back at 8: same upstream; leaves at 10 → torn down at 15
      expectSubscriptions(upstream.subscriptions).toBe('^ 14ms !');
    });
  });

  it('relists after the grace period expired', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const upstream = cold<WatchEvent>('-IaD', values);
      const s = shareWatch(upstream, { gracePeriodMs: 5 }, ts);
      expectObservable(s.events$, '^----!').toBe('-IaD', values);
      expectObservable(s.events$, '-----------^---!').toBe('------------IaD', values);
      expectSubscriptions(upstream.subscriptions).toBe(['^---------!', '-----------^--------!']);
      //                                                  first torn down at 5 + 5; the second at 15 + 5
    });
  });

  it('forwards an upstream error to every subscriber and reconnects for the next one', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const upstream = cold<WatchEvent>('-Ia-----D-#', values, new Error('fatal'));
      const s = shareWatch(upstream, {}, ts);
      expectObservable(s.events$).toBe('-Ia-----D-#', values, new Error('fatal'));
      expectObservable(s.events$, '--^').toBe('--(Ia)--D-#', values, new Error('fatal'));
      expectObservable(s.events$, '------------^--!').toBe('-------------Ia', values);
      expectSubscriptions(upstream.subscriptions).toBe(['^---------!', '------------^--!']);
    });
  });
});
