// Streaming lists (WatchList, KEP-3157) in the watcher's state machine, under TestScheduler.
// The facts these follow: packages/testing/fixtures/watch-list/README.md.
import { tap } from 'rxjs';

import { ResourceNotFoundError } from '../errors.js';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { KubeObject, WatchEvent } from '../types.js';
import type { WatcherConfig } from './config.js';
import type { WatcherHealth } from './health.js';
import { cm, page, scriptedSource } from './internal/scripted-source.test.helper.js';
import type { RawWatchEvent, StreamingListSupport } from './source.js';
import { INITIAL_EVENTS_END_ANNOTATION } from './source.js';
import { watcher } from './watcher.js';

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** Streaming-list support as listWatchSource keeps it per client, counting what it is told. */
function support(): StreamingListSupport & { readonly refusals: string[] } {
  const refusals: string[] = [];
  return {
    refusals,
    supported: () => refusals.length === 0,
    unsupported: (reason) => {
      refusals.push(reason);
      return refusals.length === 1;
    },
  };
}

const exact: WatcherConfig = { random: () => 0 };

const a1 = cm('a', '5');
const b1 = cm('b', '6');
const a2 = cm('a', '11', { v: '2' });
const c1 = cm('c', '12');

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
const endBookmark = (rv: string): RawWatchEvent => ({
  type: 'BOOKMARK',
  object: { metadata: { resourceVersion: rv, annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } },
});
const errorEvent = (code: number, reason: string, message: string): RawWatchEvent => ({
  type: 'ERROR',
  object: { kind: 'Status', status: 'Failure', code, reason, message },
});
const httpError = (code: number, extra: Record<string, unknown> = {}): Error =>
  Object.assign(new Error(`HTTP ${code}`), { code, ...extra });
/** What a 1.24 server answers a streaming list with (fixtures/watch-list/README.md). */
const refused422 = (): Error =>
  httpError(422, {
    reason: 'Invalid',
    message:
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
  });

