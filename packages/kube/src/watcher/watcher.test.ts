import { asyncScheduler, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { KubeObject, WatchEvent } from '../types.js';
import type { WatcherConfig } from './config.js';
import type { WatcherHealth } from './health.js';
import { cm, page, scriptedSource } from './internal/scripted-source.test.helper.js';
import type { ListPage, RawWatchEvent } from './source.js';
import { watcher } from './watcher.js';

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** random() fixed at 0: no jitter, timeoutSeconds = 300. */
const exact: WatcherConfig = { random: () => 0 };

const a1 = cm('a', '5');
const b1 = cm('b', '6');
const c1 = cm('c', '7');
const a2 = cm('a', '11', { v: '2' });
const d1 = cm('d', '19');
const b2 = cm('b', '13');

const I: WatchEvent = { type: 'Init' };
const D: WatchEvent = { type: 'InitDone' };
const initApply = (object: KubeObject): WatchEvent => ({ type: 'InitApply', object });
const apply = (object: KubeObject): WatchEvent => ({ type: 'Apply', object });
const del = (object: KubeObject): WatchEvent => ({ type: 'Delete', object });

const added = (object: KubeObject): RawWatchEvent => ({ type: 'ADDED', object });
const modified = (object: KubeObject): RawWatchEvent => ({ type: 'MODIFIED', object });
const deleted = (object: KubeObject): RawWatchEvent => ({ type: 'DELETED', object });
const bookmark = (rv: string): RawWatchEvent => ({
  type: 'BOOKMARK',
  object: { metadata: { resourceVersion: rv } },
});
const expired: RawWatchEvent = {
  type: 'ERROR',
  object: {
    kind: 'Status',
    status: 'Failure',
    message: 'too old resource version: 10 (15)',
    reason: 'Expired',
    code: 410,
  },
};
const httpError = (code: number, extra: Record<string, unknown> = {}): Error =>
  Object.assign(new Error(`HTTP ${code}`), { code, ...extra });

describe('watcher: initial list', () => {
  it('frames paged InitApply events between Init and InitDone, then watches from the list RV', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const p1 = cold('-----(p|)', { p: page([a1, b1], '10', 'tok1') });
      const p2 = cold('-----(p|)', { p: page([c1], '10') });
      const s = scriptedSource(ts, [p1, p2], []);
      const expected = 'I 4ms (ab)-(cD)';
      //                I@0; page 1 at 5 → a, b; page 2 subscribed at 5, arrives at 10 → c, InitDone
      expectObservable(watcher(s.source, { ...exact, pageSize: 2 }, ts), '^ 20ms !').toBe(expected, {
        I,
        D,
        a: initApply(a1),
        b: initApply(b1),
        c: initApply(c1),
      });
      expectSubscriptions(p1.subscriptions).toBe('^----!');
      expectSubscriptions(p2.subscriptions).toBe('-----^----!');
    });
  });

  it('passes limit, continue, the list RV, bookmarks and a jittered timeoutSeconds', () => {
    const ts = newScheduler();
    let calls: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const p1 = cold('-(p|)', { p: page([a1], '10', 'tok1') });
      const p2 = cold('-(p|)', { p: page([b1], '10') });
      calls = scriptedSource(ts, [p1, p2], []);
      expectObservable(watcher(calls.source, { random: () => 0.5 }, ts), '^ 10ms !').toBe('Ia(bD)', {
        I,
        D,
        a: initApply(a1),
        b: initApply(b1),
      });
    });
    expect(calls?.listCalls).toEqual([{ limit: 500 }, { limit: 500, continue: 'tok1' }]);
    // 300 + floor(0.5 × 301) = 450 s
    expect(calls?.watchCalls).toEqual([
      { resourceVersion: '10', timeoutSeconds: 450, allowWatchBookmarks: true },
    ]);
  });

  it('draws timeoutSeconds within the configured range', () => {
    for (const [r, expected] of [
      [0, 300],
      [0.999999, 600],
      [1, 600],
    ] as const) {
      const ts = newScheduler();
      let s: ReturnType<typeof scriptedSource> | undefined;
      ts.run(({ cold, expectObservable }) => {
        s = scriptedSource(ts, [cold('(p|)', { p: page([], '10') })], []);
        expectObservable(watcher(s.source, { random: () => r }, ts), '^ 2ms !').toBe('(ID)', { I, D });
      });
      expect(s?.watchCalls[0]?.timeoutSeconds).toBe(expected);
    }
  });

  it('restarts a list that failed midway from scratch, with a new Init, after backoff', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const p1 = cold('-(p|)', { p: page([a1], '10', 'tok1') });
      const p2 = cold<ListPage>('-#', undefined, httpError(500));
      const p3 = cold('-(p|)', { p: page([a1, b1], '12') });
      s = scriptedSource(ts, [p1, p2, p3], []);
      const expected = 'Ia 800ms I(bcD)';
      //                page 1 at 1 → a; page 2 fails at 2; backoff 800 → Init at 802; page 3 at 803
      expectObservable(watcher(s.source, exact, ts), '^ 900ms !').toBe(expected, {
        I,
        D,
        a: initApply(a1),
        b: initApply(a1),
        c: initApply(b1),
      });
    });
    expect(s?.listCalls).toEqual([{ limit: 500 }, { limit: 500, continue: 'tok1' }, { limit: 500 }]);
    expect(s?.watchCalls.map((c) => c.resourceVersion)).toEqual(['12']);
  });
});

