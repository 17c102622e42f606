/**
 * Issue 12 §1 in marbles: the reconciles a relist triggers read the relisted state — for primary,
 * owned and mapped triggers — only what changed while the watch was away triggers, and a burst of
 * triggers for one key coalesces. Fake watches (hot streams through a real shared Store), time on
 * the TestScheduler.
 */
import { Action } from '@rxkube/core';
import type { Observable } from 'rxjs';
import { map } from 'rxjs';
import { testScheduler } from '@rxkube/testing/vitest';
import { ScriptedWatchRegistry, watchEvent } from '@rxkube/testing/controller';
import { describe, expect, it } from 'vitest';

import type { WatchRegistry } from '../reflector/watch-registry.js';
import type { KubeObject, WatchEvent } from '../types.js';
import type { ControllerOptions, ControllerResult } from './controller.js';
import { controller } from './controller.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const I: WatchEvent = watchEvent.init();
const D: WatchEvent = watchEvent.initDone();

function obj(name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { metadata: { namespace: 'ns', name, uid: `uid-${name}`, resourceVersion: rv, ...extra } };
}
const ownedBy = (owner: string) => ({
  ownerReferences: [
    { apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: `uid-${owner}`, controller: true },
  ],
});
const ia = (object: KubeObject): WatchEvent => ({ type: 'InitApply', object });
const short = (r: ControllerResult): string => `${r.key}:${r.outcome}`;

function registryOf(streams: Record<string, Observable<WatchEvent>>): WatchRegistry {
  return new ScriptedWatchRegistry(streams);
}
function options(
  streams: Record<string, Observable<WatchEvent>>,
  extra: Partial<ControllerOptions<KubeObject>> = {},
): ControllerOptions<KubeObject> {
  return { for: CM, registry: registryOf(streams), rateLimit: false, random: () => 0, log: {}, ...extra };
}

describe('controller: relists read the relisted state (issue 12 §1)', () => {
  it('primary: triggers at InitDone only the objects that changed or appeared, and the reconcile reads the new list', () => {
    const ts = testScheduler();
    const seen: string[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      // first list: a@1, c@1; a relist at 11 brings a@2 (changed), b@1 (created), c@1 (unchanged)
      const primary = hot<WatchEvent>('(IacD)-----(IABCD)', {
        I,
        D,
        a: ia(obj('a', '1')),
        c: ia(obj('c', '1')),
        A: ia(obj('a', '2')),
        B: ia(obj('b', '1')),
        C: ia(obj('c', '1')),
      });
      const results$ = controller(options({ ConfigMap: primary }, { concurrency: 2 }), ts).run((_r, ctx) => {
        seen.push(`${ts.now()}:${ctx.key}@${ctx.object.metadata.resourceVersion ?? ''}`);
        return cold('(d|)', { d: Action.awaitChange() });
      });
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('(ac)-------(ab)', {
        a: 'ns/a:success',
        b: 'ns/b:success',
        c: 'ns/c:success',
      });
    });
    // without the gate: a@1 (the old list) and b skipped as absent, both at the InitApply
    expect(seen).toEqual(['0:ns/a@1', '0:ns/c@1', '11:ns/a@2', '11:ns/b@1']);
  });

  it('owned: a child that changed while the watch was away reruns its owner after InitDone, which reads the new child', () => {
    const ts = testScheduler();
    const seen: string[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IpD)', { I, D, p: ia(obj('p', '1')) });
      // the relist spans two ticks (two pages): InitApply S at 11, U and InitDone at 16
      const secrets = hot<WatchEvent>('(IsuD)-----(IS)-(UD)', {
        I,
        D,
        s: ia(obj('s', '1', ownedBy('p'))),
        u: ia(obj('u', '1', ownedBy('p'))),
        S: ia(obj('s', '2', ownedBy('p'))), // changed while away
        U: ia(obj('u', '1', ownedBy('p'))), // unchanged
      });
      const results$ = controller(
        options({ ConfigMap: primary, Secret: secrets }, { owns: [SECRET] }),
        ts,
      ).run((_r, ctx) => {
        seen.push(
          `${ts.now()}:${ctx
            .owned(SECRET)
            .map((c) => `${c.metadata.name ?? ''}@${c.metadata.resourceVersion ?? ''}`)
            .join(',')}`,
        );
        return cold('(d|)', { d: Action.awaitChange() });
      });
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('p---------------p', {
        p: 'ns/p:success',
      });
    });
    // without the gate: '11:s@1,u@1' — the owner read the child Store's previous list
    expect(seen).toEqual(['0:s@1,u@1', '16:s@2,u@1']);
  });

  it('mapped: a relist requests only for objects that changed, and a burst mapping to one key reconciles it once', () => {
    const ts = testScheduler();
    let calls = 0;
    let maps = 0;
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(ItD)', { I, D, t: ia(obj('target', '1')) });
      const first: Record<string, WatchEvent> = { I, D };
      const second: Record<string, WatchEvent> = {};
      let list1 = '';
      let list2 = '';
      for (let i = 0; i < 20; i++) {
        const id = String.fromCharCode(97 + i);
        const ID = 'ABCEFGHJKLMNOPQRSTUV'.charAt(i); // not I or D
        first[id] = ia(obj(`s${i}`, '1'));
        // two of twenty changed while the watch was away
        second[ID] = ia(obj(`s${i}`, i < 2 ? '2' : '1'));
        list1 += id;
        list2 += ID;
      }
      const secrets = hot<WatchEvent>(`(I${list1}D) 30ms (I${list2}D) 30ms (I${list1}D)`, {
        ...first,
        ...second,
      });
      const results$ = controller(
        options(
          { ConfigMap: primary, Secret: secrets },
          {
            watches: [
              {
                resource: SECRET,
                map: () => {
                  maps++;
                  return [{ namespace: 'ns', name: 'target' }];
                },
              },
            ],
          },
        ),
        ts,
      ).run(() => {
        calls++;
        return cold('(d|)', { d: Action.awaitChange() });
      });
      // the first list (target's own trigger and 20 secrets) → one reconcile; the relist at 54 → one
      // reconcile for the two changed; the relist at 108 (two changed back) → one
      expectObservable(results$.pipe(map(short)), '^ 200ms !').toBe('t 53ms t 53ms t', {
        t: 'ns/target:success',
      });
    });
    expect(maps).toBe(20 + 2 + 2);
    expect(calls).toBe(3);
  });

  it('a relist in which nothing changed triggers nothing', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)-----(IAD)', {
        I,
        D,
        a: ia(obj('a', '1')),
        A: ia(obj('a', '1')),
      });
      const results$ = controller(options({ ConfigMap: primary }), ts).run(() =>
        cold('(d|)', { d: Action.awaitChange() }),
      );
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('a', { a: 'ns/a:success' });
    });
  });

  it('drops what a restarted list held and gathers the new one (a second Init before InitDone)', () => {
    const ts = testScheduler();
    const seen: string[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)--(IA)--(IBD)', {
        I,
        D,
        a: ia(obj('a', '1')),
        A: ia(obj('a', '2')),
        B: ia(obj('b', '1')),
      });
      const results$ = controller(options({ ConfigMap: primary }), ts).run((_r, ctx) => {
        seen.push(`${ctx.key}@${ctx.object.metadata.resourceVersion ?? ''}`);
        return cold('(d|)', { d: Action.awaitChange() });
      });
      // the restarted list no longer has a: its Delete comes from the watcher, not from here
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('a------------b', {
        a: 'ns/a:success',
        b: 'ns/b:success',
      });
    });
    expect(seen).toEqual(['ns/a@1', 'ns/b@1']);
  });
});
