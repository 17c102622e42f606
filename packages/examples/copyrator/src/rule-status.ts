/**
 * The status a rule gets from a plan and its execution: counts, conditions, and messages that say
 * what failed and what to do by cause (RBAC, quota, admission, a terminating namespace).
 *
 * @module
 */
import type { ConditionInput, ObjectRef } from '@rxkube/kube';

import type { CopyratorRule } from './rule-types.js';
import { refOf } from './rule.js';
import type { CopyPlan } from './plan.js';
import type { CopyFailure, ExecutionReport } from './execute.js';

/** The status a rule gets (what the reconcile writes, besides `conditions[].lastTransitionTime`). */
export interface RuleStatusUpdate {
  readonly observedGeneration?: number;
  readonly sources: number;
  readonly copies: number;
  readonly ready: ConditionInput;
}

const refText = (r: ObjectRef): string => `${r.kind} ${r.namespace ?? ''}/${r.name}`;
export const failureText = (f: CopyFailure): string =>
  `${f.op} ${refText(f.ref)}: ${f.code !== undefined ? `${f.code} ` : ''}${f.reason}${
    f.message !== undefined && f.message !== f.reason ? `: ${f.message}` : ''
  }`;

/**
 * Whether a failure is an RBAC denial: a 403 whose message is the authorizer's (`User "…" cannot
 * <verb> resource "…"`, as kube-apiserver's RBAC authorizer words it). Other 403s — a
 * ResourceQuota, an admission webhook, a terminating namespace — are refusals more RBAC does not
 * change.
 */
function isRbacDenial(f: CopyFailure): boolean {
  return f.code === 403 && (f.message === undefined || /\bcannot \S+ (resource|path) /.test(f.message));
}

/** What to do about `failures`, by cause: RBAC only when the authorizer said no. */
export function failureAdvice(failures: readonly CopyFailure[]): string {
  const advice: string[] = [];
  if (failures.some(isRbacDenial)) {
    advice.push(
      "check the operator's RBAC (list/watch/create/patch/delete on configmaps and secrets) in the namespaces named",
    );
  }
  if (failures.some((f) => f.code === 403 && !isRbacDenial(f))) {
    advice.push(
      'the API server refused for the reason given (a quota, an admission policy or a terminating namespace), which RBAC does not change',
    );
  }
  if (failures.some((f) => f.code === undefined)) {
    advice.push('an error inside the operator, not an answer from the API server: please report it');
  }
  return advice.length > 0 ? ` — ${advice.join('; ')}` : '';
}

export function listText(items: readonly string[], max = 5): string {
  return items.length <= max
    ? items.join(', ')
    : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/**
 * The rule's status after a plan ran: sources and in-sync copies counted, and a `Ready`
 * condition — `True`/`Synced` when every wanted copy is in sync, `False`/`CopyConflict` when
 * other objects hold some places, `False`/`CopyFailed` when writes failed.
 *
 * ## Example
 * ```ts
 * const update = ruleStatus(rule, plan, report);
 * ctx.status((s) => { s.copies = update.copies; setCondition(s, update.ready); });
 * ```
 */
export function ruleStatus(rule: CopyratorRule, plan: CopyPlan, report: ExecutionReport): RuleStatusUpdate {
  const generation = rule.metadata.generation;
  const og = generation !== undefined ? { observedGeneration: generation } : {};
  const bad = new Set([
    ...report.conflicts.map((c) => refText(c.ref)),
    ...report.failed.filter((f) => f.op === 'apply').map((f) => refText(f.ref)),
  ]);
  const copies = plan.desired.filter((c) => !bad.has(refText(refOf(c)))).length;
  const counts = { ...og, sources: plan.sources.length, copies };
  if (report.failed.length > 0) {
    const what = report.failed.map(failureText);
    return {
      ...counts,
      ready: {
        type: 'Ready',
        status: 'False',
        reason: 'CopyFailed',
        message: `${report.failed.length} write(s) failed, retrying: ${listText(what)}`,
        ...og,
      },
    };
  }
  if (report.conflicts.length > 0) {
    const what = report.conflicts.map((c) => `${refText(c.ref)} (held by ${c.heldBy})`);
    return {
      ...counts,
      ready: {
        type: 'Ready',
        status: 'False',
        reason: 'CopyConflict',
        message: `${report.conflicts.length} copy place(s) taken by other objects, left alone: ${listText(what)}; rename or delete them`,
        ...og,
      },
    };
  }
  // Nothing to copy is never "Synced": say what could not be found.
  const spec = rule.spec;
  const kind = spec?.ruleType === 'secret' ? 'Secret' : 'ConfigMap';
  if (plan.sourceNamespaceFound === false) {
    return {
      ...counts,
      ready: {
        type: 'Ready',
        status: 'False',
        reason: 'SourceNamespaceNotFound',
        message: `spec.sourceNamespace ${JSON.stringify(spec?.sourceNamespace ?? '')} does not exist or is not Active: nothing to copy; check its spelling`,
        ...og,
      },
    };
  }
  if (plan.sources.length === 0) {
    return {
      ...counts,
      ready: {
        type: 'Ready',
        status: 'False',
        reason: 'NoSources',
        message: `no ${kind} in namespace ${spec?.sourceNamespace ?? '?'} matches spec.selector ${JSON.stringify(spec?.selector ?? {})}: nothing to copy; check the selector's keys and values`,
        ...og,
      },
    };
  }
  const notFound = plan.targetsNotFound ?? [];
  if (spec?.targetNamespaces !== undefined && plan.targets.length === 0) {
    return {
      ...counts,
      ready: {
        type: 'Ready',
        status: 'False',
        reason: 'TargetNamespacesNotFound',
        message: `none of spec.targetNamespaces exists and is Active (not found: ${listText(notFound)}), or it names only the source namespace: nothing to copy into`,
        ...og,
      },
    };
  }
  const into =
    spec?.targetNamespaces === undefined
      ? ' (every Active namespace: spec.targetNamespaces is unset)'
      : notFound.length > 0
        ? `; target namespace(s) not found, skipped: ${listText(notFound)}`
        : '';
  return {
    ...counts,
    ready: {
      type: 'Ready',
      status: 'True',
      reason: 'Synced',
      message: `${copies} cop${copies === 1 ? 'y' : 'ies'} of ${plan.sources.length} source(s) in ${plan.targets.length} namespace(s)${into}`,
      ...og,
    },
  };
}

/**
 * The status of a rule {@link ruleProblems} refuses: `Ready=False`, reason `InvalidSpec`, the
 * problems as the message.
 *
 * ## Example
 * ```ts
 * const problems = ruleProblems(rule);
 * if (problems.length > 0) ctx.status((s) => setCondition(s, invalidRuleStatus(rule, problems).ready));
 * ```
 */
export function invalidRuleStatus(rule: CopyratorRule, problems: readonly string[]): RuleStatusUpdate {
  const generation = rule.metadata.generation;
  const og = generation !== undefined ? { observedGeneration: generation } : {};
  return {
    ...og,
    sources: 0,
    copies: 0,
    ready: { type: 'Ready', status: 'False', reason: 'InvalidSpec', message: problems.join('; '), ...og },
  };
}