describe('watcher: watch', () => {
  it('maps ADDED/MODIFIED to Apply and DELETED to Delete; bookmarks emit nothing', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const list = cold('-(p|)', { p: page([], '10') });
      const w1 = cold('-x-y-k-z', { x: added(a1), y: modified(a2), k: bookmark('12'), z: deleted(a2) });
      const s = scriptedSource(ts, [list], [w1]);
      const expected = 'IDx-y---z';
      //                InitDone at 1, watch from 1: lines at 2, 4, (6 bookmark), 8
      expectObservable(watcher(s.source, exact, ts), '^ 20ms !').toBe(expected, {
        I,
        D,
        x: apply(a1),
        y: apply(a2),
        z: del(a2),
      });
    });
  });

  it('re-watches at once from the last RV after a clean end (no backoff, no relist)', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = cold('-(p|)', { p: page([], '10') });
      const w1 = cold('-x-y|', { x: added(b1), y: modified(a2) });
      const w2 = cold('-z', { z: added(c1) });
      s = scriptedSource(ts, [list], [w1, w2]);
      expectObservable(watcher(s.source, exact, ts), '^ 10ms !').toBe('IDx-y-z', {
        I,
        D,
        x: apply(b1),
        y: apply(a2),
        z: apply(c1),
      });
      expectSubscriptions(w1.subscriptions).toBe('-^---!');
      expectSubscriptions(w2.subscriptions).toBe('-----^-----!');
    });
    expect(s?.listCalls).toHaveLength(1);
    expect(s?.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '11']);
  });

  it('resumes from the last RV after a transport error, after the first backoff step', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const list = cold('-(p|)', { p: page([], '10') });
      const w1 = cold(
        '-x-#',
        { x: added(b1) },
        Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      );
      const w2 = cold('-z', { z: added(c1) });
      s = scriptedSource(ts, [list], [w1, w2]);
      const expected = 'IDx 802ms z';
      //                w1 errors at 4; backoff 800 → w2 at 804, z at 805
      expectObservable(watcher(s.source, exact, ts), '^ 900ms !').toBe(expected, {
        I,
        D,
        x: apply(b1),
        z: apply(c1),
      });
    });
    expect(s?.listCalls).toHaveLength(1);
    expect(s?.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '6']);
    expect(s?.watchTimes).toEqual([1, 804]);
  });

  it('resumes from a bookmark RV', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const list = cold('-(p|)', { p: page([], '10') });
      const w1 = cold('-x-k|', { x: added(b1), k: bookmark('42') });
      s = scriptedSource(ts, [list], [w1]);
      expectObservable(watcher(s.source, exact, ts), '^ 10ms !').toBe('IDx', { I, D, x: apply(b1) });
    });
    expect(s?.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '42']);
  });

  it('treats a watch that ends within 1 s without any line as a failure (backoff, same RV)', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const list = cold('-(p|)', { p: page([], '10') });
      s = scriptedSource(ts, [list], [cold('--|'), cold('1s |'), cold('-x', { x: added(a1) })]);
      // w1 ends at 3 (2 ms, no line) → backoff 800 → w2 at 803 lasts 1000 ms (idle, clean) → w3 at 1803 at once
      expectObservable(watcher(s.source, exact, ts), '^ 2s !').toBe('ID 1802ms x', { I, D, x: apply(a1) });
    });
    expect(s?.watchTimes).toEqual([1, 803, 1803]);
    expect(s?.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '10', '10']);
  });
});

