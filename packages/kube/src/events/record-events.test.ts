import { InvalidArgumentError } from '@rxkube/core';
import { from, map } from 'rxjs';
import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { FinalizerEventSink } from '../finalizer/finalizer.js';
import type { KubeObject, ObjectRef } from '../types.js';
import type { Client } from '../client/client.js';
import type { Patch } from '../client/verb-options.js';
import type { CoreV1Event, EventsV1Event } from './event-types.js';
import { EventRecorder } from './event-recorder.js';
import type { EventRequest } from './event-body.js';
import { microTime, truncateNote } from './event-body.js';
import type { EventOutcome, RecordEventsOptions } from './record-events.js';
import { recordEvents } from './record-events.js';

const obj = (name: string, uid = `uid-${name}`): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { namespace: 'ns', name, uid, resourceVersion: '7' },
});
const req = (o: KubeObject, reason = 'Scaled', type: 'Normal' | 'Warning' = 'Normal'): EventRequest => ({
  regarding: o,
  type,
  reason,
  action: 'Scale',
  note: `${o.metadata.name} scaled`,
});

const base: RecordEventsOptions = {
  reportingController: 'example.com/widgets',
  reportingInstance: 'widgets-0',
  windowMs: 100,
  seriesIntervalMs: 10,
  rateLimit: { qps: 1000, burst: 1000 },
};

type Cold = (m: string, v?: Record<string, unknown>, e?: unknown) => Observable<unknown>;

/**
 * The `create` and `patch` of a `Client`, answering `cold()` observables (the recorder takes any
 * ObservableInput through `from`; TestScheduler cannot virtualise a `KubeClient`'s Promises).
 */
function fakePort(cold: Cold, ts: TestScheduler, script: { create?: unknown[]; patch?: unknown[] } = {}) {
  const calls: { at: number; verb: 'create' | 'patch'; body: unknown; ref?: ObjectRef }[] = [];
  const fake = {
    create: (event: unknown) => {
      calls.push({ at: ts.now(), verb: 'create', body: event });
      const failure = script.create?.shift();
      return failure !== undefined && failure !== 'ok'
        ? cold('-#', {}, failure)
        : cold('-(c|)', { c: event });
    },
    patch: (ref: ObjectRef, patch: Patch) => {
      // a series update is a JSON merge patch of the Event
      if (patch.type !== 'merge') throw new Error(`series update sent as a ${patch.type} patch`);
      const body = patch.body;
      calls.push({ at: ts.now(), verb: 'patch', body, ref });
      const failure = script.patch?.shift();
      return failure !== undefined && failure !== 'ok' ? cold('-#', {}, failure) : cold('-(p|)', { p: body });
    },
  };
  return { port: fake as unknown as Pick<Client, 'create' | 'patch'>, calls };
}

