/**
 * Issue 12 §2 / docs/promises.md promise 11 in marbles: every hook that runs user code fails only the key
 * or object it ran for — logged once with controller, key and hook, counted, retried with backoff
 * where a retry can help — and the controller keeps running for every other key.
 */
import { Action } from '@rxkube/core';
import type { Observable } from 'rxjs';
import { filter, map, NEVER, of } from 'rxjs';
import { testScheduler } from '@rxkube/testing/vitest';
import { ScriptedWatchRegistry, watchEvent } from '@rxkube/testing/controller';
import { describe, expect, it } from 'vitest';

import { EventRecorder } from '../events/event-recorder.js';
import { marbleClient } from '../client/marble-client.test.helper.js';
import type { KubeObject, WatchEvent } from '../types.js';
import type { UserCodeHook } from '../user-code-error.js';
import type { ControllerLogger, ControllerOptions, ControllerResult } from './controller.js';
import { controller } from './controller.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const I: WatchEvent = watchEvent.init();
const D: WatchEvent = watchEvent.initDone();

function obj(name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'ns', name, uid: `uid-${name}`, resourceVersion: rv, ...extra },
  };
}
const ia = (object: KubeObject): WatchEvent => ({ type: 'InitApply', object });
const short = (r: ControllerResult): string =>
  `${r.key}:${r.outcome}${r.hook !== undefined ? `:${r.hook}` : ''}${r.retryInMs !== undefined ? `@${r.retryInMs}` : ''}`;

/** A logger and an observer that record what the controller reports. */
function recorder() {
  const lines: { level: string; message: string; fields: Readonly<Record<string, unknown>> }[] = [];
  const counted: UserCodeHook[] = [];
  const log: ControllerLogger = {
    warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => lines.push({ level: 'error', message, fields }),
  };
  return { lines, counted, log, observer: { userCodeError: (hook: UserCodeHook) => counted.push(hook) } };
}

function options(
  streams: Record<string, Observable<WatchEvent>>,
  extra: Partial<ControllerOptions<KubeObject>>,
): ControllerOptions<KubeObject> {
  return {
    for: CM,
    name: 'test',
    registry: new ScriptedWatchRegistry(streams),
    rateLimit: false,
    random: () => 0,
    ...extra,
  };
}

