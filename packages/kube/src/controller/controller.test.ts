import { Action, generationChanged, InvalidArgumentError, TerminalError } from '@rxkube/core';
import { ScriptedWatchRegistry, stubClient, testObject, watchEvent } from '@rxkube/testing/controller';
import { testScheduler } from '@rxkube/testing/vitest';
import type { Observable } from 'rxjs';
import { defer, map, NEVER, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';

import type { WatchRegistry, WatchTarget } from '../reflector/watch-registry.js';
import type { KubeObject, WatchEvent } from '../types.js';
import type {
  ControllerLogger,
  ControllerOptions,
  ControllerResult,
  ReconcileContext,
} from './controller.js';
import { ControllerMetrics } from '../ops/metrics.js';
import { controller } from './controller.js';

// Reconciles in these tests do not talk to a server: a stub client answers (and records) them.
const client = stubClient();

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

function obj(name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}, ns = 'ns'): KubeObject {
  return testObject(`${ns}/${name}`, { resourceVersion: rv, ...extra });
}
const ownedBy = (owner: string, controllerRef = true, kind = 'ConfigMap', apiVersion = 'v1') => ({
  ownerReferences: [{ apiVersion, kind, name: owner, uid: `uid-${owner}`, controller: controllerRef }],
});

const I = watchEvent.init();
const D = watchEvent.initDone();

/** `key:outcome` letters for expectObservable. */
const short = (r: ControllerResult): string => `${r.key}:${r.outcome}`;

function base(
  registry: WatchRegistry,
  extra: Partial<ControllerOptions<KubeObject>> = {},
): ControllerOptions<KubeObject> {
  return { for: CM, client, registry, rateLimit: false, random: () => 0, log: {}, ...extra };
}