describe('watcher: 410 and relist', () => {
  it('relists on an ERROR 410 event: InitApply for the new list, Delete for what vanished, no fake Apply', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const list1 = cold('-(p|)', { p: page([a1, b1, c1], '10') });
      const w1 = cold('------m-e', { m: modified(a2), e: expired });
      const list2 = cold('-(p|)', { p: page([a2, c1, d1], '20') });
      s = scriptedSource(ts, [list1, list2], [w1]);
      const expected = 'I(abcD)m 801ms I(xyzDv)';
      //                list 1 at 1; w1: a2 at 7, ERROR 410 at 9; backoff 800 → Init at 809, list 2 at 810
      expectObservable(watcher(s.source, exact, ts), '^ 900ms !').toBe(expected, {
        I,
        D,
        a: initApply(a1),
        b: initApply(b1),
        c: initApply(c1),
        m: apply(a2),
        x: initApply(a2),
        y: initApply(c1),
        z: initApply(d1),
        v: del(b1),
      });
    });
    expect(s?.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '20']);
  });

  it('relists on HTTP 410 from the watch request and remembers deletions seen while watching', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const list1 = cold('-(p|)', { p: page([a1, b1], '10') });
      const w1 = cold('-----x-#', { x: deleted(b1) }, httpError(410, { reason: 'Expired' }));
      const list2 = cold('-(p|)', { p: page([c1], '20') });
      const s = scriptedSource(ts, [list1, list2], [w1]);
      // b was deleted live, so only a vanished across the relist: one Delete, for a
      const expected = 'I(abD)x 801ms I(cDv)';
      //                list at 1; w1: DELETED b at 6, 410 at 8; backoff 800 → Init at 808, list 2 at 809
      expectObservable(watcher(s.source, exact, ts), '^ 900ms !').toBe(expected, {
        I,
        D,
        a: initApply(a1),
        b: initApply(b1),
        x: del(b1),
        c: initApply(c1),
        v: del(a1),
      });
    });
  });

  it('restarts the list from scratch when its continue token expired (HTTP 410 on a page)', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    const health: WatcherHealth[] = [];
    ts.run(({ cold, expectObservable }) => {
      const p1 = cold('-(p|)', { p: page([a1], '10', 'tok1') });
      const p2 = cold<ListPage>('-#', undefined, httpError(410, { reason: 'Expired' }));
      const p3 = cold('-(p|)', { p: page([a1, b1], '30') });
      s = scriptedSource(ts, [p1, p2, p3], []);
      expectObservable(watcher(s.source, { ...exact, health: (h) => health.push(h) }, ts), '^ 900ms !').toBe(
        'Ia 800ms I(bcD)',
        { I, D, a: initApply(a1), b: initApply(a1), c: initApply(b1) },
      );
    });
    expect(s?.listCalls).toEqual([{ limit: 500 }, { limit: 500, continue: 'tok1' }, { limit: 500 }]);
    const last = health.at(-1);
    expect(last?.gone410s).toBe(1);
    expect(last?.relists).toBe(1);
    expect(last?.errors).toBe(0);
  });

  it('counts exactly one relist per 410, whatever carried it', () => {
    const ts = newScheduler();
    let last: WatcherHealth | undefined;
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const ok = (rv: string) => cold('-(p|)', { p: page([a1], rv) });
      s = scriptedSource(
        ts,
        [
          ok('10'),
          ok('20'),
          cold('-(p|)', { p: page([a1], '30', 't') }),
          cold<ListPage>('-#', undefined, httpError(410)),
          ok('40'),
        ],
        [cold('-e', { e: expired }), cold('-#', {}, httpError(500)), cold('-#', {}, httpError(410))],
      );
      const run$ = watcher(s.source, { ...exact, health: (h) => (last = h) }, ts);
      expectObservable(run$, '^ 30s !').toBe('I(aD) 797ms I(aD) 2398ms Ia 3200ms I(aD)', {
        I,
        D,
        a: initApply(a1),
      });
      // list 1 done at 1; w1 ERROR 410 at 2 → +800 → list 2 at 802..803; w2 500 at 804 → +800 (the
      // 410 is not a failure step) → w3 at 1604, HTTP 410 at 1605 → second 410 in a row: +1600 →
      // Init at 3205, page at 3206 (with continue), next page 410 at 3207 → +3200 → Init at 6407.
    });
    expect(s?.listTimes).toEqual([0, 802, 3205, 3206, 6407]);
    expect(last?.gone410s).toBe(3);
    expect(last?.relists).toBe(3);
    expect(last?.errors).toBe(1);
  });
});