function short(o: EventOutcome): string {
  switch (o.type) {
    case 'created':
    case 'series':
      return `${o.type}:${o.api}:${o.count}`;
    case 'aggregated':
    case 'dropped':
      return `${o.type}:${o.count}`;
    case 'failed':
      return `failed:${o.count}`;
    case 'fallback':
      return 'fallback';
  }
}

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('recordEvents', () => {
  it('creates an events.k8s.io/v1 Event for the first occurrence', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const { port, calls } = fakePort(cold, ts);
      const out = hot('-a|', { a: req(obj('w')) }).pipe(recordEvents(port, base, ts), map(short));
      expectObservable(out).toBe('--(c|)', { c: 'created:events.k8s.io/v1:1' }); // complete waits for the write
      flush();
      expect(calls).toEqual([
        {
          at: 1,
          verb: 'create',
          body: {
            apiVersion: 'events.k8s.io/v1',
            kind: 'Event',
            metadata: { name: 'w.f4240', namespace: 'ns' }, // 1 ms = 1e6 ns = 0xf4240
            eventTime: '1970-01-01T00:00:00.001000Z',
            reportingController: 'example.com/widgets',
            reportingInstance: 'widgets-0',
            action: 'Scale',
            reason: 'Scaled',
            note: 'w scaled',
            type: 'Normal',
            regarding: {
              apiVersion: 'example.com/v1',
              kind: 'Widget',
              namespace: 'ns',
              name: 'w',
              uid: 'uid-w',
              resourceVersion: '7',
            },
          } satisfies EventsV1Event,
        },
      ]);
    });
  });

  it('folds repeats into a series: first update at once, then at most one per interval; a new Event after the window', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const { port, calls } = fakePort(cold, ts);
      const a = req(obj('w'));
      const out = hot('-a-a-a-a 112ms a|', { a }).pipe(recordEvents(port, base, ts), map(short));
      // create 1→2; a@3 → series now (3→4, count 2); a@5, a@7 → aggregated, one patch at 4+10=14 (→15, count 4);
      // a@120 is 113 ms after the last one (> window 100) → a new Event.
      expectObservable(out).toBe('--absc-d 7ms e 105ms (f|)', {
        a: 'created:events.k8s.io/v1:1',
        b: 'aggregated:2',
        s: 'series:events.k8s.io/v1:2',
        c: 'aggregated:3',
        d: 'aggregated:4',
        e: 'series:events.k8s.io/v1:4',
        f: 'created:events.k8s.io/v1:1',
      });
      flush();
      expect(calls.map((c) => [c.at, c.verb])).toEqual([
        [1, 'create'],
        [3, 'patch'],
        [14, 'patch'],
        [120, 'create'],
      ]);
      expect(calls[1]?.ref).toEqual({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        namespace: 'ns',
        name: 'w.f4240',
      });
      expect(calls[1]?.body).toEqual({ series: { count: 2, lastObservedTime: microTime(3) } });
      expect(calls[2]?.body).toEqual({ series: { count: 4, lastObservedTime: microTime(7) } });
      expect((calls[3]?.body as EventsV1Event).metadata.name).toBe(`w.${(120_000_001).toString(16)}`);
    });
  });

  it('repeats before the create is sent join it: the Event is created with its series', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const { port, calls } = fakePort(cold, ts);
      const out = hot('-(aa)|', { a: req(obj('w')) }).pipe(recordEvents(port, base, ts), map(short));
      // both occurrences at 1, the create is sent at 1 (after the synchronous burst) → 2
      expectObservable(out).toBe('-ab--|', { a: 'aggregated:2', b: 'created:events.k8s.io/v1:2' });
      flush();
      expect(calls).toHaveLength(1);
      expect((calls[0]?.body as EventsV1Event).series).toEqual({ count: 2, lastObservedTime: microTime(1) });
    });
  });

  it('keeps separate Events per object, type and reason', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, flush }) => {
      const { port, calls } = fakePort(cold, ts);
      const w = obj('w');
      hot('-abcd|', { a: req(w), b: req(obj('v')), c: req(w, 'Failed', 'Warning'), d: req(w, 'Other') })
        .pipe(recordEvents(port, base, ts))
        .subscribe();
      flush();
      expect(calls.map((c) => c.verb)).toEqual(['create', 'create', 'create', 'create']);
    });
  });

  it('a hot loop of 10 000 identical occurrences costs one write', () => {
    const ts = newScheduler();
    ts.run(({ cold, flush }) => {
      const { port, calls } = fakePort(cold, ts);
      const many = from(Array.from({ length: 10_000 }, () => req(obj('w'))));
      const out = many.pipe(recordEvents(port, base, ts), map(short));
      const outcomes: string[] = [];
      out.subscribe((o) => outcomes.push(o));
      flush();
      expect(calls.map((c) => [c.at, c.verb])).toEqual([[0, 'create']]);
      expect((calls[0]?.body as EventsV1Event).series).toEqual({
        count: 10_000,
        lastObservedTime: microTime(0),
      });
      expect(outcomes.length).toBe(10_000); // 9 999 × aggregated, 1 × created
      expect(outcomes.at(-1)).toBe('created:events.k8s.io/v1:10000');
    });
  });

  it('rate limits writes: beyond the burst, writes wait for a token', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, flush }) => {
      const { port, calls } = fakePort(cold, ts);
      hot('-(abc)|', { a: req(obj('a')), b: req(obj('b')), c: req(obj('c')) })
        .pipe(recordEvents(port, { ...base, rateLimit: { qps: 1, burst: 2 } }, ts))
        .subscribe();
      flush();
      // two tokens at once; the third is refilled 1000 ms later
      expect(calls.map((c) => [c.at, c.verb])).toEqual([
        [1, 'create'],
        [1, 'create'],
        [1001, 'create'],
      ]);
    });
  });

  it('falls back to core/v1 when events.k8s.io/v1 is not served, for this and all later Events', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const unserved = {
        _tag: 'ResourceNotFoundError',
        message: 'kind "Event" of apiVersion "events.k8s.io/v1" is not served',
      };
      const { port, calls } = fakePort(cold, ts, { create: [unserved] });
      const out = hot('-a---a--b|', { a: req(obj('w')), b: req(obj('v')) }).pipe(
        recordEvents(port, base, ts),
        map(short),
      );
      // create (v1beta… refused) 1→2; core create 2→3; repeat at 5 → core series patch 5→6; b at 8 → core create 8→9
      expectObservable(out).toBe('--fc-as--(d|)', {
        f: 'fallback',
        c: 'created:v1:1',
        a: 'aggregated:2',
        s: 'series:v1:2',
        d: 'created:v1:1',
      });
      flush();
      expect(
        calls.map((c) => [c.at, c.verb, (c.body as { apiVersion?: string }).apiVersion ?? c.ref?.apiVersion]),
      ).toEqual([
        [1, 'create', 'events.k8s.io/v1'],
        [2, 'create', 'v1'],
        [5, 'patch', 'v1'],
        [8, 'create', 'v1'],
      ]);
      expect(calls[1]?.body).toEqual({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'w.f4240', namespace: 'ns' },
        involvedObject: {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          namespace: 'ns',
          name: 'w',
          uid: 'uid-w',
          resourceVersion: '7',
        },
        reason: 'Scaled',
        message: 'w scaled',
        type: 'Normal',
        action: 'Scale',
        count: 1,
        firstTimestamp: '1970-01-01T00:00:00Z',
        lastTimestamp: '1970-01-01T00:00:00Z',
        source: { component: 'example.com/widgets' },
        reportingComponent: 'example.com/widgets',
        reportingInstance: 'widgets-0',
      } satisfies CoreV1Event);
      expect(calls[2]?.body).toEqual({ count: 2, lastTimestamp: '1970-01-01T00:00:00Z' });
    });
  });

  it('a 404 for a missing namespace is a failure, not a fallback; the next occurrence creates again', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const noNamespace = { code: 404, details: { kind: 'namespaces' } };
      const { port } = fakePort(cold, ts, { create: [noNamespace] });
      const out = hot('-a---a|', { a: req(obj('w')) }).pipe(recordEvents(port, base, ts), map(short));
      expectObservable(out).toBe('--f---(c|)', { f: 'failed:1', c: 'created:events.k8s.io/v1:1' });
    });
  });

  it('re-creates an Event whose series update got 404 (it expired on the server)', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const { port, calls } = fakePort(cold, ts, { patch: [{ code: 404 }] });
      const out = hot('-a-a---|', { a: req(obj('w')) }).pipe(recordEvents(port, base, ts), map(short));
      // create 1→2; repeat 3 → patch 3→4 fails 404 → new create 4→5 with the series so far (count 2)
      expectObservable(out).toBe('--ab-c-|', {
        a: 'created:events.k8s.io/v1:1',
        b: 'aggregated:2',
        c: 'created:events.k8s.io/v1:2',
      });
      flush();
      const recreated = calls[2]?.body as EventsV1Event;
      expect(recreated.series).toEqual({ count: 2, lastObservedTime: microTime(3) });
      expect(recreated.metadata.name).not.toBe('w.f4240');
    });
  });

  it('bounded cache: the least recently seen entry is evicted', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const { port } = fakePort(cold, ts);
      const out = hot('-ab-c-a 1000ms |', { a: req(obj('a')), b: req(obj('b')), c: req(obj('c')) }).pipe(
        recordEvents(port, { ...base, maxEntries: 2, rateLimit: { qps: 1, burst: 3 } }, ts),
        map(short),
      );
      // a, b, c created (3 tokens); c evicts a (written, nothing dropped); a again at 6 needs a token
      // (tokens 0.005 at 6 → the next one 995 ms later, at 1001) → a new Event 1001→1002; it evicts b.
      expectObservable(out).toBe('--ab-c 996ms d 4ms |', {
        a: 'created:events.k8s.io/v1:1',
        b: 'created:events.k8s.io/v1:1',
        c: 'created:events.k8s.io/v1:1',
        d: 'created:events.k8s.io/v1:1',
      });
    });
  });

  it('an entry evicted before it was written is reported dropped', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const { port } = fakePort(cold, ts);
      const out = hot('-abc 2000ms |', { a: req(obj('a')), b: req(obj('b')), c: req(obj('c')) }).pipe(
        recordEvents(port, { ...base, maxEntries: 1, rateLimit: { qps: 1, burst: 1 } }, ts),
        map(short),
      );
      // a: the only token, created 1→2. b@2 waits for a token (999 ms); c@3 evicts b before it was
      // written → dropped; c gets its token at 3 + 1998 = 2001 → created 2002.
      expectObservable(out).toBe('--ad 1998ms c-|', {
        a: 'created:events.k8s.io/v1:1',
        d: 'dropped:1',
        c: 'created:events.k8s.io/v1:1',
      });
    });
  });

  it('on complete, a pending series update is sent at once, then the output completes', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const { port, calls } = fakePort(cold, ts);
      // a@1 create, a@3 series (3→4), a@5 would wait until 14; complete at 6 sends it at 6 (→7)
      const out = hot('-a-a-a|', { a: req(obj('w')) }).pipe(recordEvents(port, base, ts), map(short));
      expectObservable(out).toBe('--abcd-(e|)', {
        a: 'created:events.k8s.io/v1:1',
        b: 'aggregated:2',
        c: 'series:events.k8s.io/v1:2',
        d: 'aggregated:3',
        e: 'series:events.k8s.io/v1:3',
      });
      flush();
      expect(calls.map((c) => c.at)).toEqual([1, 3, 6]);
    });
  });

  it('bad options throw when built', () => {
    const port = { create: () => [], patch: () => [] } as unknown as Pick<Client, 'create' | 'patch'>;
    expect(() => recordEvents(port, { ...base, reportingController: '' })).toThrow(InvalidArgumentError);
    expect(() => recordEvents(port, { ...base, windowMs: -1 })).toThrow('options.windowMs');
    expect(() => recordEvents(port, { ...base, rateLimit: { qps: 0 } })).toThrow('qps');
    expect(() => recordEvents(port, { ...base, maxEntries: 0 })).toThrow('options.maxEntries');
    expect(() => recordEvents({} as Pick<Client, 'create' | 'patch'>, base)).toThrow('client');
  });

  it('cuts notes to 1024 UTF-8 bytes without splitting characters', () => {
    const long = 'é'.repeat(2000); // 2 bytes each
    const cut = truncateNote(long);
    expect(Buffer.byteLength(cut, 'utf8')).toBeLessThanOrEqual(1024);
    expect(cut.endsWith('…')).toBe(true);
    expect(truncateNote('short')).toBe('short');
  });
});