describe('controller (marbles, fake watches)', () => {
  it('coalesces events that arrive during a reconcile into one rerun with the latest object', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const a1 = obj('a', '1');
      const primary = hot<WatchEvent>('(IxD)-uv', {
        I,
        x: { type: 'InitApply', object: a1 },
        D,
        u: { type: 'Apply', object: obj('a', '2') },
        v: { type: 'Apply', object: obj('a', '3') },
      });
      const calls: [number, string | undefined][] = [];
      const results$ = controller(base(new ScriptedWatchRegistry({ ConfigMap: primary })), ts).run(
        (_req, ctx) => {
          calls.push([ts.now(), ctx.object.metadata.resourceVersion]);
          return cold('--------(d|)', { d: Action.awaitChange() });
        },
      );
      // first reconcile 0–8 (rv 1); u at 6 and v at 7 coalesce into one rerun 8–16 with rv 3
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('--------s-------s', {
        s: 'ns/a:success',
      });
      ts.flush();
      expect(calls).toEqual([
        [0, '1'],
        [8, '3'],
      ]);
    });
  });

  it('reconciles a request object its sender reuses and changes under each name it gave', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', {
        I,
        a: { type: 'InitApply', object: obj('a', '1') },
        b: { type: 'InitApply', object: obj('b', '1') },
        D,
      });
      // one object, renamed before each emission (the debounce and the applier key it in turn)
      const ref: { apiVersion: string; kind: string; namespace: string; name: string } = {
        ...CM,
        namespace: 'ns',
        name: '',
      };
      const more = hot('----a---b').pipe(
        map((name) => {
          ref.name = name;
          return ref;
        }),
      );
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), { reconcileOn: more }),
        ts,
      ).run(() => cold('(d|)', { d: Action.awaitChange() }));
      expectObservable(results$.pipe(map(short)), '^ 20ms !').toBe('(xy)a---b', {
        x: 'ns/a:success',
        y: 'ns/b:success',
        a: 'ns/a:success',
        b: 'ns/b:success',
      });
    });
  });

  it('on shutdown stops intake, lets the reconcile in flight finish, drops its queued rerun, then completes', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IxD)-u--b-----c', {
        I,
        x: { type: 'InitApply', object: obj('a', '1') },
        D,
        u: { type: 'Apply', object: obj('a', '2') },
        b: { type: 'Apply', object: obj('b', '1') },
        c: { type: 'Apply', object: obj('c', '1') },
      });
      const shutdown = hot('    ---s');
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), { shutdown }),
        ts,
      ).run(() => cold('--------(d|)', { d: Action.awaitChange() }));
      // a runs 0–8; u at 2 queues a rerun; shutdown at 3: b (6) and c (12) are never taken, the
      // queued rerun is dropped (controller-runtime's queue shutdown); complete when a finished.
      expectObservable(results$.pipe(map(short))).toBe('--------(a|)', { a: 'ns/a:success' });
    });
  });

  it('does not start a reconcile once shutdown emitted before any trigger, and completes', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const primary = hot<WatchEvent>('--(IxD)', { I, x: { type: 'InitApply', object: obj('a', '1') }, D });
      const shutdown = hot('-s');
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), { shutdown }),
        ts,
      ).run(() => NEVER);
      expectObservable(results$.pipe(map(short))).toBe('-|');
    });
  });

  it('maps an owned child event to its controller owner, ignoring non-controller and foreign owners', () => {
    const ts = testScheduler();
    let targets: readonly WatchTarget[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IpqD)', {
        I,
        p: { type: 'InitApply', object: obj('p', '1') },
        q: { type: 'InitApply', object: obj('q', '1') },
        D,
      });
      const secrets = hot<WatchEvent>('(ID)----a-b-c-d-e', {
        I,
        D,
        a: { type: 'Apply', object: obj('child', '5', ownedBy('p')) },
        b: { type: 'Apply', object: obj('other', '6', ownedBy('q', false)) }, // not the controller
        c: { type: 'Apply', object: obj('w', '7', ownedBy('q', true, 'Widget', 'example.com/v1')) }, // other kind
        d: { type: 'Delete', object: obj('child2', '8', ownedBy('q', true, 'ConfigMap', 'v1')) },
        e: { type: 'Apply', object: obj('orphan', '9') },
      });
      const registry = new ScriptedWatchRegistry({ ConfigMap: primary, Secret: secrets });
      targets = registry.targets;
      const results$ = controller(base(registry, { owns: [SECRET] }), ts).run(() =>
        cold('(d|)', { d: Action.awaitChange() }),
      );
      // initial p and q at 0; child of p at 8 → p; child2 of q deleted at 14 → q
      expectObservable(results$.pipe(map(short)), '^ 20ms !').toBe('(pq)----p-----q', {
        p: 'ns/p:success',
        q: 'ns/q:success',
      });
    });
    expect(targets).toContainEqual({ resource: SECRET }); // owns caches full objects (issue 14)
  });

  it('gives the reconcile its children from the owner index, and refuses resources it does not own', () => {
    const ts = testScheduler();
    const seen: string[][] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IpD)', { I, p: { type: 'InitApply', object: obj('p', '1') }, D });
      const secrets = hot<WatchEvent>('(IabD)', {
        I,
        a: { type: 'InitApply', object: obj('s1', '2', ownedBy('p')) },
        b: { type: 'InitApply', object: obj('s2', '3', ownedBy('zz')) },
        D,
      });
      const registry = new ScriptedWatchRegistry({ ConfigMap: primary, Secret: secrets });
      const results$ = controller(base(registry, { owns: [SECRET] }), ts).run(
        (_r, ctx: ReconcileContext<KubeObject>) => {
          seen.push(ctx.owned(SECRET).map((o) => o.metadata.name ?? ''));
          expect(() => ctx.owned({ apiVersion: 'apps/v1', kind: 'Deployment' })).toThrow(
            InvalidArgumentError,
          );
          return cold('(d|)', { d: Action.awaitChange() });
        },
      );
      // s2's controller owner zz is not in the Store: its request is skipped
      expectObservable(results$.pipe(map(short)), '^ 5ms !').toBe('(pz)', {
        p: 'ns/p:success',
        z: 'ns/zz:skipped',
      });
    });
    // p's own list trigger and its child's arrive in the same tick: one reconcile (issue 12 §1)
    expect(seen).toEqual([['s1']]);
  });

  it('maps events of a mapped watch through map(object)', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', {
        I,
        a: { type: 'InitApply', object: obj('a', '1') },
        b: { type: 'InitApply', object: obj('b', '1') },
        D,
      });
      const secrets = hot<WatchEvent>('(ID)---x------y', {
        I,
        D,
        x: { type: 'Apply', object: obj('s', '2', { labels: { targets: 'a,b' } }) },
        y: { type: 'Delete', object: obj('s', '3', { labels: { targets: 'b' } }) },
      });
      const registry = new ScriptedWatchRegistry({ ConfigMap: primary, Secret: secrets });
      const results$ = controller(
        base(registry, {
          watches: [
            {
              resource: SECRET,
              map: (o) =>
                (o.metadata.labels?.['targets'] ?? '').split(',').map((name) => ({ namespace: 'ns', name })),
            },
          ],
        }),
        ts,
      ).run(() => cold('(d|)', { d: Action.awaitChange() }));
      expectObservable(results$.pipe(map(short)), '^ 20ms !').toBe('(ab)---(ab)---b', {
        a: 'ns/a:success',
        b: 'ns/b:success',
      });
    });
  });

  it('storeOf reaches each of two watches of one kind by its ControllerWatch, and refuses the ambiguous kind', () => {
    const ts = testScheduler();
    const seen: (string | undefined)[][] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, a: { type: 'InitApply', object: obj('a', '1') }, D });
      const streams: Record<string, Observable<WatchEvent>> = {
        'a=1': hot<WatchEvent>('(IxD)', { I, x: { type: 'InitApply', object: obj('x', '1') }, D }),
        'b=1': hot<WatchEvent>('(IyD)', { I, y: { type: 'InitApply', object: obj('y', '1') }, D }),
      };
      const registry = new ScriptedWatchRegistry((target) =>
        target.resource.kind === 'ConfigMap' ? primary : streams[target.labelSelector ?? ''],
      );
      const first = { resource: SECRET, labelSelector: 'a=1', map: () => [] };
      const second = { resource: SECRET, labelSelector: 'b=1', map: () => [] };
      const results$ = controller(base(registry, { watches: [first, second] }), ts).run((_r, ctx) => {
        seen.push(
          ctx
            .storeOf(first)
            .list()
            .map((o) => o.metadata.name),
        );
        seen.push(
          ctx
            .storeOf(second)
            .list()
            .map((o) => o.metadata.name),
        );
        expect(() => ctx.storeOf(SECRET)).toThrow(/is watched 2 times: pass the ControllerWatch object/);
        expect(() => ctx.storeOf({ apiVersion: 'v1', kind: 'Pod' })).toThrow(/must be one of/);
        return cold('(d|)', { d: Action.awaitChange() });
      });
      expectObservable(results$.pipe(map(short)), '^ 5ms !').toBe('a', { a: 'ns/a:success' });
    });
    expect(seen).toEqual([['x'], ['y']]);
  });

  it('does not reconcile an object that is gone: a Delete (also one landing during a reconcile) is skipped', () => {
    const ts = testScheduler();
    const calls: number[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)-x------------b-y', {
        I,
        a: { type: 'InitApply', object: obj('a', '1') },
        D,
        x: { type: 'Delete', object: obj('a', '2') },
        b: { type: 'Apply', object: obj('b', '3') },
        y: { type: 'Delete', object: obj('b', '4') },
      });
      const results$ = controller(base(new ScriptedWatchRegistry({ ConfigMap: primary })), ts).run(() => {
        calls.push(ts.now());
        return cold('--------(d|)', { d: Action.awaitChange() });
      });
      // a: 0–8, deleted at 6 (during) → rerun at 8 finds nothing: skipped. b: 19–27, deleted at 21 → skipped at 27
      expectObservable(results$.pipe(map(short)), '^ 40ms !').toBe('8ms (sk) 15ms (tm)', {
        s: 'ns/a:success',
        k: 'ns/a:skipped',
        t: 'ns/b:success',
        m: 'ns/b:skipped',
      });
    });
    expect(calls).toEqual([0, 19]);
  });

  it('backs off a failing key exponentially on the scheduler (5, 10, 20 ms), then succeeds', () => {
    const ts = testScheduler();
    const warnings: { message: string; key: unknown }[] = [];
    const log: ControllerLogger = { warn: (message, f) => warnings.push({ message, key: f['key'] }) };
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, a: { type: 'InitApply', object: obj('a', '1') }, D });
      let n = 0;
      const results$ = controller(base(new ScriptedWatchRegistry({ ConfigMap: primary }), { log }), ts).run(
        () =>
          ++n <= 3 ? throwError(() => new Error(`boom ${n}`)) : cold('(d|)', { d: Action.awaitChange() }),
      );
      expectObservable(
        results$.pipe(map((r) => `${r.outcome}${r.retryInMs !== undefined ? `@${r.retryInMs}` : ''}`)),
        '^ 40ms !',
      ).toBe('e----f---------g-------------------s', {
        e: 'error@5',
        f: 'error@10',
        g: 'error@20',
        s: 'success',
      });
    });
    expect(warnings).toHaveLength(3);
    expect(warnings.every((w) => w.key === 'ns/a')).toBe(true);
    expect(warnings[0]?.message).toBe('reconcile of "ns/a" failed: boom 1; retrying in 5 ms');
  });

  it('requeues after requeue(ms), and a change cancels the pending requeue', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)---------------u', {
        I,
        a: { type: 'InitApply', object: obj('a', '1') },
        D,
        u: { type: 'Apply', object: obj('a', '2') },
      });
      const results$ = controller(base(new ScriptedWatchRegistry({ ConfigMap: primary })), ts).run(() =>
        cold('(r|)', { r: Action.requeue(8) }),
      );
      // 0, 8, 16 by requeue; u at 20 cancels the timer due at 24 and reconciles at once; then 28, …
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('r-------r-------r---r-------r', {
        r: 'ns/a:requeue',
      });
    });
  });

  it('does not retry a TerminalError, and logs it as an error with the key', () => {
    const ts = testScheduler();
    const errors: unknown[] = [];
    const calls: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, a: { type: 'InitApply', object: obj('a', '1') }, D });
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), {
          log: { error: (_m, f) => errors.push(f['key']) },
        }),
        ts,
      ).run(() => {
        calls.push(ts.now());
        throw new TerminalError('spec.size must be > 0');
      });
      expectObservable(results$.pipe(map(short)), '^ 100ms !').toBe('t', { t: 'ns/a:terminal' });
    });
    expect(calls).toEqual([0]);
    expect(errors).toEqual(['ns/a']);
  });

  it('never runs one key twice at once, and at most `concurrency` overall, under a storm of triggers', () => {
    const ts = testScheduler();
    const active = new Map<string, number>();
    let overall = 0;
    let maxOverall = 0;
    let maxPerKey = 0;
    let calls = 0;
    ts.run(({ hot, cold, expectObservable }) => {
      const names = ['a', 'b', 'c', 'd'];
      const events: Record<string, WatchEvent> = { I, D };
      for (const n of names) events[n] = { type: 'InitApply', object: obj(n, '0') };
      // 40 updates, cycling over the keys, 2 or 3 per frame
      const pool = 'ABCEFGHJKLMNOPQRSTUVWXYZefghijklmnopqrs';
      let marble = '(IabcdD)';
      [...pool].forEach((id, i) => {
        events[id] = { type: 'Apply', object: obj(names[(i * 7) % 4] ?? 'a', String(i + 1)) };
        marble += i % 3 === 0 ? `-${id}` : id;
      });
      const primary = hot<WatchEvent>(marble, events);
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), { concurrency: 2 }),
        ts,
      ).run((req) => {
        const key = `${req.namespace}/${req.name}`;
        return defer(() => {
          calls++;
          const n = (active.get(key) ?? 0) + 1;
          active.set(key, n);
          overall++;
          maxPerKey = Math.max(maxPerKey, n);
          maxOverall = Math.max(maxOverall, overall);
          return cold('---(d|)', { d: Action.awaitChange() });
        }).pipe((s) =>
          defer(() => s).pipe(
            map((a) => {
              active.set(key, (active.get(key) ?? 1) - 1);
              overall--;
              return a;
            }),
          ),
        );
      });
      expectObservable(results$.pipe(map(() => 'x')), '^ 200ms !');
    });
    expect(maxPerKey).toBe(1);
    expect(maxOverall).toBe(2);
    expect(calls).toBeGreaterThan(4);
    expect(calls).toBeLessThan(43); // coalesced: fewer reconciles than triggers (4 + 39)
  });

  it('waits for every Store (primary and owned) to be synced before reconciling', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, a: { type: 'InitApply', object: obj('a', '1') }, D });
      const secrets = hot<WatchEvent>('I---------D', { I, D });
      const registry = new ScriptedWatchRegistry({ ConfigMap: primary, Secret: secrets });
      const results$ = controller(base(registry, { owns: [SECRET] }), ts).run(() =>
        cold('(d|)', { d: Action.awaitChange() }),
      );
      expectObservable(results$.pipe(map(short)), '^ 20ms !').toBe('----------s', { s: 'ns/a:success' });
    });
  });

  it('applies predicates to primary objects only (generationChanged drops status-only updates)', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)-s-g-x', {
        I,
        a: { type: 'InitApply', object: obj('a', '1', { generation: 1 }) },
        D,
        s: { type: 'Apply', object: obj('a', '2', { generation: 1 }) }, // status only
        g: { type: 'Apply', object: obj('a', '3', { generation: 2 }) },
        x: { type: 'Delete', object: obj('a', '4', { generation: 2 }) },
      });
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), {
          predicates: [generationChanged(undefined, ts)],
        }),
        ts,
      ).run(() => cold('(d|)', { d: Action.awaitChange() }));
      expectObservable(results$.pipe(map(short)), '^ 20ms !').toBe('s-------s-k', {
        s: 'ns/a:success',
        k: 'ns/a:skipped',
      });
    });
  });

  it('debounces per key with a max wait', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)-uuuuuuuuuuuuuu', {
        I,
        a: { type: 'InitApply', object: obj('a', '1') },
        D,
        u: { type: 'Apply', object: obj('a', '2') },
      });
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), { debounce: { ms: 3, maxWaitMs: 6 } }),
        ts,
      ).run(() => cold('(d|)', { d: Action.awaitChange() }));
      // a at 0 → due at 3; a u every frame from 6 to 19: max wait from 6 fires at 12, from 13 at 19 (with the last u)
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('---s--------s------s', {
        s: 'ns/a:success',
      });
    });
  });

  it('gives each namespace its own lane: a busy namespace does not hold up another', () => {
    const ts = testScheduler();
    const starts: string[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabcD) 43ms d', {
        I,
        a: { type: 'InitApply', object: obj('a1', '1', {}, 'busy') },
        b: { type: 'InitApply', object: obj('a2', '1', {}, 'busy') },
        c: { type: 'InitApply', object: obj('c', '1', {}, 'calm') },
        D,
        d: { type: 'Apply', object: obj('c', '2', {}, 'calm') },
      });
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), { namespaceLanes: { idleMs: 10 } }),
        ts,
      ).run((req) => {
        starts.push(`${ts.now()}:${req.namespace}/${req.name}`);
        return req.namespace === 'busy'
          ? cold('--------------------(d|)', { d: Action.awaitChange() })
          : cold('-(d|)', { d: Action.awaitChange() });
      });
      expectObservable(results$.pipe(map(short)), '^ 60ms !').toBe('-c 18ms x 19ms y 10ms c', {
        x: 'busy/a1:success',
        y: 'busy/a2:success',
        c: 'calm/c:success',
      });
    });
    // calm/c runs at 0 next to busy/a1 (concurrency 1 per lane): results at 1, 20, 40 and 51
    expect(starts).toEqual(['0:busy/a1', '0:calm/c', '20:busy/a2', '50:calm/c']);
  });

  it('keeps the retry rate limit global across namespace lanes (one token bucket; issue 12 §4)', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', {
        I,
        a: { type: 'InitApply', object: obj('a', '1', {}, 'one') },
        b: { type: 'InitApply', object: obj('b', '1', {}, 'two') },
        D,
      });
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), {
          namespaceLanes: { idleMs: 1_000 },
          rateLimit: { qps: 10, burst: 1 },
        }),
        ts,
      ).run(() => throwError(() => new Error('down')));
      // a (lane one) takes the only token: retry after its backoff, 5; b (lane two) pays 100 ms
      // of debt — with a bucket per lane it would retry after 5 as well
      expectObservable(results$.pipe(map((r) => `${r.key}@${r.retryInMs ?? ''}`)), '^ 4ms !').toBe('(ab)', {
        a: 'one/a@5',
        b: 'two/b@100',
      });
    });
  });

  it('keeps a lane with a pending requeue open past its idle time (the requeue is not lost)', () => {
    const ts = testScheduler();
    const starts: number[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, a: { type: 'InitApply', object: obj('a', '1') }, D });
      let n = 0;
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), { namespaceLanes: { idleMs: 2 } }),
        ts,
      ).run(() => {
        starts.push(ts.now());
        return cold('(r|)', { r: ++n === 1 ? Action.requeue(10) : Action.awaitChange() });
      });
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('r---------s', {
        r: 'ns/a:requeue',
        s: 'ns/a:success',
      });
    });
    expect(starts).toEqual([0, 10]);
  });

  it('stops on unsubscribe: the reconcile in flight is unsubscribed and the watches released', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, a: { type: 'InitApply', object: obj('a', '1') }, D });
      const secrets = hot<WatchEvent>('(ID)', { I, D });
      const work = cold('----------(d|)', { d: Action.awaitChange() });
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary, Secret: secrets }), { owns: [SECRET] }),
        ts,
      ).run(() => work);
      expectObservable(results$.pipe(map(short)), '^ 4ms !').toBe('');
      expectSubscriptions(work.subscriptions).toBe('^ 4ms !');
      expectSubscriptions(primary.subscriptions).toBe('^ 4ms !');
      expectSubscriptions(secrets.subscriptions).toBe('^ 4ms !');
    });
  });

  it('reports its workqueue to the observer (ControllerMetrics) and resets it when the run ends', async () => {
    const metrics = new ControllerMetrics();
    const observer = metrics.observer('cms', { maxConcurrentReconciles: 1 });
    let resets = 0;
    const counted = { ...observer, reset: () => (resets++, observer.reset()) };
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', {
        I,
        a: { type: 'InitApply', object: obj('a', '1') },
        b: { type: 'InitApply', object: obj('b', '1') },
        D,
      });
      const results$ = controller(
        base(new ScriptedWatchRegistry({ ConfigMap: primary }), { observer: counted }),
        ts,
      ).run(() => cold('--(d|)', { d: Action.awaitChange() }));
      // a runs 0–2, b waits for the single worker and runs 2–4; unsubscribed at 6.
      expectObservable(results$.pipe(map(short)), '^ 5ms !').toBe('--a-b', {
        a: 'ns/a:success',
        b: 'ns/b:success',
      });
    });
    expect(resets).toBe(1);
    const text = await metrics.metrics();
    expect(text).toMatch(/workqueue_adds_total\{[^}]*name="cms"[^}]*\} 2/);
    expect(text).toMatch(/workqueue_depth\{[^}]*name="cms"[^}]*\} 0/);
  });

  it('refuses unusable options with an error naming the option', () => {
    const registry = new ScriptedWatchRegistry({});
    const bad =
      (o: object): (() => unknown) =>
      () =>
        controller({ ...base(registry), ...o });
    expect(bad({ for: { apiVersion: 'v1' } })).toThrow(/controller: options\.for must be a resource type/);
    expect(bad({ client: {} })).toThrow(/options\.client must be a KubeClient/);
    expect(bad({ owns: [{ kind: 'Secret' }] })).toThrow(/options\.owns\[0\]/);
    expect(bad({ watches: [{ resource: SECRET }] })).toThrow(/options\.watches\[0\]\.map must be a function/);
    expect(bad({ concurrency: 0 })).toThrow(InvalidArgumentError);
    expect(bad({ debounce: { ms: 10, maxWaitMs: 5 } })).toThrow(InvalidArgumentError);
    expect(bad({ namespaceLanes: { idleMs: -1 } })).toThrow(/options\.namespaceLanes\.idleMs/);
    expect(bad({ namespace: '' })).toThrow(/options\.namespace must be a non-empty string/);
    // the finalizer's own checks (finalizer()'s, at this door: its run-time stage trusts them)
    const cleanup = (): Observable<never> => NEVER;
    expect(bad({ finalizer: { name: 'cleanup', cleanup } })).toThrow(
      /finalizer: name must be a domain-qualified/,
    );
    expect(bad({ finalizer: { name: 'example.com/x', cleanup, stuck: { failures: 0 } } })).toThrow(
      /finalizer: options\.stuck\.failures must be an integer >= 1/,
    );
    expect(bad({ finalizer: { name: 'example.com/x', cleanup, stuck: { afterMs: -1 } } })).toThrow(
      /options\.stuck\.afterMs/,
    );
    expect(() => controller(base(registry)).run(undefined as never)).toThrow(
      /controller\.run: reconcile must be a function/,
    );
  });
});

describe('controller client checks (structural, no instanceof)', () => {
  it('takes any Client with a registry, and asks for a KubeClient to watch with without one', () => {
    const verbs = { get: fn, list: fn, create: fn, replace: fn, patch: fn, apply: fn, delete: fn };
    const stub = { ...verbs, discovery: { resolve: fn } } as never;
    expect(() =>
      controller({ for: CM, client: stub, registry: new ScriptedWatchRegistry({}) }),
    ).not.toThrow();
    expect(() => controller({ for: CM, client: stub })).toThrow(
      /options\.client must be a KubeClient to watch with; give options\.registry/,
    );
  });
});

function fn(): Promise<never> {
  return Promise.reject(new Error('unused'));
}