describe('watcher: relist after 410', () => {
  it('relists 800 ms after a 410 that ends an outage, not after the backoff the outage accumulated (issue 12 §1)', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      s = scriptedSource(
        ts,
        [cold('(p|)', { p: page([], '10') }), cold('(p|)', { p: page([a1], '20') })],
        (n) => (n < 5 ? cold('#', {}, httpError(503)) : n === 5 ? cold('#', {}, httpError(410)) : cold('-')),
      );
      expectObservable(watcher(s.source, exact, ts), '^ 60s !').toBe('(ID) 25596ms (IaD)', {
        I,
        D,
        a: initApply(a1),
      });
    });
    // five 503s: watches at 0, 800, 2400, 5600, 12000, 24800 (the server is back: 410); relist
    // 800 ms later at 25600 — the accumulated step would have been 25600 ms more (at 50400)
    expect(s?.watchTimes.slice(0, 6)).toEqual([0, 800, 2400, 5600, 12000, 24800]);
    expect(s?.listTimes).toEqual([0, 25600]);
  });

  it('backs off 410s that follow each other, and starts over 120 s after the last one', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const ok = cold('(p|)', { p: page([], '10') });
      s = scriptedSource(ts, [ok, ok, ok, ok, ok], (n) =>
        // every watch answers 410 at once, except the third, which lives 200 s before its 410
        n === 2 ? cold('200s #', {}, httpError(410)) : cold('#', {}, httpError(410)),
      );
      expectObservable(watcher(s.source, { ...exact, idleTimeoutMs: 300_000 }, ts), '^ 300s !').toBe(
        '(ID) 796ms (ID) 1596ms (ID) 200796ms (ID) 1596ms (ID) 3196ms I',
        { I, D },
      );
    });
    // 410 at 0 → 800; at 800 → 1600 (2400); at 2400 + 200 s, 120 s after the last one: 800 again
    // (203200); then 1600 and 3200 for the next two in a row
    expect(s?.listTimes).toEqual([0, 800, 2400, 203200, 204800, 208000]);
  });
});

describe('watcher: 400 BadRequest is not transient (issue 19 §4)', () => {
  const badRequest = httpError(400, {
    reason: 'BadRequest',
    message: "unable to parse requirement: found '', expected: ',' or ')'",
  });

  it('waits maxMs before retrying a list refused with 400, and reports it as invalid', () => {
    const ts = newScheduler();
    const seen: WatcherHealth[] = [];
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      s = scriptedSource(
        ts,
        [cold('-#', {}, badRequest), cold('-#', {}, badRequest), cold('-(p|)', { p: page([a1], '10') })],
        [],
      );
      const config: WatcherConfig = { ...exact, backoff: { maxMs: 5_000 }, health: (h) => seen.push(h) };
      //                list 1 fails at 1 → 5000 ms → Init at 5001, fails at 5002 → Init at 10002, page at 10003
      expectObservable(watcher(s.source, config, ts), '^ 10005ms !').toBe('I 5000ms I 5000ms I(aD)', {
        I,
        D,
        a: initApply(a1),
      });
    });
    expect(s?.listTimes).toEqual([0, 5001, 10002]);
    const failed = seen.filter((h) => h.phase === 'backoff');
    expect(failed.map((h) => [h.backoffMs, h.lastError?.kind, h.lastError?.code])).toEqual([
      [5000, 'invalid', 400],
      [5000, 'invalid', 400],
    ]);
  });

  it('waits maxMs before re-watching after a 400 watch or ERROR event, where a 503 waits initialMs', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    const badStatus: RawWatchEvent = {
      type: 'ERROR',
      object: { kind: 'Status', status: 'Failure', message: 'bad', reason: 'BadRequest', code: 400 },
    };
    ts.run(({ cold, expectObservable }) => {
      s = scriptedSource(
        ts,
        [cold('(p|)', { p: page([], '10') })],
        [cold('#', {}, httpError(503)), cold('#', {}, badRequest), cold('-e', { e: badStatus }), cold('-')],
      );
      expectObservable(watcher(s.source, exact, ts), '^ 70s !').toBe('(ID)', { I, D });
    });
    // w1 at 0 fails (503) → 800; w2 at 800 fails (400) → 30000; w3 at 30800, ERROR 400 at 30801 → 30000
    expect(s?.watchTimes).toEqual([0, 800, 30_800, 60_801]);
  });
});

