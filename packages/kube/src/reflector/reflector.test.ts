import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { KubeObject, WatchEvent } from '../types.js';
import { reflector } from './reflector.js';
import { Store } from './store.js';

const cm = (name: string, rv: string): KubeObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv, managedFields: [{ manager: 'x' }] },
});
const stripped = (name: string, rv: string): KubeObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv },
});

describe('reflector', () => {
  it('writes each event to the Store before passing it on, with the stored object', () => {
    const ts = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const store = new Store();
    const sizes: number[] = [];
    ts.run(({ cold, expectObservable }) => {
      const events = cold<WatchEvent>('IaD-b-d|', {
        I: { type: 'Init' },
        a: { type: 'InitApply', object: cm('a', '1') },
        D: { type: 'InitDone' },
        b: { type: 'Apply', object: cm('b', '2') },
        d: { type: 'Delete', object: cm('a', '3') },
      });
      const out$ = events.pipe(reflector(store));
      out$.subscribe(() => sizes.push(store.size));
      expectObservable(out$).toBe('IaD-b-d|', {
        I: { type: 'Init' },
        a: { type: 'InitApply', object: stripped('a', '1') },
        D: { type: 'InitDone' },
        b: { type: 'Apply', object: stripped('b', '2') },
        d: { type: 'Delete', object: stripped('a', '3') },
      });
    });
    // Init/InitApply do not touch what readers see; InitDone does (1), Apply (2), Delete (1)
    expect(sizes).toEqual([0, 0, 1, 2, 1]);
    expect([...store.keys()]).toEqual(['ns/b']);
  });

  it('refuses something that is not a Store', () => {
    expect(() => reflector({} as Store)).toThrow(/reflector: store must be a Store/);
  });
});
