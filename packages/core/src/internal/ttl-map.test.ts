import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { TtlMap } from './ttl-map.js';

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('TtlMap', () => {
  it('forgets an entry exactly ttl after its last write, for reads', () => {
    const ts = newScheduler();
    ts.run(() => {
      const map = new TtlMap<string, number>(5, ts);
      map.set('a', 1, 10);
      expect(map.get('a', 14)?.value).toBe(1);
      expect(map.get('a', 15)).toBeUndefined();
      expect(map.size).toBe(0);
      map.clear();
    });
  });

  it('restarts the lifetime on every write', () => {
    const ts = newScheduler();
    ts.run(() => {
      const map = new TtlMap<string, number>(5, ts);
      map.set('a', 1, 0);
      map.set('a', 2, 4);
      expect(map.get('a', 8)?.value).toBe(2);
      map.clear();
    });
  });

  it('sweeps expired entries with one action and holds no timer once empty', () => {
    const ts = newScheduler();
    const samples: [number, number, boolean][] = [];
    ts.run(() => {
      const map = new TtlMap<string, number>(5, ts);
      const sample = (): void => {
        samples.push([ts.now(), map.size, map.sweepPending]);
      };
      ts.schedule(() => {
        map.set('a', 1, ts.now()); // expires at 5
        map.set('b', 1, ts.now()); // expires at 5
        sample();
      }, 0);
      ts.schedule(() => map.set('a', 2, ts.now()), 3); // a now expires at 8; b first in line
      for (const frame of [4, 6, 9]) ts.schedule(sample, frame);
    });
    expect(samples).toEqual([
      [0, 2, true],
      [4, 2, true],
      [6, 1, true], // b swept at 5, the sweep re-armed for a
      [9, 0, false], // a swept at 8, nothing pending
    ]);
  });

  it('cancels the sweep when the last entry is deleted or on clear', () => {
    const ts = newScheduler();
    ts.run(() => {
      const map = new TtlMap<string, number>(5, ts);
      map.set('a', 1, 0);
      map.set('b', 1, 0);
      map.delete('a');
      expect(map.sweepPending).toBe(true);
      map.delete('b');
      expect(map.sweepPending).toBe(false);
      expect(ts.actions.length).toBe(0);
      map.set('c', 1, 0);
      map.clear();
      expect(map.size).toBe(0);
      expect(ts.actions.length).toBe(0);
    });
  });
});