describe('watcher: backoff', () => {
  function failingWatches(ts: TestScheduler, count: number, config: WatcherConfig): number[] {
    let times: number[] = [];
    ts.run(({ cold, expectObservable }) => {
      const s = scriptedSource(ts, [cold('(p|)', { p: page([], '10') })], (n) =>
        n < count ? cold('#', {}, httpError(503)) : cold('-'),
      );
      expectObservable(watcher(s.source, config, ts), '^ 1000s !').toBe('(ID)', { I, D });
      times = s.watchTimes;
    });
    // Only the first `count` gaps: the last watch never answers, so the idle timer takes over later.
    return times
      .slice(1)
      .map((t, i) => t - (times[i] ?? 0))
      .slice(0, count);
  }

  it('waits 800, 1600, 3200 … capped at 30000 ms between consecutive failures', () => {
    expect(failingWatches(newScheduler(), 9, exact)).toEqual([
      800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000,
    ]);
  });

  it('jitters each delay below its step, never above the cap', () => {
    const delays = failingWatches(newScheduler(), 8, { random: () => 0.5, backoff: { jitter: 0.5 } });
    // × (1 − 0.5 × 0.5) = × 0.75
    expect(delays).toEqual([600, 1200, 2400, 4800, 9600, 19200, 22500, 22500]);
  });

  it('resets the backoff after 120 s of healthy watching, not before', () => {
    for (const [tail, lived, nextDelay] of [
      ['19999ms', 120_000, 800],
      ['19998ms', 119_999, 3200],
    ] as const) {
      const ts = newScheduler();
      let times: number[] = [];
      ts.run(({ cold, expectObservable }) => {
        // bookmarks at 50 s and 100 s keep the idle timer quiet; the error comes at `lived`
        const w3 = cold(`50s k 49999ms k ${tail} #`, { k: bookmark('11') }, httpError(500));
        const list = cold('(p|)', { p: page([], '10') });
        const s = scriptedSource(
          ts,
          [list],
          [cold('#', {}, httpError(500)), cold('#', {}, httpError(500)), w3],
        );
        expectObservable(watcher(s.source, exact, ts), '^ 130s !').toBe('(ID)', { I, D });
        times = s.watchTimes;
      });
      // w1 fails at 0 (800), w2 at 800 (1600), w3 opens at 2400 and fails `lived` later
      expect(times).toEqual([0, 800, 2400, 2400 + lived + nextDelay]);
    }
  });

  it('honours Retry-After as a minimum (429)', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const list = cold('(p|)', { p: page([], '10') });
      s = scriptedSource(
        ts,
        [list],
        [
          cold('#', {}, httpError(429, { reason: 'TooManyRequests', retryAfterSeconds: 5 })),
          cold('#', {}, httpError(429, { reason: 'TooManyRequests', retryAfterSeconds: 1 })),
        ],
      );
      expectObservable(watcher(s.source, exact, ts), '^ 10s !').toBe('(ID)', { I, D });
    });
    // 5 s beats 800 ms; then 1600 ms beats 1 s
    expect(s?.watchTimes).toEqual([0, 5000, 6600]);
  });

  it('reads Retry-After from an ERROR event Status (504 ResourceVersionTooLarge)', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const tooLarge: RawWatchEvent = {
        type: 'ERROR',
        object: { kind: 'Status', code: 504, reason: 'Timeout', message: 'Too large resource version' },
      };
      Object.assign(tooLarge.object, { details: { retryAfterSeconds: 2 } });
      s = scriptedSource(ts, [cold('(p|)', { p: page([], '10') })], [cold('e', { e: tooLarge })]);
      expectObservable(watcher(s.source, exact, ts), '^ 10s !').toBe('(ID)', { I, D });
    });
    expect(s?.watchTimes).toEqual([0, 2000]);
    expect(s?.listCalls).toHaveLength(1);
  });
});

