/**
 * The public signals a soak (or a test) needs instead of private state (issue 12 §5): whether a
 * controller is idle — nothing queued, running, waiting for a retry, a requeue, a debounce or a map
 * retry — and its Stores.
 */
import { Action } from '@rxkube/core';
import type { Observable } from 'rxjs';
import { map, throwError } from 'rxjs';
import { testScheduler } from '@rxkube/testing/vitest';
import { ScriptedWatchRegistry, watchEvent } from '@rxkube/testing/controller';
import { describe, expect, it } from 'vitest';

import type { KubeObject, WatchEvent } from '../types.js';
import type { ControllerOptions } from './controller.js';
import { controller } from './controller.js';
import { IdleTracker } from './idle.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const I: WatchEvent = watchEvent.init();
const D: WatchEvent = watchEvent.initDone();
const obj = (name: string, rv: string): KubeObject => ({
  metadata: { namespace: 'ns', name, uid: `uid-${name}`, resourceVersion: rv },
});

function options(
  streams: Record<string, Observable<WatchEvent>>,
  extra: Partial<ControllerOptions<KubeObject>> = {},
): ControllerOptions<KubeObject> {
  return {
    for: CM,
    registry: new ScriptedWatchRegistry(streams),
    rateLimit: false,
    random: () => 0,
    log: {},
    ...extra,
  };
}

describe('Controller.idle$ and stores (issue 12 §5)', () => {
  it('is idle only when nothing is queued, running, debounced or waiting for a retry', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      // a: debounced 0–2, runs 2–5; b arrives at 10, debounced to 12, fails → its retry waits to 17,
      // runs 17–20. Idle at 5 and 20; busy from 0 and from 10.
      const primary = hot<WatchEvent>('(IaD)-----b', {
        I,
        D,
        a: { type: 'InitApply', object: obj('a', '1') },
        b: { type: 'Apply', object: obj('b', '1') },
      });
      let bCalls = 0;
      const ctrl = controller(options({ ConfigMap: primary }, { debounce: { ms: 2 } }), ts);
      const results$ = ctrl.run((req) =>
        req.name === 'b' && bCalls++ === 0
          ? throwError(() => new Error('not yet'))
          : cold('---(d|)', { d: Action.awaitChange() }),
      );
      expectObservable(ctrl.idle$.pipe(map((idle) => (idle ? 'i' : 'b'))), '^ 30ms !').toBe(
        '(ib)-i----b---------i',
      );
      // results keep the run going (subscribed); frames for reference
      expectObservable(results$.pipe(map((r) => `${r.key}:${r.outcome}`)), '^ 30ms !').toBe(
        '-----a------e-------s',
        { a: 'ns/a:success', e: 'ns/b:error', s: 'ns/b:success' },
      );
    });
  });

  it('exposes the Stores of every watched kind, the primary across its namespaces', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, D, a: { type: 'InitApply', object: obj('a', '1') } });
      const secrets = hot<WatchEvent>('(IsD)', { I, D, s: { type: 'InitApply', object: obj('s', '7') } });
      const ctrl = controller(options({ ConfigMap: primary, Secret: secrets }, { owns: [SECRET] }), ts);
      expect(ctrl.stores.primary.ready).toBe(false);
      expectObservable(
        ctrl.run(() => cold('(d|)', { d: Action.awaitChange() })).pipe(map((r) => r.key)),
        '^ 2ms !',
      ).toBe('a', { a: 'ns/a' });
      ts.schedule(() => {
        expect(ctrl.stores.primary.get('ns/a')?.metadata.resourceVersion).toBe('1');
        expect(
          ctrl.stores
            .of(SECRET)
            .list('ns')
            .map((o) => o.metadata.name),
        ).toEqual(['s']);
        expect(ctrl.stores.all.map((s) => `${s.role}:${s.resource.kind}:${s.store.size}`)).toEqual([
          'primary:ConfigMap:1',
          'owned:Secret:1',
        ]);
        expect(ctrl.cache.get(SECRET, 'ns/s')?.metadata.resourceVersion).toBe('7');
        expect(() => ctrl.stores.of({ apiVersion: 'v1', kind: 'Pod' })).toThrow(/must be one of the kinds/);
      }, 1);
    });
  });
});

describe('IdleTracker', () => {
  it('keeps one confirmation action per turn however often the counts flip (no timer per event)', () => {
    const ts = testScheduler();
    let scheduled = 0;
    const seen: boolean[] = [];
    ts.run(() => {
      const counting = {
        now: () => ts.now(),
        schedule: ((...args: Parameters<typeof ts.schedule>) => {
          scheduled++;
          return ts.schedule(...args);
        }) as typeof ts.schedule,
      };
      const tracker = new IdleTracker(counting);
      tracker.idle$.subscribe((idle) => seen.push(idle));
      const a = tracker.source();
      // frame 0: busy, idle, busy, idle, ... 100 times; confirmed idle at the end of the frame
      for (let i = 0; i < 100; i++) {
        a.set(1);
        a.set(0);
      }
      expect(scheduled).toBe(1);
    });
    // true (start), false, then true once confirmed
    expect(seen).toEqual([true, false, true]);
  });

  it('schedules nothing while unobserved: idle reads the counts, a new observer gets the state at once', () => {
    const ts = testScheduler();
    let scheduled = 0;
    ts.run(({ cold, expectObservable }) => {
      const counting = {
        now: () => ts.now(),
        schedule: ((...args: Parameters<typeof ts.schedule>) => {
          scheduled++;
          return ts.schedule(...args);
        }) as typeof ts.schedule,
      };
      const tracker = new IdleTracker(counting);
      const a = tracker.source();
      for (let i = 0; i < 100; i++) {
        a.set(1);
        a.set(0);
      }
      expect(scheduled).toBe(0);
      expect(tracker.idle).toBe(true);
      a.set(2);
      expect(tracker.idle).toBe(false);
      // observed from frame 1 (busy), idle from frame 3 (confirmed in that frame)
      cold('---x').subscribe(() => a.set(0));
      expectObservable(tracker.idle$, '-^').toBe('-b-i', { b: false, i: true });
    });
    expect(scheduled).toBe(1); // the one confirmation, once observed
  });
});
