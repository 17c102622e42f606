import { InvalidArgumentError } from '@rxkube/core';
import { map, tap } from 'rxjs';
import type { Observable, OperatorFunction } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { Client } from '../client/client.js';
import type { PatchOptions } from '../client/verb-options.js';
import type { KubeObject, ObjectRef, WatchEvent } from '../types.js';
import { applyJsonPatchForTest } from './apply-json-patch.test.helper.js';
import type { StatusSinkResult, StatusWrite } from './status-sink.js';
import type { StatusPatch } from './status-write.js';
import { StatusConflictError, statusSink } from './status-sink.js';
import { suppressOwnEcho } from './suppress-own-echo.js';
import { WriteTracker, writeId } from './write-tracker.js';

interface WStatus {
  phase?: string;
  other?: string;
  observedGeneration?: number;
}
type Widget = KubeObject<{ size: number }, WStatus>;
type Write = StatusWrite<Widget, WStatus>;
type Result = StatusSinkResult<Widget, WStatus>;

const widget = (rv: string, status?: WStatus, name = 'w'): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { namespace: 'ns', name, uid: `uid-${name}`, resourceVersion: rv, generation: 1 },
  spec: { size: 1 },
  ...(status !== undefined ? { status } : {}),
});

function applyMerge(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMerge(out[k], v);
  }
  return out;
}

/**
 * A fake API server for one or more widgets, as the `get` and `patch` of a `Client`: patches apply
 * at call time and bump the resourceVersion; responses are `cold(responseMarble)` (the sink takes
 * any ObservableInput through `from`; TestScheduler cannot virtualise the Promises a `KubeClient`
 * returns). `failures` makes the next calls fail.
 */