describe('watcher: streaming lists', () => {
  it('streams the initial list: InitApply per ADDED, InitDone at the end bookmark, then the same request watches', () => {
    const ts = newScheduler();
    const health: WatcherHealth[] = [];
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const stream = cold('-a-b-c-B-m', {
        a: added(b1),
        b: added(a1),
        c: bookmark('9'),
        B: endBookmark('10'),
        m: modified(a2),
      });
      s = scriptedSource(ts, [], [stream]);
      const source = { ...s.source, streamingLists: support() };
      expectObservable(watcher(source, { ...exact, health: (h) => health.push(h) }, ts), '^ 20ms !').toBe(
        'Ia-b---D-m',
        { I, D, a: initApply(b1), b: initApply(a1), m: apply(a2) },
      );
      expectSubscriptions(stream.subscriptions).toBe('^ 20ms !');
    });
    expect(s?.listCalls).toEqual([]);
    expect(s?.watchCalls).toEqual([
      { resourceVersion: '', timeoutSeconds: 300, allowWatchBookmarks: true, sendInitialEvents: true },
    ]);
    // the initial events and a bookmark without the annotation do not move the resume point
    const beforeDone = health.filter((h) => !h.synced);
    expect(beforeDone.every((h) => h.resourceVersion === undefined && h.initialList === 'streaming')).toBe(
      true,
    );
    expect(health.find((h) => h.synced)).toMatchObject({
      phase: 'watching',
      resourceVersion: '10',
      objects: 2,
    });
  });

  it('resumes a stream that ended after its end bookmark with a plain watch from the last RV', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const stream = cold('-a-B 2000ms m|', { a: added(a1), B: endBookmark('10'), m: modified(a2) });
      const next = cold<RawWatchEvent>('-');
      s = scriptedSource(ts, [], [stream, next]);
      const source = { ...s.source, streamingLists: support() };
      expectObservable(watcher(source, exact, ts), '^ 2100ms !').toBe('Ia-D 2000ms m', {
        I,
        D,
        a: initApply(a1),
        m: apply(a2),
      });
    });
    expect(s?.watchCalls[1]).toEqual({
      resourceVersion: '11',
      timeoutSeconds: 300,
      allowWatchBookmarks: true,
    });
  });

  it('relists after a 410 with a stream from the last RV: unchanged objects keep their instance, vanished ones get Delete', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    const events: WatchEvent[] = [];
    ts.run(({ cold, expectObservable }) => {
      const first = cold('-a-b-B-g', {
        a: added(a1),
        b: added(b1),
        B: endBookmark('10'),
        g: errorEvent(410, 'Expired', 'too old resource version: 10 (15)'),
      });
      // the relist: a unchanged (a fresh copy of it), b gone, c new
      const second = cold('-a-c-B', { a: added({ ...a1 }), c: added(c1), B: endBookmark('20') });
      s = scriptedSource(ts, [], [first, second]);
      const source = { ...s.source, streamingLists: support() };
      const w = watcher(source, exact, ts).pipe(tap((e) => events.push(e)));
      expectObservable(w, '^ 1000ms !').toBe('Ia-b-D 801ms Ia-c-(Dx)', {
        I,
        D,
        a: initApply(a1),
        b: initApply(b1),
        c: initApply(c1),
        x: del(b1),
      });
    });
    expect(s?.watchCalls[1]).toMatchObject({ resourceVersion: '10', sendInitialEvents: true });
    const relisted = events
      .filter((e) => e.type === 'InitApply')
      .map((e) => (e as { object: KubeObject }).object);
    // the second InitApply of `a` is the instance emitted first, not the copy the relist received
    expect(relisted[2]).toBe(relisted[0]);
  });

  it('retries a stream refused as Expired or too large from the current state (resourceVersion "")', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const first = cold('-B-g', { B: endBookmark('10'), g: errorEvent(410, 'Expired', 'too old') });
      const relist = cold('-t', {
        t: errorEvent(504, 'Timeout', 'Timeout: Too large resource version: 10, current: 4'),
      });
      const retry = cold('-a-B', { a: added(a1), B: endBookmark('30') });
      s = scriptedSource(ts, [], [first, relist, retry]);
      const source = { ...s.source, streamingLists: support() };
      expectObservable(watcher(source, exact, ts), '^ 1700ms !').toBe('ID 801ms I 800ms Ia-D', {
        I,
        D,
        a: initApply(a1),
      });
    });
    expect(s?.watchCalls.map((c) => [c.resourceVersion, c.sendInitialEvents])).toEqual([
      ['', true],
      ['10', true],
      ['', true],
    ]);
  });

  it('falls back to paged lists at once when the server refuses the stream (422), remembered and said once', () => {
    const ts = newScheduler();
    const said: string[] = [];
    const shared = support();
    let s: ReturnType<typeof scriptedSource> | undefined;
    let t: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const refused = cold<RawWatchEvent>('-#', undefined, refused422());
      const p = cold('-(p|)', { p: page([a1], '10') });
      s = scriptedSource(ts, [p], [refused]);
      const w1 = watcher(
        { ...s.source, streamingLists: shared },
        { ...exact, debug: (m) => said.push(m) },
        ts,
      );
      expectObservable(w1, '^ 10ms !').toBe('II(aD)', { I, D, a: initApply(a1) });
      // a second watcher of the same server lists page by page from the start
      const q = cold('-(p|)', { p: page([b1], '11') });
      t = scriptedSource(ts, [q], []);
      const w2 = watcher(
        { ...t.source, streamingLists: shared },
        { ...exact, debug: (m) => said.push(m) },
        ts,
      );
      expectObservable(w2, '--^ 10ms !').toBe('--I(bD)', { I, D, b: initApply(b1) });
    });
    expect(s?.watchCalls[0]?.sendInitialEvents).toBe(true);
    expect(s?.listCalls).toEqual([{ limit: 500 }]);
    expect(t?.watchCalls.every((c) => c.sendInitialEvents === undefined)).toBe(true);
    expect(shared.refusals).toHaveLength(1);
    expect(said).toEqual([
      'streaming lists (WatchList) fall back to paged lists for this server: ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
    ]);
  });

  it('falls back when a stream ends before its end bookmark (a server that ignored sendInitialEvents)', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const ignored = cold('-a-|', { a: added(a1) });
      const p = cold('-(p|)', { p: page([a1], '10') });
      s = scriptedSource(ts, [p], [ignored]);
      expectObservable(watcher({ ...s.source, streamingLists: support() }, exact, ts), '^ 10ms !').toBe(
        'Ia-I(aD)',
        { I, D, a: initApply(a1) },
      );
    });
    expect(s?.listCalls).toHaveLength(1);
  });

  it('retries the stream after backoff on a network error or 429: no fallback', () => {
    const ts = newScheduler();
    const shared = support();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const reset = cold<RawWatchEvent>(
        '-#',
        undefined,
        Object.assign(new Error('socket hang up'), { errno: 'ECONNRESET' }),
      );
      const busy = cold<RawWatchEvent>('-#', undefined, httpError(429));
      const ok = cold('-a-B', { a: added(a1), B: endBookmark('10') });
      s = scriptedSource(ts, [], [reset, busy, ok]);
      expectObservable(watcher({ ...s.source, streamingLists: shared }, exact, ts), '^ 2500ms !').toBe(
        'I 800ms I 1600ms Ia-D',
        { I, D, a: initApply(a1) },
      );
    });
    expect(shared.refusals).toEqual([]);
    expect(s?.watchCalls.every((c) => c.sendInitialEvents === true)).toBe(true);
  });

  it('does not fall back when the watch is refused (403): RBAC says nothing about streaming lists', () => {
    const ts = newScheduler();
    const shared = support();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const forbidden = cold<RawWatchEvent>('-#', undefined, httpError(403, { reason: 'Forbidden' }));
      const ok = cold('-B', { B: endBookmark('10') });
      s = scriptedSource(ts, [], [forbidden, ok]);
      expectObservable(watcher({ ...s.source, streamingLists: shared }, exact, ts), '^ 900ms !').toBe(
        'I 800ms ID',
        { I, D },
      );
    });
    expect(shared.refusals).toEqual([]);
    expect(s?.listCalls).toEqual([]);
  });

  it('never falls back when streaming is forced (streamingLists: true), and never streams when it is off', () => {
    const ts = newScheduler();
    let forced: ReturnType<typeof scriptedSource> | undefined;
    let paged: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const refused = cold<RawWatchEvent>('-#', undefined, refused422());
      const ok = cold('-B', { B: endBookmark('10') });
      forced = scriptedSource(ts, [], [refused, ok]);
      expectObservable(watcher(forced.source, { ...exact, streamingLists: true }, ts), '^ 900ms !').toBe(
        'I 800ms ID',
        { I, D },
      );
      const p = cold('-(p|)', { p: page([a1], '10') });
      paged = scriptedSource(ts, [p], []);
      const source = { ...paged.source, streamingLists: support() };
      expectObservable(watcher(source, { ...exact, streamingLists: false }, ts), '^ 10ms !').toBe('I(aD)', {
        I,
        D,
        a: initApply(a1),
      });
    });
    expect(forced?.listCalls).toEqual([]);
    expect(paged?.watchCalls[0]?.sendInitialEvents).toBeUndefined();
  });

  it('reports an object deleted before the end bookmark with a Delete right after InitDone', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const stream = cold('-a-b-d-B', { a: added(a1), b: added(b1), d: deleted(b1), B: endBookmark('10') });
      const s = scriptedSource(ts, [], [stream]);
      expectObservable(watcher({ ...s.source, streamingLists: support() }, exact, ts), '^ 10ms !').toBe(
        'Ia-b---(Dx)',
        { I, D, a: initApply(a1), b: initApply(b1), x: del(b1) },
      );
    });
  });

  it('falls back when the stream stalls before its end bookmark', () => {
    const ts = newScheduler();
    let s: ReturnType<typeof scriptedSource> | undefined;
    ts.run(({ cold, expectObservable }) => {
      const silent = cold('-a', { a: added(a1) });
      const p = cold('-(p|)', { p: page([a1], '10') });
      s = scriptedSource(ts, [p], [silent]);
      expectObservable(
        watcher({ ...s.source, streamingLists: support() }, { ...exact, idleTimeoutMs: 100 }, ts),
        '^ 110ms !',
      ).toBe('Ia 99ms I(aD)', { I, D, a: initApply(a1) });
    });
    expect(s?.listCalls).toHaveLength(1);
  });
});