describe('controller: user code is isolated (issue 12 §2)', () => {
  it('a map that throws for one object fails only that object: counted per failure, logged once per streak, retried with backoff, the others mapped', () => {
    const ts = testScheduler();
    const r = recorder();
    const infos: string[] = [];
    let failures = 2;
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', { I, D, a: ia(obj('a', '1')), b: ia(obj('b', '1')) });
      const secrets = hot<WatchEvent>('(ID)-x-y', {
        I,
        D,
        x: { type: 'Apply', object: { metadata: { namespace: 'ns', name: 'bad', labels: { to: 'a' } } } },
        y: { type: 'Apply', object: { metadata: { namespace: 'ns', name: 'good', labels: { to: 'b' } } } },
      });
      const results$ = controller(
        options(
          { ConfigMap: primary, Secret: secrets },
          {
            log: { ...r.log, info: (message) => infos.push(message) },
            observer: r.observer,
            watches: [
              {
                resource: SECRET,
                map: (o) => {
                  if (o.metadata.name === 'bad' && failures-- > 0) throw new Error('no target label');
                  return [{ namespace: 'ns', name: o.metadata.labels?.['to'] ?? '' }];
                },
              },
            ],
          },
        ),
        ts,
      ).run(() => cold('(d|)', { d: Action.awaitChange() }));
      // bad fails at 5 (retry at 10), at 10 (retry at 20), maps at 20 → a; good maps at 7 → b
      expectObservable(results$.pipe(map(short)), '^ 40ms !').toBe('(ab)---b------------a', {
        a: 'ns/a:success',
        b: 'ns/b:success',
      });
    });
    expect(r.counted).toEqual(['map', 'map']);
    // one line for the streak of two failures (issue 19 §5), one when it recovered
    expect(r.lines.map((l) => [l.level, l.fields['controller'], l.fields['key'], l.fields['hook']])).toEqual([
      ['error', 'test', 'ns/bad', 'map'],
    ]);
    expect(infos).toEqual(['map succeeded again for "ns/bad" after 2 failure(s)']);
    expect(r.lines[0]?.message).toMatch(/^map threw for controller test, "ns\/bad": no target label/);
  });

  it('a predicate that throws lets its object through (reported) and keeps filtering the next ones', () => {
    const ts = testScheduler();
    const r = recorder();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)-x-y-z', {
        I,
        D,
        a: ia(obj('a', '1')),
        x: { type: 'Apply', object: obj('a', '2', { labels: { boom: 'yes' } }) },
        y: { type: 'Apply', object: obj('a', '3', { labels: { skip: 'yes' } }) },
        z: { type: 'Apply', object: obj('a', '4') },
      });
      const picky = filter<KubeObject>((o) => {
        if (o.metadata.labels?.['boom'] !== undefined) throw new Error('cannot judge');
        return o.metadata.labels?.['skip'] === undefined;
      });
      const results$ = controller(
        options({ ConfigMap: primary }, { log: r.log, observer: r.observer, predicates: [picky] }),
        ts,
      ).run(() => cold('(d|)', { d: Action.awaitChange() }));
      // x throws in the predicate → let through at 6; y filtered; z passes at 10
      expectObservable(results$.pipe(map(short)), '^ 20ms !').toBe('a-----a---a', { a: 'ns/a:success' });
    });
    expect(r.counted).toEqual(['predicate']);
    expect(r.lines.map((l) => l.fields['key'])).toEqual(['ns/a']);
  });

  it('a declared indexer that throws leaves that object out of the index (reported), and the Store whole', () => {
    const ts = testScheduler();
    const r = recorder();
    const indexed: string[][] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', { I, D, a: ia(obj('a', '1')), b: ia(obj('b', '1')) });
      const results$ = controller(
        options(
          { ConfigMap: primary },
          {
            log: r.log,
            observer: r.observer,
            indexes: {
              letter: (o) => {
                if (o.metadata.name === 'b') throw new Error('no letter');
                return ['x'];
              },
            },
          },
        ),
        ts,
      ).run((_req, ctx) => {
        indexed.push(
          ctx.cache.list(CM, { matchingFields: { letter: 'x' } }).map((o) => o.metadata.name ?? ''),
        );
        return cold('(d|)', { d: Action.awaitChange() });
      });
      expectObservable(results$.pipe(map(short)), '^ 5ms !').toBe('(ab)', {
        a: 'ns/a:success',
        b: 'ns/b:success',
      });
    });
    expect(indexed).toEqual([['a'], ['a']]);
    expect(r.counted).toEqual(['indexer']);
    expect(r.lines.map((l) => [l.fields['controller'], l.fields['key'], l.fields['hook']])).toEqual([
      ['test', 'ns/b', 'indexer'],
    ]);
  });

  it('a reconcile that throws synchronously or returns nothing fails only its key, with backoff; logged once', () => {
    const ts = testScheduler();
    const r = recorder();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabcD)', {
        I,
        D,
        a: ia(obj('a', '1')),
        b: ia(obj('b', '1')),
        c: ia(obj('c', '1')),
      });
      let bCalls = 0;
      const results$ = controller(
        options({ ConfigMap: primary }, { log: r.log, observer: r.observer }),
        ts,
      ).run((req) => {
        if (req.name === 'a') throw new TypeError('x is undefined');
        if (req.name === 'b' && bCalls++ === 0) return undefined as never;
        return cold('(d|)', { d: Action.awaitChange() });
      });
      // a fails at 0 and at 5 (@5, @10); b returned nothing at 0 (@5), succeeds at 5
      expectObservable(results$.pipe(map(short)), '^ 7ms !').toBe('(xbc)(zy)', {
        x: 'ns/a:error:reconcile@5',
        b: 'ns/b:error:reconcile@5',
        c: 'ns/c:success',
        z: 'ns/a:error:reconcile@10',
        y: 'ns/b:success',
      });
    });
    expect(r.counted).toEqual(['reconcile', 'reconcile', 'reconcile']);
    expect(r.lines).toHaveLength(3); // once per failure: the result line, no second line
    const first = r.lines[0];
    expect(first?.level).toBe('warn');
    expect(first?.message).toMatch(
      /reconcile of "ns\/a" failed: UserCodeError: reconcile threw for controller test, "ns\/a": TypeError: x is undefined/,
    );
    expect(first?.fields['hook']).toBe('reconcile');
    expect(r.lines.filter((l) => l.fields['key'] === 'ns/b')[0]?.message).toMatch(
      /the reconcile returned nothing/,
    );
  });

  it('a finalizer cleanup or a status recipe that throws fails only its key, named by its hook, and is retried', () => {
    const ts = testScheduler();
    const r = recorder();
    const deleting = obj('gone', '1', { deletionTimestamp: 't', finalizers: ['example.com/f'] });
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IagD)', {
        I,
        D,
        a: ia(obj('a', '1', { finalizers: ['example.com/f'] })),
        g: ia(deleting),
      });
      // the finalizer's patch answers; a status patch never does (the recipe throws before it)
      const client = marbleClient({
        patch: (_ref, _patch, o) =>
          o?.subresource === 'status' ? NEVER : cold('(r|)', { r: obj('gone', '2') }),
        get: () => NEVER,
      });
      let cleanups = 0;
      const results$ = controller(
        options(
          { ConfigMap: primary },
          {
            log: r.log,
            observer: r.observer,
            client,
            status: {},
            finalizer: {
              name: 'example.com/f',
              cleanup: () => {
                if (cleanups++ === 0) throw new Error('bucket client not configured');
                return of(true);
              },
            },
          },
        ),
        ts,
      ).run((_req, ctx) =>
        ctx
          .status(() => {
            throw new Error('status.conditions is undefined');
          })
          .pipe(map(() => Action.awaitChange())),
      );
      // both fail at 0 (@5); at 5 the status recipe fails again (@10), the cleanup succeeds
      expectObservable(results$.pipe(map(short)), '^ 7ms !').toBe('(sc)-(tg)', {
        s: 'ns/a:error:status@5',
        c: 'ns/gone:error:cleanup@5',
        t: 'ns/a:error:status@10',
        g: 'ns/gone:success',
      });
    });
    expect(r.counted).toEqual(['status', 'cleanup', 'status']);
    expect(r.lines.map((l) => l.fields['hook'])).toEqual(['status', 'cleanup', 'status']);
  });

  it('an Event that cannot be built fails only the reconcile that recorded it', () => {
    const ts = testScheduler();
    const r = recorder();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', { I, D, a: ia(obj('a', '1')), b: ia(obj('b', '1')) });
      const events = new EventRecorder(
        marbleClient({ create: () => NEVER, patch: () => NEVER }),
        { reportingController: 'example.com/test', reportingInstance: 'test-0' },
        ts,
      );
      const results$ = controller(options({ ConfigMap: primary }, { log: r.log, recorder: events }), ts).run(
        (req, ctx) => {
          if (req.name === 'a')
            ctx.record({ type: 'Sideways' as 'Normal', reason: '', action: '', note: '' });
          return cold('(d|)', { d: Action.awaitChange() });
        },
      );
      expectObservable(results$.pipe(map(short)), '^ 3ms !').toBe('(ab)', {
        a: 'ns/a:error:record@5',
        b: 'ns/b:success',
      });
    });
  });
});
