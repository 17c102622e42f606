import { Action } from '@rxkube/core';
import type { ReconcileResult } from '@rxkube/core';
import { map } from 'rxjs';
import { testScheduler } from '@rxkube/testing/vitest';
import { describe, expect, it } from 'vitest';

import { laneApplier } from './lanes.js';

const newScheduler = () => testScheduler();
const laneOf = (v: string) => v.split('/')[0] ?? '';
const keyOf = (v: string) => v;
const short = (r: ReconcileResult<string, string>) => `${r.key}:${r.outcome}`;
const applierOptions = { rateLimit: false as const, random: () => 0 };

describe('laneApplier (internal)', () => {
  it('releases a lane idleMs after its last key settled, and opens a new one on the next trigger', () => {
    const ts = newScheduler();
    const lanes: string[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const source = hot('a---------------a', { a: 'x/1' });
      const out = source.pipe(
        laneApplier(
          laneOf,
          keyOf,
          () => cold('--(d|)', { d: Action.awaitChange() }),
          applierOptions,
          5,
          ts,
          (n, e) => lanes.push(`${ts.now()}:${e}:${n}`),
        ),
        map(short),
      );
      // run 0–2, settled at 2, closed at 7; reopened at 16
      expectObservable(out, '^ 20ms !').toBe('--s---------------s', { s: 'x/1:success' });
    });
    expect(lanes).toEqual(['0:open:x', '7:close:x', '16:open:x']);
  });

  it('keeps a lane open while a key has a retry timer, however long it is', () => {
    const ts = newScheduler();
    const lanes: string[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const source = hot('a', { a: 'x/1' });
      let n = 0;
      const out = source.pipe(
        laneApplier(
          laneOf,
          keyOf,
          () => (++n === 1 ? cold('#', {}, new Error('boom')) : cold('(d|)', { d: Action.awaitChange() })),
          { ...applierOptions, backoff: { baseMs: 20 } },
          2,
          ts,
          (name, e) => lanes.push(`${ts.now()}:${e}:${name}`),
        ),
        map(short),
      );
      // fails at 0 → retry at 20 (lane idle 2 ms would have closed it at 2); closes at 22
      expectObservable(out, '^ 30ms !').toBe('e-------------------s', { e: 'x/1:error', s: 'x/1:success' });
    });
    expect(lanes).toEqual(['0:open:x', '22:close:x']);
  });

  it('keeps a lane whose key got a trigger during its run (rerun pending) until the rerun settles', () => {
    const ts = newScheduler();
    const lanes: string[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const source = hot('a-a', { a: 'x/1' });
      const out = source.pipe(
        laneApplier(
          laneOf,
          keyOf,
          () => cold('----(d|)', { d: Action.awaitChange() }),
          applierOptions,
          0,
          ts,
          (name, e) => lanes.push(`${ts.now()}:${e}:${name}`),
        ),
        map(short),
      );
      expectObservable(out, '^ 20ms !').toBe('----s---s', { s: 'x/1:success' });
    });
    expect(lanes).toEqual(['0:open:x', '8:close:x']);
  });

  it('completes once the source completed and every lane drained', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const source = hot('ab|', { a: 'x/1', b: 'y/1' });
      const out = source.pipe(
        laneApplier(
          laneOf,
          keyOf,
          () => cold('---(d|)', { d: Action.awaitChange() }),
          applierOptions,
          100,
          ts,
        ),
        map(short),
      );
      expectObservable(out).toBe('---x(y|)', { x: 'x/1:success', y: 'y/1:success' });
    });
  });
});
