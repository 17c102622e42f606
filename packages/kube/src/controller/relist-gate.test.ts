import { testScheduler } from '@rxkube/testing/vitest';
import { describe, it } from 'vitest';

import { Store } from '../reflector/store.js';
import type { KubeObject, WatchEvent } from '../types.js';
import { relistGate } from './relist-gate.js';
import type { Trigger } from './relist-gate.js';

const cm = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: '1' },
});
const a = cm('a');
const b = cm('b');

describe('relistGate', () => {
  it('marks the Applys of a relist, not those of the first list or of live events', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events: Record<string, WatchEvent<KubeObject>> = {
        i: { type: 'Init' },
        a: { type: 'InitApply', object: a },
        d: { type: 'InitDone' },
        b: { type: 'InitApply', object: b },
        l: { type: 'Apply', object: b },
      };
      const triggers: Record<string, Trigger<KubeObject>> = {
        x: { type: 'Apply', object: a },
        y: { type: 'Apply', object: b, relist: true },
        z: { type: 'Apply', object: b },
      };
      // first list (a), a relist (b, changed while away: the Store does not hold it), a live event
      const source = cold('-i-a-d-i-b-d-l|', events);
      const expected = '    -----x-----y-z|';
      expectObservable(source.pipe(relistGate(new Store<KubeObject>()))).toBe(expected, triggers);
    });
  });
  it('emits each trigger as the mapping given makes it, in the same frames', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const events: Record<string, WatchEvent<KubeObject>> = {
        i: { type: 'Init' },
        a: { type: 'InitApply', object: a },
        d: { type: 'InitDone' },
        b: { type: 'InitApply', object: b },
        l: { type: 'Delete', object: b },
      };
      const source = cold('-i-a-d-i-b-d-l|', events);
      const as = (t: Trigger<KubeObject>): string =>
        `${t.type} ${t.object.metadata.name ?? ''}${t.relist === true ? ' (relist)' : ''}`;
      expectObservable(source.pipe(relistGate(new Store<KubeObject>(), undefined, as))).toBe(
        '-----x-----y-z|',
        { x: 'Apply a', y: 'Apply b (relist)', z: 'Delete b' },
      );
    });
  });
});
