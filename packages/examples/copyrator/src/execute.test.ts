// executePlan through its ports, in marbles.
import type { ObjectRef } from '@rxkube/kube';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionReport } from './execute.js';
import { executePlan } from './execute.js';
import type { CopyPlan } from './plan.js';
import { copyOf } from './rule.js';

import { apiError, cm, rbacDenial, secret } from './copyrator.test.helper.js';

describe('executePlan (marbles)', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  const ref = (namespace: string, name: string): ObjectRef => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace,
    name,
  });
  const applyOf = (namespace: string, force = false) => ({
    copy: copyOf(cm('src', 'settings', { mode: 'a' }), 'r', namespace),
    force,
    reason: force ? ('changed' as const) : ('missing' as const),
  });
  const planOf = (over: Partial<CopyPlan>): CopyPlan => ({
    sources: ['src/settings'],
    targets: [],
    desired: [],
    apply: [],
    delete: [],
    conflicts: [],
    unchanged: 0,
    ...over,
  });

  it('deletes first, then applies; one report when everything settled', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const del = cold('  --x|');
      const apply = cold('-x|');
      const plan = planOf({
        delete: [{ ref: ref('c', 'settings'), uid: 'u', reason: 'stale' }],
        apply: [applyOf('a'), applyOf('b')],
      });
      const report: ExecutionReport = {
        applied: [ref('a', 'settings'), ref('b', 'settings')],
        deleted: [ref('c', 'settings')],
        conflicts: [],
        failed: [],
      };
      // delete 0→3; both applies start at 3 (concurrency 4), complete at 3+2 = 5
      expectObservable(executePlan(plan, { apply: () => apply, delete: () => del })).toBe('-----(r|)', {
        r: report,
      });
      expectSubscriptions(del.subscriptions).toBe('^--!');
      expectSubscriptions(apply.subscriptions).toBe(['---^-!', '---^-!']);
    });
  });

  it('keeps at most `concurrency` writes in flight', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const apply = cold('--x|');
      const plan = planOf({ apply: [applyOf('a'), applyOf('b'), applyOf('c')] });
      // a, b at 0..3; c at 3..6
      expectObservable(
        executePlan(plan, { apply: () => apply, delete: () => cold('|') }, { concurrency: 2 }).pipe(),
      ).toBe('------(r|)', {
        r: {
          applied: [ref('a', 'settings'), ref('b', 'settings'), ref('c', 'settings')],
          deleted: [],
          conflicts: [],
          failed: [],
        },
      });
      expectSubscriptions(apply.subscriptions).toBe(['^--!', '^--!', '---^--!']);
    });
  });

  it('counts 404/409 on delete as deleted, a 409 on a new copy as a conflict, other errors as failures', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const plan = planOf({
        delete: [
          { ref: ref('gone', 'settings'), uid: 'u1', reason: 'stale' },
          { ref: ref('recreated', 'settings'), uid: 'u2', reason: 'stale' },
        ],
        apply: [applyOf('taken'), applyOf('forbidden', true)],
      });
      const deletes: Record<string, ReturnType<typeof cold>> = {
        gone: cold('-#', undefined, apiError(404, 'NotFound', 'delete')),
        recreated: cold('-#', undefined, apiError(409, 'Conflict', 'delete')),
      };
      const applies: Record<string, ReturnType<typeof cold>> = {
        taken: cold('-#', undefined, apiError(409, 'Conflict')),
        forbidden: cold('-#', undefined, apiError(403, 'Forbidden')),
      };
      expectObservable(
        executePlan(plan, {
          apply: (copy) => applies[copy.metadata.namespace ?? ''] ?? cold('|'),
          delete: (r) => deletes[r.namespace ?? ''] ?? cold('|'),
        }),
      ).toBe('--(r|)', {
        r: {
          applied: [],
          deleted: [ref('gone', 'settings'), ref('recreated', 'settings')],
          conflicts: [{ ref: ref('taken', 'settings'), heldBy: 'unmanaged' }],
          failed: [
            {
              ref: ref('forbidden', 'settings'),
              op: 'apply',
              code: 403,
              reason: 'Forbidden',
              message: rbacDenial('patch'),
            },
          ],
        },
      });
    });
  });

  it('does not apply a replaced Secret whose delete failed', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const sref: ObjectRef = { apiVersion: 'v1', kind: 'Secret', namespace: 'a', name: 'cert' };
      const copy = copyOf(secret('src', 'cert', {}, 'kubernetes.io/tls'), 'r', 'a');
      const apply = cold('-x|');
      const plan = planOf({
        delete: [{ ref: sref, uid: 'u', reason: 'replace' }],
        apply: [{ copy, force: true, reason: 'changed' }],
      });
      expectObservable(
        executePlan(plan, {
          apply: () => apply,
          delete: () => cold('-#', undefined, apiError(500, 'InternalError', 'delete')),
        }),
      ).toBe('-(r|)', {
        r: {
          applied: [],
          deleted: [],
          conflicts: [],
          failed: [{ ref: sref, op: 'delete', code: 500, reason: 'InternalError', message: 'InternalError' }],
        },
      });
      expectSubscriptions(apply.subscriptions).toBe([]);
    });
  });
});

// ── one reconcile of a rule (marbles) ───────────────────────────────────────────────────────
