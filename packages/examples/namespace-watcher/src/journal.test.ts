import type { WatchEvent } from '@rxkube/kube';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { describeChange, namespaceJournal, snapshotOf } from './journal.js';
import type { Namespace } from './reconcile.js';

const ns = (name: string, labels: Record<string, string> = {}, phase = 'Active', rv = '1'): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels, resourceVersion: rv },
  status: { phase },
});

describe('describeChange', () => {
  it('describes ADDED, MODIFIED (what changed) and DELETED in one line each', () => {
    const before = snapshotOf(ns('a', { env: 'dev' }, 'Active', '1'));
    expect(describeChange(undefined, before, 'a')).toEqual({
      type: 'ADDED',
      line: 'ADDED    namespace a: phase Active, labels env=dev',
    });
    expect(describeChange(before, before, 'a')).toBeUndefined();
    expect(describeChange(before, snapshotOf(ns('a', { env: 'prod' }, 'Terminating', '2')), 'a')).toEqual({
      type: 'MODIFIED',
      line: 'MODIFIED namespace a: phase Active → Terminating, labels env=dev → env=prod',
    });
    expect(describeChange(before, snapshotOf(ns('a', { env: 'dev' }, 'Active', '3')), 'a')?.line).toBe(
      'MODIFIED namespace a: annotations, conditions or other fields changed',
    );
    const finalized = {
      ...snapshotOf(ns('a', { env: 'dev' }, 'Terminating', '4')),
      finalizers: 'kubernetes',
    };
    expect(
      describeChange(finalized, { ...finalized, resourceVersion: '5', finalizers: '-' }, 'a')?.line,
    ).toBe('MODIFIED namespace a: finalizers kubernetes → -');
    expect(describeChange(before, undefined, 'a')).toEqual({ type: 'DELETED', line: 'DELETED  namespace a' });
    expect(describeChange(undefined, undefined, 'a')).toBeUndefined();
  });
});

describe('namespaceJournal (marbles)', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('logs the initial list as ADDED, then each change and delete once', () => {
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const events: Record<string, WatchEvent<Namespace>> = {
        i: { type: 'Init' },
        a: { type: 'InitApply', object: ns('a', { team: 'a' }) },
        d: { type: 'InitDone' },
        b: { type: 'Apply', object: ns('b', {}, 'Active', '2') },
        m: { type: 'Apply', object: ns('a', { team: 'x' }, 'Active', '3') },
        t: { type: 'Apply', object: ns('b', {}, 'Terminating', '4') },
        x: { type: 'Delete', object: ns('b', {}, 'Terminating', '5') },
      };
      const source = hot('  -iad-b-m-t-x-|', events);
      const subs = '        ^------------!';
      const expected = '    --a--b-m-t-x-|';
      //                    Init and InitDone log nothing; each change of a known namespace is MODIFIED
      expectObservable(source.pipe(namespaceJournal())).toBe(expected, {
        a: { type: 'ADDED', namespace: 'a', line: 'ADDED    namespace a: phase Active, labels team=a' },
        b: { type: 'ADDED', namespace: 'b', line: 'ADDED    namespace b: phase Active, labels -' },
        m: { type: 'MODIFIED', namespace: 'a', line: 'MODIFIED namespace a: labels team=a → team=x' },
        t: { type: 'MODIFIED', namespace: 'b', line: 'MODIFIED namespace b: phase Active → Terminating' },
        x: { type: 'DELETED', namespace: 'b', line: 'DELETED  namespace b' },
      });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('logs nothing for a relist of unchanged namespaces, MODIFIED for one that changed meanwhile', () => {
    scheduler.run(({ hot, expectObservable }) => {
      const events: Record<string, WatchEvent<Namespace>> = {
        i: { type: 'Init' },
        a: { type: 'InitApply', object: ns('a') },
        b: { type: 'InitApply', object: ns('b') },
        d: { type: 'InitDone' },
        c: { type: 'InitApply', object: ns('b', { new: 'yes' }, 'Active', '9') },
      };
      const source = hot('-iabd-iacd-|', events);
      //                  second list: a unchanged (same resourceVersion), b changed while the watch was down
      expectObservable(source.pipe(namespaceJournal())).toBe('--ab----x--|', {
        a: { type: 'ADDED', namespace: 'a', line: 'ADDED    namespace a: phase Active, labels -' },
        b: { type: 'ADDED', namespace: 'b', line: 'ADDED    namespace b: phase Active, labels -' },
        x: { type: 'MODIFIED', namespace: 'b', line: 'MODIFIED namespace b: labels - → new=yes' },
      });
    });
  });

  it('forwards errors; unsubscribing unsubscribes the watch', () => {
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-#', { a: { type: 'Apply', object: ns('a') } as WatchEvent<Namespace> });
      expectObservable(source.pipe(namespaceJournal())).toBe('-a-#', {
        a: { type: 'ADDED', namespace: 'a', line: 'ADDED    namespace a: phase Active, labels -' },
      });
      const early = hot('-a--b', { a: { type: 'Apply', object: ns('a') } as WatchEvent<Namespace> });
      expectObservable(early.pipe(namespaceJournal()), '^-!').toBe('-a-', {
        a: { type: 'ADDED', namespace: 'a', line: 'ADDED    namespace a: phase Active, labels -' },
      });
      expectSubscriptions(early.subscriptions).toBe('^-!');
    });
  });
});
