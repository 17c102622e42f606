import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { WatchEvent } from '../types.js';
import type { WatcherConfig } from './config.js';
import { cm, page, scriptedSource } from './internal/scripted-source.test.helper.js';
import type { ScriptedSource } from './internal/scripted-source.test.helper.js';
import { ServerRecovery } from './server-recovery.js';
import type { ListPage, RawWatchEvent } from './source.js';
import { watcher } from './watcher.js';

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** random() fixed at 0: no jitter, and a recovered watch retries at once (spread 0). */
const exact: WatcherConfig = { random: () => 0 };
const httpError = (code: number): Error => Object.assign(new Error(`HTTP ${code}`), { code });
const line: RawWatchEvent = { type: 'ADDED', object: cm('x', '11') };
const I: WatchEvent = { type: 'Init' };
const D: WatchEvent = { type: 'InitDone' };

describe('ServerRecovery: one watch’s success ends its siblings’ connection backoff (issue 19 §3)', () => {
  it('retries a sibling waiting on 503s as soon as another watch of the server gets a line', () => {
    for (const shared of [true, false]) {
      const ts = newScheduler();
      let b: ScriptedSource<ReturnType<typeof cm>> | undefined;
      ts.run(({ cold, expectObservable }) => {
        const recovery = shared ? new ServerRecovery({}, ts) : undefined;
        const config: WatcherConfig = { ...exact, ...(recovery ? { recovery } : {}) };
        const fail = (): Observable<RawWatchEvent> => cold('#', {}, httpError(503));
        // A: w1 fails at 0 (800 ms) → w2 at 800 answers a line at 801
        const a = scriptedSource(
          ts,
          [cold('(p|)', { p: page([], '10') })],
          [fail(), cold('-x', { x: line })],
        );
        // B: w1 fails at 0 (800 ms), w2 at 800 fails (1600 ms: due at 2400), w3 answers
        b = scriptedSource(ts, [cold('(p|)', { p: page([], '10') })], [fail(), fail(), cold('-')]);
        expectObservable(watcher(a.source, config, ts), '^ 3000ms !').toBe('(ID) 797ms a', {
          I,
          D,
          a: { type: 'Apply', object: line.object } as WatchEvent,
        });
        expectObservable(watcher(b.source, config, ts), '^ 3000ms !').toBe('(ID)', { I, D });
      });
      // with the recovery, B's w3 opens when A's line arrives (801), not when its backoff ends (2400)
      expect([shared, b?.watchTimes]).toEqual([shared, shared ? [0, 800, 801] : [0, 800, 2400]]);
    }
  });

  it.each([
    [503, 'a connection failure: retried at the sibling’s success', [0, 1]],
    [403, 'RBAC: a success elsewhere proves nothing', [0, 800]],
    [400, 'invalid: waits maxMs', [0, 30_000]],
  ] as const)('a watch that failed with %i — %s', (code, _why, times) => {
    const ts = newScheduler();
    let a: ScriptedSource<ReturnType<typeof cm>> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const recovery = new ServerRecovery({}, ts);
      a = scriptedSource(
        ts,
        [cold('(p|)', { p: page([], '10') })],
        [cold('#', {}, httpError(code)), cold('-')],
      );
      // B's list page at 1 is the sibling's success
      const b = scriptedSource(ts, [cold('-(p|)', { p: page([], '10') })], [cold('-')]);
      expectObservable(watcher(a.source, { ...exact, recovery }, ts), '^ 31s !').toBe('(ID)', { I, D });
      expectObservable(watcher(b.source, { ...exact, recovery }, ts), '^ 31s !').toBe('ID', { I, D });
    });
    expect(a?.watchTimes).toEqual(times);
  });

  it('does not wait for a sibling: probes the server every probeIntervalMs while a watch waits', () => {
    const ts = newScheduler();
    let s: ScriptedSource<ReturnType<typeof cm>> | undefined;
    const probes: number[] = [];
    ts.run(({ cold, expectObservable }) => {
      // the server serves again from 4000: probes before fail
      const recovery = new ServerRecovery(
        {
          probe: () => {
            probes.push(ts.now());
            return ts.now() >= 4_000 ? cold('(o|)', { o: 'ok' }) : cold('#', {}, httpError(503));
          },
          probeIntervalMs: 1_000,
        },
        ts,
      );
      const fail = (): Observable<RawWatchEvent> => cold('#', {}, httpError(503));
      s = scriptedSource(ts, [cold('(p|)', { p: page([], '10') })], [fail(), fail(), fail(), cold('-')]);
      expectObservable(watcher(s.source, { ...exact, recovery }, ts), '^ 20s !').toBe('(ID)', { I, D });
    });
    // waits: 800 (due 800), 1600 (due 2400), 3200 (due 5600); each wait re-arms the probe timer:
    // probe at 1800 (fails), 3400 (fails), 4400 (succeeds) → w4 at 4400 instead of 5600
    expect(s?.watchTimes).toEqual([0, 800, 2400, 4_400]);
    // no probe while nobody waits: none after the recovery, none before the first failure
    expect(probes).toEqual([1_800, 3_400, 4_400]);
  });

  it('cuts a failure streak short once: a resource that keeps failing while the probe succeeds backs off', () => {
    const ts = newScheduler();
    let s: ScriptedSource<ReturnType<typeof cm>> | undefined;
    let probes = 0;
    ts.run(({ cold, expectObservable }) => {
      const recovery = new ServerRecovery(
        {
          probe: () => {
            probes++;
            return cold('(o|)', { o: 'ok' });
          },
          probeIntervalMs: 1_000,
        },
        ts,
      );
      s = scriptedSource(ts, [cold('(p|)', { p: page([], '10') })], () => cold('#', {}, httpError(503)));
      expectObservable(watcher(s.source, { ...exact, recovery }, ts), '^ 8s !').toBe('(ID)', { I, D });
    });
    // fails at 0 (800), 800 (1600: probe at 1800 succeeds → retry at 1800, backoff sequence restarted);
    // then no more cuts in this streak: 1800 (800), 2600 (1600), 4200 (3200), 7400
    expect(s?.watchTimes).toEqual([0, 800, 1_800, 2_600, 4_200, 7_400]);
    expect(probes).toBe(1);
  });

  it('cuts the next streak short again once the watch worked, even on a quiet resource (a clean end)', () => {
    const ts = newScheduler();
    let a: ScriptedSource<ReturnType<typeof cm>> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const recovery = new ServerRecovery({}, ts);
      const fail = (): Observable<RawWatchEvent> => cold('#', {}, httpError(503));
      const list = (): Observable<ListPage<ReturnType<typeof cm>>> => cold('(p|)', { p: page([], '10') });
      // w3 opens at 1000, gets no line and is ended cleanly by the server at 3000
      a = scriptedSource(ts, [list()], [fail(), fail(), cold('2000ms |'), fail(), fail(), cold('-')]);
      const b = scriptedSource(ts, [cold('1000ms (p|)', { p: page([], '10') })], [cold('-')]);
      const c = scriptedSource(ts, [cold('4000ms (p|)', { p: page([], '10') })], [cold('-')]);
      const config: WatcherConfig = { ...exact, recovery };
      expectObservable(watcher(a.source, config, ts), '^ 6s !').toBe('(ID)', { I, D });
      expectObservable(watcher(b.source, config, ts), '^ 6s !').toBe('I 999ms D', { I, D });
      expectObservable(watcher(c.source, config, ts), '^ 6s !').toBe('I 3999ms D', { I, D });
    });
    // streak 1: fails at 0 and 800 (due 2400), cut by B's page at 1000; w3 ends cleanly at 3000.
    // streak 2: fails at 3000 (800) and 3800 (1600: due 5400), cut again by C's page at 4000.
    expect(a?.watchTimes).toEqual([0, 800, 1_000, 3_000, 3_800, 4_000]);
  });

  it('spreads the recovered retries over initialMs × random(), never later than the backoff', () => {
    const ts = newScheduler();
    const recovery = new ServerRecovery({}, ts);
    const fired: string[] = [];
    ts.run(() => {
      recovery.waitForRecovery(() => fired.push('a'));
      const unwait = recovery.waitForRecovery(() => fired.push('b'));
      unwait();
      expect(recovery.waiting).toBe(1);
      recovery.succeeded();
      recovery.succeeded(); // once per wait
    });
    expect(fired).toEqual(['a']);
    expect(recovery.waiting).toBe(0);

    const ts2 = newScheduler();
    let s: ScriptedSource<ReturnType<typeof cm>> | undefined;
    ts2.run(({ cold, expectObservable }) => {
      const shared = new ServerRecovery({}, ts2);
      const config: WatcherConfig = { random: () => 0.5, backoff: { jitter: 0 }, recovery: shared };
      const fail = (): Observable<RawWatchEvent> => cold('#', {}, httpError(503));
      s = scriptedSource(ts2, [cold('(p|)', { p: page([], '10') })], [fail(), fail(), cold('-')]);
      const other = scriptedSource(ts2, [cold('1000ms (p|)', { p: page([], '10') })], [cold('-')]);
      expectObservable(watcher(s.source, config, ts2), '^ 5s !').toBe('(ID)', { I, D });
      expectObservable(watcher(other.source, config, ts2), '^ 5s !').toBe('I 999ms D', { I, D });
    });
    // fails at 0 (800) and 800 (1600: due 2400); the sibling's page at 1000 → retry at 1000 + 800 × 0.5
    expect(s?.watchTimes).toEqual([0, 800, 1_400]);
  });

  it('refuses a bad probe or interval, and a config.recovery that is not one', () => {
    expect(() => new ServerRecovery({ probe: 'GET /api' as never })).toThrow(
      /options\.probe must be a function/,
    );
    expect(() => new ServerRecovery({ probeIntervalMs: 0 })).toThrow(
      /options\.probeIntervalMs must be a number > 0/,
    );
    const s = scriptedSource(newScheduler(), [], []);
    expect(() => watcher(s.source, { recovery: {} as never })).toThrow(
      /config\.recovery must be a ServerRecovery/,
    );
  });
});