describe('watcher: stalls and malformed lines', () => {
  it('aborts a watch after 70 s without a line and resumes at once from the last RV', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    let last: WatcherHealth | undefined;
    const phases: string[] = [];
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = cold('-(p|)', { p: page([], '10') });
      const w1 = cold('-x', { x: added(b1) });
      s = scriptedSource(ts, [list], [w1]);
      const health = (h: WatcherHealth): void => {
        last = h;
        phases.push(h.phase);
      };
      expectObservable(watcher(s.source, { ...exact, health }, ts), '^ 71s !').toBe('IDx', {
        I,
        D,
        x: apply(b1),
      });
      // w1 opens at 1, its line at 2 resets the idle timer: stall at 2 + 70000 = 70002
      expectSubscriptions(w1.subscriptions).toBe('-^ 70000ms !');
    });
    // a healthy watch that went quiet is re-opened at once (no backoff)
    expect(s?.watchTimes).toEqual([1, 70_002]);
    expect(s?.watchCalls[1]?.resourceVersion).toBe('6');
    expect(last?.stalls).toBe(1);
    expect(last?.errors).toBe(0);
    expect(last?.lastError?.kind).toBe('stall');
    expect(phases).toEqual(['listing', 'watching', 'watching', 'stopped']);
  });

  it('re-watches a quiet resource at once on every stall with the default config (no growing delay)', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    let last: WatcherHealth | undefined;
    ts.run(({ cold, expectObservable }) => {
      // a v1.24 server sends no bookmark on an idle watch: every watch stays silent
      s = scriptedSource(ts, [cold('(p|)', { p: page([], '10') })], () => cold('-'));
      expectObservable(watcher(s.source, { ...exact, health: (h) => (last = h) }, ts), '^ 300s !').toBe(
        '(ID)',
        { I, D },
      );
    });
    // stall 1 follows the list: at once. Later stalls are consecutive and back off 800, 1600, 3200
    // ms — but the 70 s of silence already waited covers each step (cap 30 s), so the delay is 0.
    expect(s?.watchTimes).toEqual([0, 70_000, 140_000, 210_000, 280_000]);
    expect(s?.watchCalls.every((c) => c.resourceVersion === '10')).toBe(true);
    expect(s?.listCalls).toHaveLength(1);
    expect(last?.stalls).toBe(4);
    expect(last?.errors).toBe(0);
  });

  it('backs off consecutive stalls with no line in between: attempts spaced by the backoff sequence', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    let last: WatcherHealth | undefined;
    const config: WatcherConfig = {
      ...exact,
      idleTimeoutMs: 10,
      backoff: { initialMs: 20, factor: 2, maxMs: 80 },
      health: (h) => (last = h),
    };
    ts.run(({ cold, expectObservable }) => {
      // a truly stalled server: every watch connects and never sends a byte
      s = scriptedSource(ts, [cold('(p|)', { p: page([], '10') })], () => cold('-'));
      expectObservable(watcher(s.source, config, ts), '^ 235ms !').toBe('(ID)', { I, D });
    });
    // w0 at 0 stalls at 10 → at once (healthy until then). Then stalls at 20, 40, 80, 160 are
    // consecutive: backoff 20, 40, 80, 80 minus the 10 ms of silence → waits 10, 30, 70, 70.
    expect(s?.watchTimes).toEqual([0, 10, 30, 70, 150, 230]);
    const times = s?.watchTimes ?? [];
    expect(times.slice(1).map((t, i) => t - (times[i] ?? 0))).toEqual([10, 20, 40, 80, 80]);
    expect(last?.stalls).toBe(5);
    expect(last?.lastError?.kind).toBe('stall');
  });

  it('a line between stalls makes the next stall re-watch at once again', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    const config: WatcherConfig = {
      ...exact,
      idleTimeoutMs: 10,
      backoff: { initialMs: 20, factor: 2, maxMs: 80 },
    };
    ts.run(({ cold, expectObservable }) => {
      const list = cold('(p|)', { p: page([], '10') });
      const w2 = cold('--x', { x: added(b1) });
      s = scriptedSource(ts, [list], [cold('-'), cold('-'), w2, cold('-')]);
      expectObservable(watcher(s.source, config, ts), '^ 45ms !').toBe('(ID) 28ms x', { I, D, x: apply(b1) });
    });
    // w0 stalls at 10 → w1 at once; w1 stalls at 20 (consecutive) → 20 − 10 → w2 at 30;
    // w2's line at 32 → healthy again → its stall at 42 → w3 at once, from the line's RV
    expect(s?.watchTimes).toEqual([0, 10, 30, 42]);
    expect(s?.watchCalls[3]?.resourceVersion).toBe('6');
  });

  it('backs off a stall that follows a failure with no line in between', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    const config: WatcherConfig = {
      ...exact,
      idleTimeoutMs: 10,
      backoff: { initialMs: 100, factor: 2, maxMs: 1000 },
    };
    ts.run(({ cold, expectObservable }) => {
      const list = cold('(p|)', { p: page([], '10') });
      s = scriptedSource(ts, [list], [cold('#', {}, httpError(503)), cold('-'), cold('-')]);
      expectObservable(watcher(s.source, config, ts), '^ 500ms !').toBe('(ID)', { I, D });
    });
    // w0 fails at 0 → 100; w1 at 100 stalls at 110 (a failure since the last line) → 200 − 10 → 300
    expect(s?.watchTimes).toEqual([0, 100, 300]);
  });

  it('does not stall while bookmarks keep arriving', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const list = cold('(p|)', { p: page([], '10') });
      const w1 = cold('60s k 60s k 60s k 60s k', { k: bookmark('11') });
      s = scriptedSource(ts, [list], [w1]);
      expectObservable(watcher(s.source, exact, ts), '^ 240s !').toBe('(ID)', { I, D });
    });
    expect(s?.watchTimes).toEqual([0]);
  });

  it('reports a malformed line and resumes from the last good RV', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    let last: WatcherHealth | undefined;
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = cold('-(p|)', { p: page([], '10') });
      const bad: RawWatchEvent = {
        type: 'MALFORMED',
        line: '{"type":"ADDED","obj',
        error: 'Unexpected end of JSON',
      };
      const w1 = cold('-x-m-y', { x: added(b1), m: bad, y: added(c1) });
      const w2 = cold('-y', { y: added(c1) });
      s = scriptedSource(ts, [list], [w1, w2]);
      expectObservable(watcher(s.source, { ...exact, health: (h) => (last = h) }, ts), '^ 900ms !').toBe(
        'IDx 802ms y',
        { I, D, x: apply(b1), y: apply(c1) },
      );
      expectSubscriptions(w1.subscriptions).toBe('-^--!');
    });
    expect(s?.watchCalls.map((c) => c.resourceVersion)).toEqual(['10', '6']);
    expect(last?.malformedLines).toBe(1);
    expect(last?.lastError?.kind).toBe('malformed');
    expect(last?.lastError?.message).toContain('{"type":"ADDED","obj');
  });
});

