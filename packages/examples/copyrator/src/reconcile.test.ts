import { Action } from '@rxkube/core';
import { KubeApiError } from '@rxkube/kube';
import type { ObjectRef } from '@rxkube/kube';
import { of, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CopyFailure, type ExecutionReport, executePlan, MAX_FAILURE_MESSAGE } from './execute.js';
import { type CopyPlan, type PlanInput, planCopies } from './plan.js';
import {
  CopyFailedError,
  type SyncOutcome,
  cleanupCopies,
  rulesForNamespace,
  rulesForObject,
  syncRule,
} from './reconcile.js';
import { ruleStatus } from './rule-status.js';
import {
  type CopyObject,
  type CopyratorRule,
  type CopyratorRuleSpec,
  type Namespace,
  RULE_LABEL,
  RULE_TYPE,
  SOURCE_ANNOTATION,
} from './rule-types.js';
import { copyOf, ruleProblems, selectorMatches } from './rule.js';

// ── fixtures ────────────────────────────────────────────────────────────────────────────────

const rule = (spec: Partial<CopyratorRuleSpec> = {}, name = 'r', generation = 1): CopyratorRule => ({
  ...RULE_TYPE,
  metadata: { name, generation, uid: `uid-${name}` },
  spec: {
    ruleType: 'configmap',
    sourceNamespace: 'src',
    selector: { matchLabels: { copy: 'yes' } },
    ...spec,
  },
});

const ns = (name: string, phase = 'Active'): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name },
  status: { phase },
});
const namespaces = [ns('src'), ns('a'), ns('b'), ns('gone', 'Terminating')];

const cm = (
  namespace: string,
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = { copy: 'yes' },
  extra: Partial<CopyObject['metadata']> = {},
): CopyObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, labels, uid: `uid-${namespace}-${name}`, ...extra },
  data,
});

const secret = (
  namespace: string,
  name: string,
  data: Record<string, string>,
  type = 'Opaque',
): CopyObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace, name, labels: { copy: 'yes' }, uid: `uid-${namespace}-${name}` },
  type,
  data,
});

/** An existing copy of `source` in `namespace`, as the server would hold it. */
const existingCopy = (
  source: CopyObject,
  namespace: string,
  ruleName = 'r',
  patch: Partial<CopyObject> = {},
) => {
  const c = copyOf(source, ruleName, namespace);
  return { ...c, ...patch, metadata: { ...c.metadata, uid: `uid-${namespace}-${c.metadata.name ?? ''}` } };
};