function fakeServer(
  cold: (m: string, v?: Record<string, unknown>, e?: unknown) => Observable<unknown>,
  initial: Widget[],
  responseMarble = '-(r|)',
) {
  const objects = new Map(initial.map((o) => [o.metadata.name ?? '', o]));
  let rv = 100;
  const patches: { ref: ObjectRef; patch: StatusPatch; options: PatchOptions | undefined }[] = [];
  const failures: unknown[] = [];
  let gets = 0;
  const fake = {
    patch: (ref: ObjectRef, patch: StatusPatch, options?: PatchOptions) => {
      patches.push({ ref, patch, options });
      const failure = failures.shift();
      if (failure !== undefined) return cold('-#', {}, failure) as Observable<Widget>;
      const current = objects.get(ref.name) as Widget;
      const next = (
        patch.type === 'json'
          ? applyJsonPatchForTest(current, patch.body)
          : patch.type === 'apply'
            ? { ...current, status: patch.body.status }
            : applyMerge(current, patch.body)
      ) as Widget;
      const written = { ...next, metadata: { ...next.metadata, resourceVersion: String(++rv) } };
      objects.set(ref.name, written);
      return cold(responseMarble, { r: written }) as Observable<Widget>;
    },
    get: (ref: ObjectRef) => {
      gets++;
      return cold('-(l|)', { l: objects.get(ref.name) }) as Observable<Widget>;
    },
  };
  return {
    client: fake as unknown as Pick<Client, 'get' | 'patch'>,
    patches,
    failures,
    objects,
    gets: () => gets,
    /** Another writer changes the object on the server. */
    otherWriter(name: string, status: WStatus) {
      const o = objects.get(name) as Widget;
      objects.set(name, { ...o, status, metadata: { ...o.metadata, resourceVersion: String(++rv) } });
    },
  };
}

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('statusSink', () => {
  it('sends no request when the object already has the desired status (whole status or recipe)', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const w = widget('1', { phase: 'Ready', observedGeneration: 1 });
      const server = fakeServer(cold, [w]);
      const a: Write = { object: w, status: { phase: 'Ready', observedGeneration: 1 } };
      const b: Write = { object: w, update: (s) => void (s.phase = 'Ready') };
      const unchanged = { type: 'unchanged' as const, requests: 0, conflicts: 0 };
      expectObservable(hot('-a-b|', { a, b }).pipe(statusSink(server.client, {}, ts))).toBe('-u-v|', {
        u: { kind: 'written', key: 'ns/w', value: a, result: unchanged },
        v: { kind: 'written', key: 'ns/w', value: b, result: unchanged },
      } satisfies Record<string, Result>);
      flush();
      expect(server.patches).toEqual([]);
    });
  });

  it('patches the status subresource with a minimal merge patch, and feeds the response back', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const w = widget('1', { phase: 'Pending', other: 'keep' });
      const server = fakeServer(cold, [w]);
      const written: Widget[] = [];
      const a: Write = { object: w, update: (s) => void (s.phase = 'Ready') };
      const out = hot('-a|', { a }).pipe(
        statusSink(server.client, { onWritten: (o) => written.push(o) }, ts),
      );
      expectObservable(out).toBe('--(r|)', {
        r: {
          kind: 'written',
          key: 'ns/w',
          value: a,
          result: {
            type: 'patched',
            object: widget('101', { phase: 'Ready', other: 'keep' }),
            patch: { type: 'merge', body: { status: { phase: 'Ready' } } },
            requests: 1,
            conflicts: 0,
          },
        },
      });
      flush();
      expect(server.patches[0]?.ref).toEqual({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        namespace: 'ns',
        name: 'w',
      });
      // through the Client's patch, on the status subresource; no field manager unless given
      expect(server.patches[0]?.options).toEqual({ subresource: 'status' });
      expect(written).toEqual([widget('101', { phase: 'Ready', other: 'keep' })]);
    });
  });

  it('json patch type sends the RFC 6902 operations of the draft (no resourceVersion test)', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, flush }) => {
      const w = widget('1', { phase: 'Pending', other: 'x' });
      const server = fakeServer(cold, [w]);
      hot('-a|', { a: { object: w, status: { phase: 'Ready' } } as Write })
        .pipe(statusSink(server.client, { patchType: 'json' }, ts))
        .subscribe();
      flush();
      expect(server.patches.map((p) => p.patch)).toEqual([
        {
          type: 'json',
          body: [
            { op: 'remove', path: '/status/other' },
            { op: 'replace', path: '/status/phase', value: 'Ready' },
          ],
        },
      ]);
      expect(server.objects.get('w')?.status).toEqual({ phase: 'Ready' });
    });
  });

  it('server-side apply: sends the whole desired status with the object identity, and nothing when unchanged', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, flush }) => {
      const w = widget('1', { phase: 'Pending', other: 'x' });
      const server = fakeServer(cold, [w]);
      hot('-a--b|', {
        a: { object: w, status: { phase: 'Ready' } } as Write,
        // b arrives after a was written (frame 2): same desired status → no request
        b: { object: w, status: { phase: 'Ready' } } as Write,
      })
        .pipe(statusSink(server.client, { patchType: 'apply' }, ts))
        .subscribe();
      flush();
      // the controller owns its status: apply forces, as rxkube when no field manager is given
      expect(server.patches.map((p) => p.options)).toEqual([
        { subresource: 'status', fieldManager: 'rxkube', force: true },
      ]);
      expect(server.patches.map((p) => p.patch)).toEqual([
        {
          type: 'apply',
          body: {
            apiVersion: w.apiVersion,
            kind: w.kind,
            metadata: { name: w.metadata.name, namespace: w.metadata.namespace },
            status: { phase: 'Ready' },
          },
        },
      ]);
      expect(server.objects.get('w')?.status).toEqual({ phase: 'Ready' });
    });
  });

  it('latest wins per key: a waiting write is superseded, the last one is written after the one in flight', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const w = widget('1', { phase: 'A' });
      const server = fakeServer(cold, [w], '---(r|)');
      const v: Record<string, Write> = {
        a: { object: w, status: { phase: 'B' } },
        b: { object: w, status: { phase: 'C' } },
        c: { object: w, status: { phase: 'D' } },
      };
      const out = hot('-abc-----|', v).pipe(statusSink(server.client, {}, ts));
      // a runs 1→4; b parked at 2, replaced by c at 3 (superseded); c runs 4→7.
      expectObservable(out.pipe(mapKind())).toBe('---sA--C-|', {
        s: 'superseded:C',
        A: 'written:patched:B',
        C: 'written:patched:D',
      });
      flush();
      expect(server.patches.map((p) => p.patch.body)).toEqual([
        { status: { phase: 'B' } },
        { status: { phase: 'D' } },
      ]);
      expect(server.objects.get('w')?.status).toEqual({ phase: 'D' });
    });
  });

  it('limits writes in flight across objects to `concurrency`', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const v = widget('1', { phase: 'A' }, 'v');
      const w = widget('1', { phase: 'A' }, 'w');
      const server = fakeServer(cold, [v, w], '---(r|)');
      const out = hot('-ab|', {
        a: { object: v, status: { phase: 'B' } } as Write,
        b: { object: w, status: { phase: 'B' } } as Write,
      }).pipe(statusSink(server.client, { concurrency: 1 }, ts), mapKind());
      // v written 1→4, then w 4→7
      expectObservable(out).toBe('----a--(b|)', { a: 'written:patched:B', b: 'written:patched:B' });
      flush();
      expect(server.patches.map((p) => p.ref.name)).toEqual(['v', 'w']);
    });
  });

  it('never writes the same desired content twice: a write computed from the pre-write object uses the response', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const w = widget('1', { phase: 'A' });
      const server = fakeServer(cold, [w], '---(r|)');
      const a: Write = { object: w, status: { phase: 'B' } };
      const again: Write = { object: w, status: { phase: 'B' } }; // reconciled again from the stale Store copy
      const out = hot('-a-b----b|', { a, b: again }).pipe(statusSink(server.client, {}, ts), mapKind());
      // a in flight 1→4; b parked at 3 runs at 4 against a's response: unchanged; b again at 8: unchanged.
      expectObservable(out).toBe('----(Au)u|', { A: 'written:patched:B', u: 'written:unchanged:0' });
      flush();
      expect(server.patches).toHaveLength(1);
    });
  });

  it('on 409 waits, reads the latest object, recomputes against it and retries', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const w = widget('1', { phase: 'Pending' });
      const server = fakeServer(cold, [w]);
      server.failures.push({ code: 409 });
      server.otherWriter('w', { phase: 'Pending', other: 'theirs' });
      const a: Write = { object: w, status: { phase: 'Ready' } };
      const out = hot('-a|', { a }).pipe(statusSink(server.client, { conflictBackoff: { baseMs: 10 } }, ts));
      // PATCH at 1 → 409 at 2; backoff 10 → GET at 12, latest at 13; PATCH at 13 → response at 14.
      expectObservable(out.pipe(mapKind(true))).toBe('14ms (r|)', { r: 'written:patched:Ready:2:1' });
      flush();
      expect(server.gets()).toBe(1);
      expect(server.patches.map((p) => p.patch.body)).toEqual([
        { status: { phase: 'Ready' } },
        { status: { phase: 'Ready', other: null } }, // recomputed against the latest object
      ]);
    });
  });

  it('after a 409, an object that already has the desired status is not written again', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const w = widget('1', { phase: 'Pending' });
      const server = fakeServer(cold, [w]);
      server.failures.push({ code: 409 });
      server.otherWriter('w', { phase: 'Ready' });
      const out = hot('-a|', { a: { object: w, update: (s) => void (s.phase = 'Ready') } as Write });
      expectObservable(out.pipe(statusSink(server.client, {}, ts), mapKind(true))).toBe('13ms (u|)', {
        u: 'written:unchanged:1:1',
      });
    });
  });

  it('gives up after maxAttempts conflicts with a StatusConflictError (backoff doubles)', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const w = widget('1', { phase: 'Pending' });
      const server = fakeServer(cold, [w]);
      server.failures.push({ code: 409 }, { code: 409 }, { code: 409 });
      const out = hot('-a|', { a: { object: w, status: { phase: 'Ready' } } as Write }).pipe(
        statusSink(server.client, { maxAttempts: 3, conflictBackoff: { baseMs: 10, maxMs: 15 } }, ts),
      );
      const results: Result[] = [];
      // 409 at 2; +10 → GET 12, PATCH 13, 409 at 14; +15 (capped from 20) → GET 29, PATCH 30, 409 at 31.
      expectObservable(
        out.pipe(
          tap((r) => results.push(r)),
          mapKind(),
        ),
      ).toBe('31ms (f|)', {
        f: 'failed:StatusConflictError',
      });
      flush();
      const failed = results[0];
      expect(failed?.kind === 'failed' && failed.error).toBeInstanceOf(StatusConflictError);
      expect(failed?.kind === 'failed' && (failed.error as StatusConflictError).attempts).toBe(3);
    });
  });

  it('other errors fail at once, unwrapped, without a retry', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const w = widget('1', { phase: 'Pending' });
      const server = fakeServer(cold, [w]);
      const notFound = { code: 404, reason: 'NotFound' };
      server.failures.push(notFound);
      const a: Write = { object: w, status: { phase: 'Ready' } };
      expectObservable(hot('-a|', { a }).pipe(statusSink(server.client, {}, ts))).toBe('--(f|)', {
        f: { kind: 'failed', key: 'ns/w', value: a, error: notFound },
      });
      flush();
      expect(server.gets()).toBe(0);
    });
  });

  it('an object without apiVersion/kind fails with a message saying what to set', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, flush }) => {
      const server = fakeServer(cold, []);
      const results: Result[] = [];
      const bare = { metadata: { namespace: 'ns', name: 'x' } } as Widget;
      hot('-a|', { a: { object: bare, status: { phase: 'x' } } as Write })
        .pipe(statusSink(server.client, {}, ts))
        .subscribe((r) => results.push(r));
      flush();
      expect(results[0]?.kind === 'failed' && String(results[0].error)).toContain(
        'must carry apiVersion and kind',
      );
    });
  });

  it('refuses bad options when built', () => {
    const client = { patch: () => [], get: () => [] } as unknown as Pick<Client, 'get' | 'patch'>;
    expect(() => statusSink(client, { maxAttempts: 0 })).toThrow(InvalidArgumentError);
    expect(() => statusSink(client, { patchType: 'put' as 'json' })).toThrow('options.patchType');
    expect(() => statusSink(client, { concurrency: 0 })).toThrow('concurrency');
    expect(() => statusSink(client, { conflictBackoff: { baseMs: -1 } })).toThrow('conflictBackoff.baseMs');
    expect(() => statusSink(client, { fieldManager: '' })).toThrow('options.fieldManager');
    expect(() => statusSink({} as Pick<Client, 'get' | 'patch'>)).toThrow('client');
  });
});

