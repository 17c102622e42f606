import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { KubeObject, WatchEvent } from '../types.js';
import { reflector } from './reflector.js';
import type { ResyncEvent } from './resync.js';
import { resync } from './resync.js';
import { Store } from './store.js';

const a = { metadata: { namespace: 'ns', name: 'a', resourceVersion: '1' } };
const a2 = { metadata: { namespace: 'ns', name: 'a', resourceVersion: '5' } };
const b = { metadata: { namespace: 'ns', name: 'b', resourceVersion: '2' } };
const inputs: Record<string, WatchEvent> = {
  I: { type: 'Init' },
  a: { type: 'InitApply', object: a },
  A: { type: 'InitApply', object: a2 },
  D: { type: 'InitDone' },
  b: { type: 'Apply', object: b },
};
const values: Record<string, WatchEvent | ResyncEvent> = {
  ...inputs,
  r: { type: 'Resync', object: a },
  R: { type: 'Resync', object: a2 },
  s: { type: 'Resync', object: b },
};

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('resync', () => {
  it('re-emits every stored object each period as a Resync event, between the live events', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const store = new Store<KubeObject>();
      const events = cold<WatchEvent>('-IaD------b', inputs);
      const out$ = events.pipe(reflector(store), resync(4, store, ts));
      expectObservable(out$, '^ 12ms !').toBe('-IaDr---r-b-(rs)', values);
      //                                       ticks at 4, 8, 12; b joined the Store at 10
    });
  });

  it('skips a tick while a relist is in progress, and before the first list', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const store = new Store<KubeObject>();
      const events = cold<WatchEvent>('---IaD-I-----AD', inputs);
      const out$ = events.pipe(reflector(store), resync(2, store, ts));
      expectObservable(out$, '^ 14ms !').toBe('---IaDrI-----A(DR)', values);
      //                                       ticks: 2 (not ready), 4 (listing), 6 → r, 8/10/12 (relisting),
      //                                       14 → R, right after D (the tick was re-armed at 12, after D was due)
    });
  });

  it('forwards completion and stops its timer', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const store = new Store<KubeObject>();
      const events = cold<WatchEvent>('-IaD-|', inputs);
      expectObservable(events.pipe(reflector(store), resync(4, store, ts))).toBe('-IaDr|', values);
    });
  });

  it('refuses a bad period or store', () => {
    expect(() => resync(0, new Store())).toThrow(/resync: periodMs must be a finite number >= 1/);
    expect(() => resync(10, {} as Store)).toThrow(/resync: store must be a Store/);
  });
});
