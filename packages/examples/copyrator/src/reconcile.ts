/**
 * The reconcile logic of copyrator, free of wiring: sync a rule (plan, execute, status —
 * `plan.ts`, `execute.ts`, `rule-status.ts`), clean its copies up, and which rules an object or
 * namespace event concerns ({@link rulesForObject}, {@link rulesForNamespace}).
 *
 * Nothing here logs, and nothing here puts a Secret's `data` into a message, an error or a
 * status: copies are named by reference (`namespace/name`) only.
 *
 * @module
 */
import { Action } from '@rxkube/core';
import type { KubeObject, ObjectRef, RequestName, ResourceType } from '@rxkube/kube';
import type { Observable, ObservableInput } from 'rxjs';
import {
  catchError,
  concatMap,
  defer,
  endWith,
  from,
  ignoreElements,
  map,
  mergeMap,
  of,
  reduce,
  throwError,
} from 'rxjs';

import type { CopyObject, CopyratorRule } from './rule-types.js';
import { CONFIGMAP, MAX_LABEL_VALUE, RULE_LABEL, SECRET } from './rule-types.js';
import { copiedType, isSourceOf, keyOf, refOf, ruleProblems, selectorMatches, uidOf } from './rule.js';
import type { CopyPlan, PlanInput } from './plan.js';
import { planCopies } from './plan.js';
import type { CopyFailure, CopyPorts, ExecuteOptions, ExecutionReport } from './execute.js';
import { executePlan, failureOf } from './execute.js';
import type { RuleStatusUpdate } from './rule-status.js';
import { failureAdvice, failureText, invalidRuleStatus, listText, ruleStatus } from './rule-status.js';

/**
 * Some copy requests (writes, or the cleanup's lists) failed; the reconcile fails with this so
 * the controller retries it with backoff. Names the copies, verbs, API reasons and messages —
 * never contents — and what to do by cause: RBAC only when the authorizer refused
 * (`User "…" cannot …`); a quota, an admission policy or a terminating namespace is named as such;
 * an error without an API answer is the operator's own.
 *
 * ## Example
 * ```ts
 * if (report.failed.length > 0) throw new CopyFailedError(rule.metadata.name ?? '', report.failed);
 * ```
 */
export class CopyFailedError extends Error {
  readonly _tag = 'CopyFailedError' as const;
  override readonly name = 'CopyFailedError';
  constructor(
    readonly rule: string,
    readonly failures: readonly CopyFailure[],
  ) {
    super(
      `CopyratorRule ${rule}: ${failures.length} copy request(s) failed (${listText(
        failures.map(failureText),
      )}); retrying with backoff${failureAdvice(failures)}`,
    );
  }
}

/** What {@link syncRule} did. */
export interface SyncOutcome {
  readonly plan: CopyPlan;
  readonly report: ExecutionReport;
  readonly status: RuleStatusUpdate;
  /** `requeue(conflictRequeueMs)` while conflicts remain (the objects in the way are not watched for this rule), else `awaitChange`. */
  readonly action: Action;
}

/** Ports of {@link syncRule}: the copy writes and the rule's status write. */
export interface SyncPorts extends CopyPorts {
  /** Writes the rule's status (no request when unchanged). */
  readonly status: (update: RuleStatusUpdate) => ObservableInput<unknown>;
}

/** Options of {@link syncRule}. */
export interface SyncOptions extends ExecuteOptions {
  /** Requeue delay while conflicts remain; default 60 s. */
  readonly conflictRequeueMs?: number;
}

/**
 * One reconcile of a rule: refuse an invalid rule (status `InvalidSpec`, no writes), else plan,
 * carry out the plan, write the status; then error with {@link CopyFailedError} when a write
 * failed (so the controller backs off and retries), or emit the {@link SyncOutcome}.
 *
 * ## Example
 * ```ts
 * syncRule({ rule, candidates, namespaces, existing }, { apply, delete: del, status: (u) => ctx.status(...) })
 *   .pipe(map((o) => o.action));
 * ```
 *
 * ## Semantics
 * - The status is written after the copies (it reports what they are), also when writes failed.
 * - Emits once and completes, or errors; unsubscribe cancels the writes in flight.
 */
export function syncRule(
  input: PlanInput,
  ports: SyncPorts,
  options: SyncOptions = {},
): Observable<SyncOutcome> {
  return defer(() => {
    const problems = ruleProblems(input.rule);
    const name = input.rule.metadata.name ?? '';
    if (problems.length > 0) {
      const status = invalidRuleStatus(input.rule, problems);
      const plan = planCopies({ ...input, candidates: [], existing: [], namespaces: [] });
      const report: ExecutionReport = { applied: [], deleted: [], conflicts: [], failed: [] };
      return from(ports.status(status)).pipe(
        ignoreElements(),
        endWith<SyncOutcome>({ plan, report, status, action: Action.awaitChange() }),
      );
    }
    const plan = planCopies(input);
    return executePlan(plan, ports, options).pipe(
      mergeMap((report) => {
        const status = ruleStatus(input.rule, plan, report);
        return from(ports.status(status)).pipe(
          ignoreElements(),
          endWith(null),
          map((): SyncOutcome => {
            if (report.failed.length > 0) throw new CopyFailedError(name, report.failed);
            const action =
              report.conflicts.length > 0
                ? Action.requeue(options.conflictRequeueMs ?? 60_000)
                : Action.awaitChange();
            return { plan, report, status, action };
          }),
        );
      }),
    );
  });
}