describe('EventRecorder', () => {
  it('records through outcomes$, validates synchronously and completes after writes in flight', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { port } = fakePort(cold, ts);
      const recorder = new EventRecorder(port, base, ts);
      const asFinalizerEvents: FinalizerEventSink = recorder; // finalizer's stuck Events go straight in
      void asFinalizerEvents;
      expectObservable(recorder.outcomes$.pipe(map(short))).toBe('-a-(b|)', {
        // recorded at 0 → created at 1; recorded at 2 and completed → created at 3, then complete
        a: 'created:events.k8s.io/v1:1',
        b: 'created:events.k8s.io/v1:1',
      });
      ts.schedule(
        () => recorder.record(obj('w'), { type: 'Normal', reason: 'Scaled', action: 'Scale', note: 'x' }),
        0,
      );
      ts.schedule(() => {
        recorder.record(obj('v'), { type: 'Warning', reason: 'Failed', action: 'Scale', note: 'y' });
        recorder.complete();
      }, 2);
      expect(() =>
        recorder.record(obj('w'), { type: 'Info' as 'Normal', reason: 'R', action: 'A', note: '' }),
      ).toThrow('request.type');
      expect(() =>
        recorder.record({ metadata: { name: 'x' } }, { type: 'Normal', reason: 'R', action: 'A', note: '' }),
      ).toThrow('request.regarding');
      expect(() => recorder.record(obj('w'), { type: 'Normal', reason: '', action: 'A', note: '' })).toThrow(
        'request.reason',
      );
      expect(() =>
        recorder.record(obj('w'), { type: 'Normal', reason: 'R', action: 'A', note: 1 as unknown as string }),
      ).toThrow('request.note');
    });
  });
});
