// syncRule and cleanupCopies in marbles; CopyFailedError's messages.
import { Action } from '@rxkube/core';
import type { ObjectRef } from '@rxkube/kube';
import { of, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CopyFailure } from './execute.js';
import { MAX_FAILURE_MESSAGE, executePlan } from './execute.js';
import type { CopyPlan } from './plan.js';
import type { SyncOutcome } from './reconcile.js';
import { CopyFailedError, cleanupCopies, syncRule } from './reconcile.js';
import { RULE_LABEL } from './rule-types.js';
import { copyOf } from './rule.js';

import { apiError, cm, input, rbacDenial, refPlace, rule, secret } from './copyrator.test.helper.js';

describe('syncRule (marbles)', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const settings = cm('src', 'settings', { mode: 'a' });

  it('applies, then writes the status, then emits awaitChange; the next (level) run writes nothing', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const apply = cold('-x|');
      const status = cold('--s|');
      const first = syncRule(input({ candidates: [settings] }), {
        apply: () => apply,
        delete: () => cold('|'),
        status: () => status,
      });
      // applies 0→2; status 2→5
      expectObservable(first.pipe()).toBe('-----(o|)', {
        o: expect.objectContaining({
          action: Action.awaitChange(),
          status: expect.objectContaining({
            copies: 2,
            ready: expect.objectContaining({ reason: 'Synced' }) as unknown,
          }) as unknown,
        }) as SyncOutcome,
      });
      expectSubscriptions(apply.subscriptions).toBe(['^-!', '^-!']);
      expectSubscriptions(status.subscriptions).toBe('--^--!');
    });
  });

  it('plans and writes nothing when the copies are in sync (level-triggered: a rerun is a no-op)', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const existing = [copyOf(settings, 'r', 'a'), copyOf(settings, 'r', 'b')];
      const apply = cold('-x|');
      const again = syncRule(input({ candidates: [settings], existing }), {
        apply: () => apply,
        delete: () => cold('|'),
        status: () => cold('s|'),
      });
      expectObservable(again.pipe()).toBe('-(o|)', {
        o: expect.objectContaining({
          report: { applied: [], deleted: [], conflicts: [], failed: [] },
        }) as SyncOutcome,
      });
      expectSubscriptions(apply.subscriptions).toBe([]);
    });
  });

  it('writes the CopyFailed status, then errors with CopyFailedError (the controller backs off)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const statuses: string[] = [];
      const run = syncRule(input({ candidates: [settings], rule: rule({ targetNamespaces: ['a'] }) }), {
        apply: () => cold('-#', undefined, apiError(422, 'Invalid')),
        delete: () => cold('|'),
        status: (u) => {
          statuses.push(u.ready.reason);
          return cold('-s|');
        },
      });
      expectObservable(run).toBe(
        '---#',
        undefined,
        new CopyFailedError('r', [
          {
            ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'settings' },
            op: 'apply',
            code: 422,
            reason: 'Invalid',
            message: 'Invalid',
          },
        ]),
      );
      scheduler.flush();
      expect(statuses).toEqual(['CopyFailed']);
    });
  });

  it('requeues while conflicts remain', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const run = syncRule(
        input({ candidates: [settings], occupant: () => cm('x', 'settings', {}, {}) }),
        { apply: () => cold('-x|'), delete: () => cold('|'), status: () => cold('(s|)') },
        { conflictRequeueMs: 30_000 },
      );
      expectObservable(run.pipe()).toBe('(o|)', {
        o: expect.objectContaining({ action: Action.requeue(30_000) }) as SyncOutcome,
      });
    });
  });

  it('writes InvalidSpec and touches no copy for an invalid rule', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const apply = cold('-x|');
      const del = cold('-x|');
      const run = syncRule(
        input({
          rule: rule({ selector: {} }),
          candidates: [settings],
          existing: [copyOf(settings, 'r', 'a')],
        }),
        {
          apply: () => apply,
          delete: () => del,
          status: () => cold('-s|'),
        },
      );
      expectObservable(run.pipe()).toBe('--(o|)', {
        o: expect.objectContaining({
          action: Action.awaitChange(),
          status: expect.objectContaining({
            ready: expect.objectContaining({ status: 'False', reason: 'InvalidSpec' }) as unknown,
          }) as unknown,
        }) as SyncOutcome,
      });
      expectSubscriptions(apply.subscriptions).toBe([]);
      expectSubscriptions(del.subscriptions).toBe([]);
    });
  });
});