/** Ports of {@link cleanupCopies}. */
export interface CleanupPorts {
  /** The objects of `type` (all namespaces) matching `labelSelector`; metadata is enough. */
  readonly list: (type: ResourceType, labelSelector: string) => ObservableInput<readonly KubeObject[]>;
  readonly delete: CopyPorts['delete'];
}

/**
 * Deletes every copy of rule `rule` (ConfigMaps and Secrets labelled with it, as the server lists
 * them now), each with its uid as precondition; emits how many it deleted and completes.
 * Idempotent: 404 and 409 (gone, or another object by now) count as done. Errors with
 * {@link CopyFailedError} when a list or delete failed, so the finalizer retries.
 *
 * ## Example
 * ```ts
 * finalizer: { name: FINALIZER, cleanup: (rule) => cleanupCopies(rule.metadata.name ?? '', ports) }
 * ```
 */
export function cleanupCopies(
  rule: string,
  ports: CleanupPorts,
  options: ExecuteOptions = {},
): Observable<number> {
  // A name that is no label value can have no copies (ruleProblems refused it).
  if (rule === '' || rule.length > MAX_LABEL_VALUE) return of(0);
  const selector = `${RULE_LABEL}=${rule}`;
  return from([CONFIGMAP, SECRET]).pipe(
    concatMap((type) =>
      defer(() => from(ports.list(type, selector))).pipe(
        map((items) => items.map((o) => ({ ref: { ...refOf(o), kind: type.kind }, ...uidOf(o) }))),
        catchError((error: unknown) =>
          throwError(
            () =>
              new CopyFailedError(rule, [
                failureOf({ apiVersion: 'v1', kind: type.kind, name: '*' }, 'list', error),
              ]),
          ),
        ),
      ),
    ),
    reduce((all, refs) => [...all, ...refs], [] as { ref: ObjectRef; uid?: string }[]),
    mergeMap((targets) => {
      const plan: CopyPlan = {
        sources: [],
        targets: [],
        desired: [],
        apply: [],
        delete: targets.map((t) => ({ ...t, reason: 'stale' as const })),
        conflicts: [],
        unchanged: 0,
      };
      return executePlan(plan, { apply: () => of(undefined), delete: ports.delete }, options);
    }),
    map((report) => {
      if (report.failed.length > 0) throw new CopyFailedError(rule, report.failed);
      return report.deleted.length;
    }),
  );
}

/** Store lookups {@link rulesForObject} uses; without them it maps by labels and selectors only. */
export interface RuleLookups {
  /** Whether `rule` has a copy of the source `namespace/name`. */
  readonly hasCopyOf?: (rule: string, source: string) => boolean;
  /** The object of `kind` at `namespace/name`, if any. */
  readonly object?: (kind: string, namespace: string, name: string) => CopyObject | undefined;
}

/**
 * The rules an event of a ConfigMap or Secret concerns:
 * - the rule a copy is labelled with;
 * - in a rule's source namespace: the rule when its selector matches the object, or when the
 *   rule still has a copy of it (a source whose label was removed no longer matches, and its
 *   rule must run to remove the copies);
 * - elsewhere: every rule with a source of the same name — the object is, or is in the way of,
 *   that rule's copy (when someone deletes an object that blocked a copy, the rule reruns).
 *
 * ## Example
 * ```ts
 * watches: [{ resource: SECRET, map: (o) => rulesForObject(o, rules.list(), { hasCopyOf, object }) }]
 * ```
 */
export function rulesForObject(
  object: CopyObject,
  rules: Iterable<CopyratorRule>,
  lookups: RuleLookups = {},
): RequestName[] {
  const out = new Set<string>();
  const holder = object.metadata.labels?.[RULE_LABEL];
  if (holder !== undefined) out.add(holder);
  const namespace = object.metadata.namespace ?? '';
  const objectName = object.metadata.name ?? '';
  for (const rule of rules) {
    const spec = rule.spec;
    const name = rule.metadata.name ?? '';
    if (spec === undefined || out.has(name)) continue;
    const kind = copiedType(spec).kind;
    if (object.kind !== undefined && object.kind !== kind) continue;
    if (namespace === spec.sourceNamespace) {
      if (holder !== undefined) continue; // a copy is never a source
      if (
        selectorMatches(spec.selector ?? {}, object.metadata.labels) ||
        lookups.hasCopyOf?.(name, keyOf(object))
      ) {
        out.add(name);
      }
    } else {
      const source = lookups.object?.(kind, spec.sourceNamespace, objectName);
      if (source !== undefined && isSourceOf(rule, source)) out.add(name);
    }
  }
  return [...out].map((n) => ({ name: n }));
}

/**
 * The rules a Namespace event concerns: all of them (a new namespace needs copies, one that
 * became Terminating or was deleted changes the targets).
 *
 * ## Example
 * ```ts
 * watches: [{ resource: NAMESPACE, map: () => rulesForNamespace(rules.list()) }]
 * ```
 */
export function rulesForNamespace(rules: Iterable<CopyratorRule>): RequestName[] {
  return [...rules].map((r) => ({ name: r.metadata.name ?? '' }));
}
