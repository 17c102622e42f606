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