describe('watcher: health and unsubscribe', () => {
  it('forgets a key when its Delete is emitted, and everything on unsubscribe (promise 9)', () => {
    const ts = newScheduler();
    const objects: number[] = [];
    ts.run(({ cold, expectObservable }) => {
      const list = cold('(p|)', { p: page([a1, b1], '10') });
      // the bookmark after the deletion makes the watcher report a health snapshot
      const w1 = cold('------x-k', { x: deleted(cm('a', '12')), k: bookmark('13') });
      const s = scriptedSource(ts, [list], [w1]);
      const config: WatcherConfig = { ...exact, health: (h) => objects.push(h.objects) };
      expectObservable(watcher(s.source, config, ts), '^ 10ms !').toBe('(IabD)x', {
        I,
        D,
        a: initApply(a1),
        b: initApply(b1),
        x: del(cm('a', '12')),
      });
    });
    // listing: 0; watching after InitDone: 2; bookmark after the Delete: 1; stopped: 0
    expect(objects).toEqual([0, 2, 1, 0]);
  });

  it('reports state changes as values, never as errors', () => {
    const ts = newScheduler();
    const seen: WatcherHealth[] = [];
    ts.run(({ cold, expectObservable }) => {
      const list = cold('-(p|)', { p: page([a1], '10') });
      const w1 = cold('-k-#', { k: bookmark('12') }, httpError(403, { reason: 'Forbidden' }));
      const w2 = cold('-x', { x: added(b2) });
      const s = scriptedSource(ts, [list], [w1, w2]);
      const events$ = watcher(s.source, { ...exact, health: (h) => seen.push(h) }, ts);
      expectObservable(events$, '^ 900ms !').toBe('I(aD) 800ms x', { I, D, a: initApply(a1), x: apply(b2) });
    });
    const summary = seen.map((h) => [h.phase, h.connected, h.resourceVersion, h.backoffMs, h.errors]);
    expect(summary).toEqual([
      ['listing', false, undefined, 0, 0],
      ['watching', true, '10', 0, 0], // at 1
      ['watching', true, '12', 0, 0], // bookmark at 2
      ['backoff', false, '12', 800, 1], // 403 at 4
      ['watching', true, '12', 0, 1], // at 804
      ['watching', true, '13', 0, 1], // the first line after the failure, at 805: working again
      ['stopped', false, '13', 0, 1], // unsubscribed at 901
    ]);
    const afterFailure = seen[3];
    expect(afterFailure?.lastError).toMatchObject({ kind: 'watch', code: 403, reason: 'Forbidden', at: 4 });
    expect(afterFailure?.bookmarks).toBe(1);
    expect(afterFailure?.lastEventAt).toBe(2);
    expect(seen[5]?.lastEventAt).toBe(805);
    expect(seen.at(-1)?.reconnects).toBe(1);
    expect(seen.at(-1)?.synced).toBe(true);
    expect(Object.isFrozen(afterFailure)).toBe(true);
  });

  it('aborts the list request in flight on unsubscribe', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const p1 = cold('-----(p|)', { p: page([a1], '10') });
      const s = scriptedSource(ts, [p1], []);
      expectObservable(watcher(s.source, exact, ts), '^--!').toBe('I', { I });
      expectSubscriptions(p1.subscriptions).toBe('^--!');
    });
  });

  it('aborts the watch in flight, and cancels the backoff timer, on unsubscribe', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = cold('-(p|)', { p: page([], '10') });
      const w1 = cold('-x', { x: added(a1) });
      s = scriptedSource(ts, [list], [w1]);
      expectObservable(watcher(s.source, exact, ts), '^----!').toBe('IDx', { I, D, x: apply(a1) });
      expectSubscriptions(w1.subscriptions).toBe('-^---!');
    });
    expect(s?.watchCalls).toHaveLength(1);

    const ts2 = newScheduler();
    let s2: ReturnType<typeof scriptedSource> | undefined;
    ts2.run(({ cold, expectObservable }) => {
      s2 = scriptedSource(ts2, [cold('(p|)', { p: page([], '10') })], [cold('#', {}, httpError(500))]);
      expectObservable(watcher(s2.source, exact, ts2), '^ 500ms !').toBe('(ID)', { I, D });
    });
    // The unsubscribe at 501 cancelled the retry due at 800: no second watch ever started.
    expect(s2?.watchCalls).toHaveLength(1);
  });

  it('stops consuming a page when the consumer unsubscribes in the middle of it', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const p1 = cold('-(p|)', { p: page([a1, b1, c1], '10', 'tok') });
      s = scriptedSource(ts, [p1], []);
      // take(2) unsubscribes synchronously while the page's items are being emitted
      expectObservable(watcher(s.source, exact, ts).pipe(take(2))).toBe('I(a|)', { I, a: initApply(a1) });
    });
    // the page had a continue token: an ignored unsubscribe would have requested page 2
    expect(s?.listCalls).toHaveLength(1);
  });
});