describe('suppressOwnEcho', () => {
  it('drops the watch event of our own write once, passes other writers and forgets on Delete', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable, flush }) => {
      const w = widget('1', { phase: 'A' });
      const server = fakeServer(cold, [w]);
      const tracker = new WriteTracker({}, ts);
      const written = widget('101', { phase: 'B' });
      const other = widget('102', { phase: 'C' });
      hot('-a|', { a: { object: w, status: { phase: 'B' } } as Write })
        .pipe(statusSink(server.client, { tracker }, ts))
        .subscribe();
      const events: Record<string, WatchEvent<Widget>> = {
        e: { type: 'Apply', object: written }, // our echo (response resourceVersion 101)
        o: { type: 'Apply', object: other }, // someone else
        i: { type: 'InitApply', object: written },
        d: { type: 'Delete', object: other },
      };
      // the write's response arrives at 2; the echo at 4 is dropped, a replay at 6 is not an echo any more
      expectObservable(hot('----e-eoid', events).pipe(suppressOwnEcho(tracker))).toBe('------eoid', events);
      flush();
      expect(tracker.size).toBe(0); // released when the echo of the latest write was taken
    });
  });

  it('remembers several writes in a row before their echoes arrive', () => {
    const ts = newScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const w = widget('1', { phase: 'A' });
      const server = fakeServer(cold, [w]);
      const tracker = new WriteTracker({}, ts);
      hot('-ab|', {
        a: { object: w, status: { phase: 'B' } } as Write,
        b: { object: w, status: { phase: 'C' } } as Write,
      })
        .pipe(statusSink(server.client, { tracker }, ts))
        .subscribe();
      const events: Record<string, WatchEvent<Widget>> = {
        x: { type: 'Apply', object: widget('101', { phase: 'B' }) },
        y: { type: 'Apply', object: widget('102', { phase: 'C' }) },
      };
      expectObservable(hot('-----xy', events).pipe(suppressOwnEcho(tracker))).toBe('-------');
    });
  });
});