describe('cleanupCopies (marbles)', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('lists ConfigMap and Secret copies by the rule label and deletes each with its uid; gone ones count', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const selectors: string[] = [];
      const deleted: string[] = [];
      const run = cleanupCopies('r', {
        list: (type, selector) => {
          selectors.push(`${type.kind} ${selector}`);
          return type.kind === 'ConfigMap'
            ? cold('-(l|)', { l: [cm('a', 'settings', {}), cm('b', 'settings', {})] })
            : cold('-(l|)', { l: [secret('a', 'key', {})] });
        },
        delete: (r, uid) => {
          deleted.push(`${r.kind} ${refPlace(r)} ${uid ?? ''}`);
          return r.namespace === 'b'
            ? cold('-#', undefined, apiError(404, 'NotFound', 'delete'))
            : cold('-x|');
        },
      });
      // list ConfigMaps 0→1, Secrets 1→2; deletes from 2: b's 404 at 3, the others complete at 2+2 = 4
      expectObservable(run).toBe('----(n|)', { n: 3 });
      scheduler.flush();
      expect(selectors).toEqual([`ConfigMap ${RULE_LABEL}=r`, `Secret ${RULE_LABEL}=r`]);
      expect(deleted.sort()).toEqual([
        'ConfigMap a/settings uid-a-settings',
        'ConfigMap b/settings uid-b-settings',
        'Secret a/key uid-a-key',
      ]);
    });
  });

  it('errors with CopyFailedError when a delete fails (the finalizer retries)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const run = cleanupCopies('r', {
        list: (type) => cold('(l|)', { l: type.kind === 'ConfigMap' ? [cm('a', 'settings', {})] : [] }),
        delete: () => cold('-#', undefined, apiError(403, 'Forbidden', 'delete')),
      });
      expectObservable(run).toBe(
        '-#',
        undefined,
        new CopyFailedError('r', [
          {
            ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'settings' },
            op: 'delete',
            code: 403,
            reason: 'Forbidden',
            message: rbacDenial('delete'),
          },
        ]),
      );
    });
  });
});

describe('CopyFailedError: what failed and what to do, by cause', () => {
  const ref: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'settings' };
  const failure = (error: unknown): CopyFailure => {
    let failed: CopyFailure | undefined;
    const plan: CopyPlan = {
      sources: ['src/settings'],
      targets: ['a'],
      desired: [],
      apply: [{ copy: copyOf(cm('src', 'settings', {}), 'r', 'a'), force: true, reason: 'changed' }],
      delete: [],
      conflicts: [],
      unchanged: 0,
    };
    executePlan(plan, { apply: () => throwError(() => error), delete: () => of(undefined) }).subscribe(
      (report) => (failed = report.failed[0]),
    );
    if (failed === undefined) throw new Error('no failure reported');
    return failed;
  };

  it('blames RBAC only when the authorizer refused', () => {
    const denied = failure(apiError(403, 'Forbidden', 'patch'));
    expect(denied).toMatchObject({ ref, code: 403, reason: 'Forbidden', message: rbacDenial('patch') });
    const message = new CopyFailedError('r', [denied]).message;
    expect(message).toContain(`apply ConfigMap a/settings: 403 Forbidden: ${rbacDenial('patch')}`);
    expect(message).toContain("check the operator's RBAC");
  });

  it('names a quota (a 403 that is not RBAC) as the reason, without blaming RBAC', () => {
    // kube-apiserver's ResourceQuota admission, as a real server answers it
    const quota =
      'configmaps "settings" is forbidden: exceeded quota: no-configmaps, requested: configmaps=1, used: configmaps=0, limited: configmaps=0';
    const message = new CopyFailedError('r', [failure(apiError(403, 'Forbidden', 'patch', quota))]).message;
    expect(message).toContain(`403 Forbidden: ${quota}`);
    expect(message).toContain('which RBAC does not change');
    expect(message).not.toContain("check the operator's RBAC");
  });

  it('says an error without an API answer is the operator’s own, naming it, without blaming RBAC', () => {
    // what the cleanup reported on a real server before KubeClient.list read `items: null` as []
    const run = cleanupCopies('r', {
      list: () => throwError(() => new TypeError('list.items is not iterable')),
      delete: () => of(undefined),
    });
    let error: unknown;
    run.subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toBeInstanceOf(CopyFailedError);
    const message = (error as Error).message;
    expect(message).toContain('list ConfigMap /*: TypeError: list.items is not iterable');
    expect(message).toContain('an error inside the operator, not an answer from the API server');
    expect(message).not.toContain('RBAC');
  });

  it('keeps at most MAX_FAILURE_MESSAGE characters of a message', () => {
    const long = failure(apiError(422, 'Invalid', 'patch', 'x'.repeat(1_000)));
    expect(long.message).toHaveLength(MAX_FAILURE_MESSAGE);
    expect(long.message?.endsWith('…')).toBe(true);
  });
});