describe('watcher: arguments', () => {
  const src = scriptedSource(asyncScheduler, [], []).source;

  it.each([
    [{ pageSize: 0 }, /config\.pageSize must be an integer >= 1; got 0/],
    [{ pageSize: 1.5 }, /config\.pageSize/],
    [
      { timeoutSecondsRange: [600, 300] as [number, number] },
      /config\.timeoutSecondsRange must be \[min, max\]/,
    ],
    [{ idleTimeoutMs: -1 }, /config\.idleTimeoutMs/],
    [{ backoff: { initialMs: 0 } }, /config\.backoff\.initialMs/],
    [{ backoff: { maxMs: 10 } }, /config\.backoff\.maxMs must be a finite number >= 800/],
    [{ backoff: { factor: 0.5 } }, /config\.backoff\.factor/],
    [{ backoff: { jitter: 2 } }, /config\.backoff\.jitter must be a number in \[0, 1\]/],
    [{ random: 3 as unknown as () => number }, /config\.random must be a function/],
    [{ resourceVersionStart: '0' as 'list' }, /config\.resourceVersionStart must be 'list'/],
  ])('rejects %o with a clear error', (config, message) => {
    expect(() => watcher(src, config as WatcherConfig)).toThrow(message);
  });

  it('rejects a source without list/watch and a non-scheduler', () => {
    expect(() => watcher({} as never)).toThrow(/watcher: source must be a ListWatchSource/);
    expect(() => watcher(src, {}, {} as never)).toThrow(/watcher: scheduler must be an RxJS SchedulerLike/);
  });

  it('checks a client watch the same way, once, before anything is built', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap' };
    const notAClient = {} as never;
    expect(() => watcher(notAClient, cm, { pageSize: 0 })).toThrow(/watcher: config\.pageSize must be/);
    expect(() => watcher(notAClient, cm, {}, {} as never)).toThrow(
      /watcher: scheduler must be an RxJS SchedulerLike/,
    );
    expect(() => watcher(notAClient, cm)).toThrow(/listWatchSource: client must be a KubeClient/);
  });
});
