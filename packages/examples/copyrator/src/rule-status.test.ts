// The status a rule gets from a plan and its execution.
import { describe, expect, it } from 'vitest';
import type { ExecutionReport } from './execute.js';
import { planCopies } from './plan.js';
import { ruleStatus } from './rule-status.js';

import { cm, input, rule } from './copyrator.test.helper.js';

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
        message:
          '2 copies of 1 source(s) in 2 namespace(s) (every Active namespace: spec.targetNamespaces is unset)',
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

  it('says what it could not find instead of "0 copies of 0 source(s)": source namespace, sources, targets', () => {
    const missingSource = planCopies(input({ rule: rule({ sourceNamespace: 'platfrom' }), candidates: [] }));
    const missing = ruleStatus(rule({ sourceNamespace: 'platfrom' }), missingSource, report()).ready;
    expect(missing).toMatchObject({ status: 'False', reason: 'SourceNamespaceNotFound' });
    expect(missing.message).toContain('spec.sourceNamespace "platfrom" does not exist or is not Active');
    const none = planCopies(input({ candidates: [] }));
    expect(ruleStatus(rule(), none, report()).ready).toMatchObject({
      status: 'False',
      reason: 'NoSources',
      message:
        'no ConfigMap in namespace src matches spec.selector {"matchLabels":{"copy":"yes"}}: nothing to copy; check the selector\'s keys and values',
    });
    const typo = rule({ targetNamespaces: ['tema-a'] });
    const noTarget = ruleStatus(
      typo,
      planCopies(input({ rule: typo, candidates: [settings] })),
      report(),
    ).ready;
    expect(noTarget).toMatchObject({ status: 'False', reason: 'TargetNamespacesNotFound' });
    expect(noTarget.message).toContain('not found: tema-a');
    const partly = rule({ targetNamespaces: ['a', 'tema-a'] });
    expect(
      ruleStatus(partly, planCopies(input({ rule: partly, candidates: [settings] })), report()).ready,
    ).toMatchObject({
      status: 'True',
      reason: 'Synced',
      message: '1 copy of 1 source(s) in 1 namespace(s); target namespace(s) not found, skipped: tema-a',
    });
  });
});

// ── carrying out a plan (marbles: ports return cold observables) ────────────────────────────