const place = (o: { metadata: { namespace?: string; name?: string } }) =>
  `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
const refPlace = (r: ObjectRef) => `${r.namespace ?? ''}/${r.name}`;

const input = (over: Partial<PlanInput> = {}): PlanInput => ({
  rule: rule(),
  candidates: [],
  namespaces,
  existing: [],
  ...over,
});

/** What kube-apiserver's RBAC authorizer says when it refuses `verb` on the copy. */
const rbacDenial = (verb: string) =>
  `configmaps "settings" is forbidden: User "copyrator" cannot ${verb} resource "configmaps" in API group "" in the namespace "a"`;

const apiError = (
  code: number,
  reason: string,
  verb = 'patch',
  message = code === 403 ? rbacDenial(verb) : reason,
) =>
  new KubeApiError({
    httpStatus: code,
    method: verb === 'delete' ? 'DELETE' : 'PATCH',
    url: 'http://127.0.0.1/api/v1/namespaces/a/configmaps/settings',
    target: { verb, resource: 'configmaps', namespace: 'a', name: 'settings' },
    status: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason,
      code,
      message,
    },
  });

// ── selectors and validation ────────────────────────────────────────────────────────────────

describe('selectorMatches', () => {
  it('needs every matchLabels entry', () => {
    expect(selectorMatches({ matchLabels: { a: '1', b: '2' } }, { a: '1', b: '2', c: '3' })).toBe(true);
    expect(selectorMatches({ matchLabels: { a: '1', b: '2' } }, { a: '1' })).toBe(false);
    expect(selectorMatches({ matchLabels: { a: '1' } }, undefined)).toBe(false);
  });

  it('evaluates In, NotIn, Exists and DoesNotExist like metav1.LabelSelector', () => {
    const labels = { tier: 'web', env: 'prod' };
    expect(
      selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'db'] }] }, labels),
    ).toBe(true);
    expect(
      selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] }, labels),
    ).toBe(false);
    expect(
      selectorMatches({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] }, labels),
    ).toBe(true);
    // NotIn matches objects without the key (Kubernetes semantics)
    expect(
      selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] }, labels),
    ).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'env', operator: 'Exists' }] }, labels)).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, labels)).toBe(
      false,
    );
  });
});

describe('ruleProblems', () => {
  it('accepts a usable rule', () => {
    expect(ruleProblems(rule())).toEqual([]);
  });

  it('refuses an empty selector, a name too long for a label value, In without values', () => {
    expect(ruleProblems(rule({ selector: {} })).join()).toMatch(/at least one matchLabels entry/);
    expect(ruleProblems(rule({}, 'x'.repeat(64))).join()).toMatch(/64 characters.*at most 63/);
    expect(
      ruleProblems(rule({ selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } })).join(),
    ).toMatch(/matchExpressions\[0\] \(In\) needs at least one value/);
  });
});

// ── planning: desired vs existing → apply / delete ──────────────────────────────────────────

describe('planCopies', () => {
  const settings = cm('src', 'settings', { mode: 'a' });
  const other = cm('src', 'other', { x: '1' }, { copy: 'no' });

  it('copies every selected source into every Active namespace except the source', () => {
    const plan = planCopies(input({ candidates: [settings, other] }));
    expect(plan.sources).toEqual(['src/settings']);
    expect(plan.targets).toEqual(['a', 'b']); // not src, not the Terminating one
    expect(plan.apply.map((a) => [place(a.copy), a.force, a.reason])).toEqual([
      ['a/settings', false, 'missing'],
      ['b/settings', false, 'missing'],
    ]);
    expect(plan.delete).toEqual([]);
    const copy = plan.apply[0]?.copy;
    expect(copy).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'settings',
        namespace: 'a',
        labels: { [RULE_LABEL]: 'r' },
        annotations: { [SOURCE_ANNOTATION]: 'src/settings' },
      },
      data: { mode: 'a' },
    });
  });

  it('limits targets to targetNamespaces that exist and are Active', () => {
    const plan = planCopies(
      input({ rule: rule({ targetNamespaces: ['b', 'gone', 'later', 'src'] }), candidates: [settings] }),
    );
    expect(plan.targets).toEqual(['b']);
    expect(plan.apply.map((a) => place(a.copy))).toEqual(['b/settings']);
  });

  it('plans nothing for copies already in sync, and applies (force) copies whose data changed', () => {
    const existing = [existingCopy(settings, 'a'), existingCopy(cm('src', 'settings', { mode: 'old' }), 'b')];
    const plan = planCopies(input({ candidates: [settings], existing }));
    expect(plan.unchanged).toBe(1);
    expect(plan.apply.map((a) => [place(a.copy), a.force, a.reason])).toEqual([
      ['b/settings', true, 'changed'],
    ]);
    expect(plan.delete).toEqual([]);
  });

  it('deletes copies whose source stopped matching or is gone, with the uid as precondition', () => {
    const unlabelled = cm('src', 'settings', { mode: 'a' }, {});
    const existing = [existingCopy(settings, 'a'), existingCopy(settings, 'b')];
    const plan = planCopies(input({ candidates: [unlabelled], existing }));
    expect(plan.sources).toEqual([]);
    expect(plan.apply).toEqual([]);
    expect(plan.delete).toEqual([
      {
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'settings' },
        uid: 'uid-a-settings',
        reason: 'stale',
      },
      {
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'settings' },
        uid: 'uid-b-settings',
        reason: 'stale',
      },
    ]);
  });

  it('leaves copies in Terminating namespaces to the namespace controller, and ignores copies being deleted', () => {
    const existing = [
      existingCopy(settings, 'gone'),
      {
        ...existingCopy(settings, 'a'),
        metadata: { ...existingCopy(settings, 'a').metadata, deletionTimestamp: 'now' },
      },
    ];
    const plan = planCopies(input({ candidates: [], existing }));
    expect(plan.delete).toEqual([]);
    const stillWanted = planCopies(input({ candidates: [settings], existing }));
    expect(stillWanted.apply.map((a) => place(a.copy))).toEqual(['b/settings']); // a/ re-created after its delete
  });

  it('deletes the other kind of copies when the rule type changed', () => {
    const key = secret('src', 'key', { k: 'c2VjcmV0' });
    const plan = planCopies(
      input({
        rule: rule({ ruleType: 'secret' }),
        candidates: [key],
        existing: [existingCopy(settings, 'a')],
      }),
    );
    expect(plan.apply.map((a) => `${a.copy.kind ?? ''} ${place(a.copy)}`)).toEqual([
      'Secret a/key',
      'Secret b/key',
    ]);
    expect(plan.delete.map((d) => `${d.ref.kind} ${refPlace(d.ref)} ${d.reason}`)).toEqual([
      'ConfigMap a/settings stale',
    ]);
  });

  it('replaces a Secret copy whose type changed (type is immutable): delete, then apply', () => {
    const tls = secret('src', 'cert', { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' }, 'kubernetes.io/tls');
    const old = existingCopy(secret('src', 'cert', { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' }), 'a');
    const plan = planCopies(
      input({
        rule: rule({ ruleType: 'secret', targetNamespaces: ['a'] }),
        candidates: [tls],
        existing: [old],
      }),
    );
    expect(plan.delete.map((d) => [refPlace(d.ref), d.reason])).toEqual([['a/cert', 'replace']]);
    expect(plan.apply.map((a) => [place(a.copy), a.copy.type, a.force])).toEqual([
      ['a/cert', 'kubernetes.io/tls', true],
    ]);
  });

  it('never overwrites an object it did not make, nor another rule’s copy: conflicts', () => {
    const foreign = cm('a', 'settings', { mine: 'yes' }, {});
    const theirs = existingCopy(cm('elsewhere', 'settings', {}), 'b', 'other-rule');
    const occupant = (_kind: string, namespace: string, name: string) =>
      [foreign, theirs].find((o) => place(o) === `${namespace}/${name}`);
    const plan = planCopies(input({ candidates: [settings], occupant }));
    expect(plan.apply).toEqual([]);
    expect(plan.conflicts).toEqual([
      { ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'settings' }, heldBy: 'unmanaged' },
      {
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'settings' },
        heldBy: 'rule other-rule',
      },
    ]);
  });

  it('treats its own copy seen only through the occupant lookup as existing (the copy list lags)', () => {
    const ours = existingCopy(settings, 'a');
    const plan = planCopies(
      input({
        candidates: [settings],
        occupant: (_k, n, name) => (`${n}/${name}` === 'a/settings' ? ours : undefined),
      }),
    );
    expect(plan.unchanged).toBe(1);
    expect(plan.apply.map((a) => place(a.copy))).toEqual(['b/settings']);
  });

  it('never copies copies, service-account tokens, or sources being deleted', () => {
    const aCopy = existingCopy(settings, 'src', 'other-rule'); // a copy that lives in our source namespace
    const token = secret('src', 'sa-token', { token: 'dG9rZW4=' }, 'kubernetes.io/service-account-token');
    const deleting = cm('src', 'dying', { a: '1' }, { copy: 'yes' }, { deletionTimestamp: 'now' });
    expect(planCopies(input({ candidates: [aCopy, deleting] })).sources).toEqual([]);
    expect(planCopies(input({ rule: rule({ ruleType: 'secret' }), candidates: [token] })).sources).toEqual(
      [],
    );
  });

  it('copies Secret type and data, ConfigMap binaryData; never the source’s labels or annotations', () => {
    const s = { ...secret('src', 's', { k: 'dg==' }, 'kubernetes.io/dockerconfigjson') };
    s.metadata = { ...s.metadata, annotations: { note: 'x' } };
    expect(copyOf(s, 'r', 'a')).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        namespace: 'a',
        labels: { [RULE_LABEL]: 'r' },
        annotations: { [SOURCE_ANNOTATION]: 'src/s' },
      },
      type: 'kubernetes.io/dockerconfigjson',
      data: { k: 'dg==' },
    });
    const bin = { ...cm('src', 'b', {}), binaryData: { blob: 'AAE=' } };
    expect(copyOf(bin, 'r', 'a')).toMatchObject({ binaryData: { blob: 'AAE=' } });
    expect(copyOf(bin, 'r', 'a')).not.toHaveProperty('data');
  });
});

describe('rulesForObject / rulesForNamespace (watch → rule requests)', () => {
  const rules = [rule({}, 'r'), rule({ ruleType: 'secret' }, 's'), rule({ sourceNamespace: 'other' }, 'o')];

  it('maps a source to the rules of its kind and namespace whose selector matches it', () => {
    expect(rulesForObject(cm('src', 'x', {}), rules)).toEqual([{ name: 'r' }]);
    expect(rulesForObject(secret('src', 'x', {}), rules)).toEqual([{ name: 's' }]);
    expect(rulesForObject(cm('src', 'x', {}, { copy: 'no' }), rules)).toEqual([]);
  });

  it('maps a source that stopped matching to the rules that still have a copy of it', () => {
    const hasCopyOf = (r: string, source: string) => r === 'r' && source === 'src/x';
    expect(rulesForObject(cm('src', 'x', {}, {}), rules, { hasCopyOf })).toEqual([{ name: 'r' }]);
  });

  it('maps a copy to the rule it is labelled with', () => {
    expect(rulesForObject(existingCopy(cm('src', 'x', {}), 'a', 'o'), rules)).toEqual([{ name: 'o' }]);
  });

  it('maps an object elsewhere to the rules with a source of that name (it is, or blocks, their copy)', () => {
    const sources = [cm('src', 'x', {}), cm('other', 'y', {}, { copy: 'no' })];
    const object = (_kind: string, namespace: string, name: string) =>
      sources.find((o) => place(o) === `${namespace}/${name}`);
    expect(rulesForObject(cm('team', 'x', {}, {}), rules, { object })).toEqual([{ name: 'r' }]);
    expect(rulesForObject(cm('team', 'y', {}, {}), rules, { object })).toEqual([]); // o's selector does not match y
    expect(rulesForObject(cm('team', 'z', {}, {}), rules, { object })).toEqual([]);
    // another rule's copy in the way: its own rule and r
    expect(rulesForObject(existingCopy(cm('src', 'x', {}), 'team', 'o'), rules, { object })).toEqual([
      { name: 'o' },
      { name: 'r' },
    ]);
  });

  it('maps a namespace to every rule', () => {
    expect(rulesForNamespace(rules)).toEqual([{ name: 'r' }, { name: 's' }, { name: 'o' }]);
  });
});

// ── status ──────────────────────────────────────────────────────────────────────────────────

describe('ruleStatus', () => {
  const settings = cm('src', 'settings', { mode: 'a' });
  const plan = planCopies(input({ candidates: [settings] }));
  const report = (over: Partial<ExecutionReport> = {}): ExecutionReport => ({
    applied: [],
    deleted: [],
    conflicts: [],
    failed: [],
    ...over,
  });

  it('is Ready/Synced with counts and observedGeneration when every copy is in sync', () => {
    expect(ruleStatus(rule({}, 'r', 3), plan, report())).toEqual({
      observedGeneration: 3,
      sources: 1,
      copies: 2,
      ready: {
        type: 'Ready',
        status: 'True',
        reason: 'Synced',
        message: '2 copies of 1 source(s) in 2 namespace(s)',
        observedGeneration: 3,
      },
    });
  });

  it('is not Ready while places are taken (CopyConflict) or writes failed (CopyFailed), naming them', () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'settings' };
    const conflicted = ruleStatus(rule(), plan, report({ conflicts: [{ ref, heldBy: 'unmanaged' }] }));
    expect(conflicted.copies).toBe(1);
    expect(conflicted.ready).toMatchObject({ status: 'False', reason: 'CopyConflict' });
    expect(conflicted.ready.message).toContain('ConfigMap a/settings (held by unmanaged)');
    const failed = ruleStatus(
      rule(),
      plan,
      report({ failed: [{ ref, op: 'apply', code: 403, reason: 'Forbidden' }] }),
    );
    expect(failed.ready).toMatchObject({ status: 'False', reason: 'CopyFailed' });
    expect(failed.ready.message).toContain('apply ConfigMap a/settings: 403 Forbidden');
  });
});

// ── carrying out a plan (marbles: ports return cold observables) ────────────────────────────

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