describe('WriteTracker', () => {
  it('is bounded: entries expire after ttlMs and the oldest is evicted over maxObjects', () => {
    const ts = newScheduler();
    ts.run(() => {
      const own = new WriteTracker({ maxObjects: 2, ttlMs: 100 }, ts);
      own.recorded(widget('1', {}, 'a'), widget('2', {}, 'a'));
      own.recorded(widget('1', {}, 'b'), widget('2', {}, 'b'));
      own.recorded(widget('1', {}, 'c'), widget('2', {}, 'c'));
      expect(own.size).toBe(2);
      expect(own.takeEcho(widget('2', {}, 'a'))).toBeUndefined(); // evicted
      expect(own.latest(widget('1', {}, 'b'))).toEqual(widget('2', {}, 'b'));
      ts.schedule(() => expect(own.size).toBe(2), 99);
      ts.schedule(() => expect(own.size).toBe(0), 100);
      ts.flush();
    });
  });

  it('records nothing when the server did not change the object, and releases an entry on its latest echo', () => {
    const own = new WriteTracker();
    own.recorded(widget('5'), widget('5'));
    expect(own.size).toBe(0);
    own.recorded(widget('5'), widget('6'));
    expect(own.takeEcho(widget('6'))).toEqual({ writer: undefined });
    expect(own.size).toBe(0);
    expect(own.takeEcho(widget('6'))).toBeUndefined();
  });

  it('keeps a deleting object our write answered with an unchanged resourceVersion as stale (packages/testing/fixtures/kube-wire/13-finalizers.json #7)', () => {
    const own = new WriteTracker();
    const deleting = {
      ...widget('7'),
      metadata: { ...widget('7').metadata, deletionTimestamp: 't', finalizers: ['x/y'] },
    };
    const removed = { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } };
    own.recorded(deleting, removed, 'ns/w');
    expect(own.latest(deleting)).toBe(removed);
    expect(own.takeEcho(deleting)).toBeUndefined(); // no echo expected for an unchanged version
    own.forget(deleting); // its Delete
    expect(own.latest(deleting)).toBe(deleting);
  });

  it('names the writer of an echo, recognises our deletes, and ignores a re-created object (another uid)', () => {
    const own = new WriteTracker();
    own.recorded(widget('1'), widget('2'), 'ns/owner');
    const recreated = { ...widget('2'), metadata: { ...widget('2').metadata, uid: 'other' } };
    expect(own.takeEcho(recreated)).toBeUndefined();
    expect(
      own.latest({ ...widget('1'), metadata: { ...widget('1').metadata, uid: 'other' } }).metadata
        .resourceVersion,
    ).toBe('1');
    expect(own.takeEcho(widget('2'))).toEqual({ writer: 'ns/owner' });
    own.deleted(widget('2'), 'ns/owner');
    expect(
      own.pending({ apiVersion: 'example.com/v1', kind: 'Widget' }, { namespace: 'ns', name: 'w' }),
    ).toEqual({
      deleted: true,
      older: ['2'],
    });
    expect(own.takeDeleteEcho(widget('3'))).toEqual({ writer: 'ns/owner' });
    expect(own.size).toBe(0);
    own.recorded(widget('1'), widget('2'));
    expect(own.takeDeleteEcho(widget('3'))).toBeUndefined(); // someone else deleted it: not ours
  });

  it('counts writes in flight per object and tells when the last one settled', () => {
    const ts = newScheduler();
    const settled: string[] = [];
    ts.run(({ cold, expectObservable }) => {
      const own = new WriteTracker({}, ts);
      own.settled$.subscribe((id) => settled.push(`${ts.now()}:${id}`));
      const id = writeId({ apiVersion: 'example.com/v1', kind: 'Widget' }, { namespace: 'ns', name: 'w' });
      expectObservable(own.track(id, () => cold('--(a|)', { a: 1 }))).toBe('--(a|)', { a: 1 });
      expectObservable(own.track(id, () => cold('----(b|)', { b: 2 }))).toBe('----(b|)', { b: 2 });
      ts.schedule(() => expect(own.busy(id)).toBe(true), 3);
      ts.schedule(() => expect(own.busy(id)).toBe(false), 5);
    });
    expect(settled).toEqual(['4:example.com/Widget/ns/w']);
  });

  it('refuses bad options', () => {
    expect(() => new WriteTracker({ maxObjects: 0 })).toThrow(InvalidArgumentError);
    expect(() => new WriteTracker({ ttlMs: Number.NaN })).toThrow('options.ttlMs');
  });
});

/** Results as short strings: `kind:type:phase[:requests:conflicts]`. */
function mapKind(withCounts = false): OperatorFunction<Result, string> {
  return map((r) => {
    if (r.kind === 'superseded')
      return `superseded:${'status' in r.value ? (r.value.status.phase ?? '') : ''}`;
    if (r.kind === 'failed') return `failed:${(r.error as Error).name}`;
    const counts = withCounts ? `:${r.result.requests}:${r.result.conflicts}` : '';
    if (r.result.type === 'unchanged')
      return `written:unchanged${withCounts ? counts : `:${r.result.requests}`}`;
    return `written:patched:${r.result.object.status?.phase ?? ''}${counts}`;
  });
}