describe('watcher: relists keep unchanged instances (paged)', () => {
  it('emits the cached instance for an object whose resourceVersion did not change, a new one otherwise', () => {
    const ts = newScheduler();
    const events: WatchEvent[] = [];
    ts.run(({ cold, expectObservable }) => {
      const p1 = cold('-(p|)', { p: page([a1, b1], '10') });
      const gone = cold<RawWatchEvent>('-#', undefined, httpError(410, { reason: 'Expired' }));
      const p2 = cold('-(p|)', { p: page([{ ...a1 }, cm('b', '14')], '15') });
      const s = scriptedSource(ts, [p1, p2], [gone]);
      const w = watcher(s.source, exact, ts).pipe(tap((e) => events.push(e)));
      expectObservable(w, '^ 900ms !').toBe('I(abD) 796ms I(acD)', {
        I,
        D,
        a: initApply(a1),
        b: initApply(b1),
        c: initApply(cm('b', '14')),
      });
    });
    const objects = events
      .filter((e) => e.type === 'InitApply')
      .map((e) => (e as { object: KubeObject }).object);
    expect(objects[2]).toBe(objects[0]);
    expect(objects[3]).not.toBe(objects[1]);
  });
});

describe('watcher: a kind that is not served (its CRD missing)', () => {
  it('waits, saying which kind, without counting errors or falling back, and starts once it is served', () => {
    const ts = newScheduler();
    const healths: WatcherHealth[] = [];
    const shared = support();
    ts.run(({ cold, expectObservable }) => {
      const missing = (): Error =>
        new ResourceNotFoundError('example.com/v1', 'Widget', 'the server does not serve the group-version');
      const first = cold<RawWatchEvent>('-#', undefined, missing());
      const second = cold<RawWatchEvent>('-#', undefined, missing());
      const served = cold('-a-B', { a: added(a1), B: endBookmark('10') });
      const s = scriptedSource(ts, [], [first, second, served]);
      const source = { ...s.source, streamingLists: shared };
      expectObservable(watcher(source, { ...exact, health: (h) => healths.push(h) }, ts), '^ 2500ms !').toBe(
        'I 800ms I 1600ms Ia-D',
        { I, D, a: initApply(a1) },
      );
    });
    const waiting = healths.find((h) => h.lastError?.kind === 'not-served');
    expect(waiting?.lastError?.message).toContain(
      'kind "Widget" of apiVersion "example.com/v1" is not served',
    );
    expect(waiting?.synced).toBe(false);
    expect(healths.at(-1)).toMatchObject({ synced: true, errors: 0, initialList: 'streaming' });
    expect(shared.refusals).toEqual([]);
  });
});
