/**
 * {@link executePlan}: carries out a plan through two side-effect ports (apply, delete), one
 * request per copy, failures collected as values that name the copy and the API's reason — never
 * its contents.
 *
 * @module
 */
import type { ObjectRef } from '@rxkube/kube';
import { isConflict, isNotFound } from '@rxkube/kube';
import type { Observable, ObservableInput } from 'rxjs';
import { catchError, concat, defer, endWith, from, ignoreElements, map, mergeMap, of, reduce } from 'rxjs';

import type { CopyObject } from './rule-types.js';
import { keyOf, refOf } from './rule.js';
import type { CopyPlan, PlanConflict } from './plan.js';
import { byPlace } from './plan.js';

/** The side effects a plan needs; each returns an `ObservableInput` (tests pass `cold()`). */
export interface CopyPorts {
  /** Server-side apply of a copy (field manager {@link FIELD_MANAGER}). */
  readonly apply: (copy: CopyObject, options: { readonly force: boolean }) => ObservableInput<unknown>;
  /** Delete one copy, with `uid` as precondition when given. */
  readonly delete: (ref: ObjectRef, uid: string | undefined) => ObservableInput<unknown>;
}

/** A write that failed: the copy, the verb, the API's code/reason and why — never the object. */
export interface CopyFailure {
  readonly ref: ObjectRef;
  readonly op: 'apply' | 'delete' | 'list';
  /** HTTP code when the API answered, else undefined (the error came from inside the operator). */
  readonly code?: number;
  /** `Status.reason` (`Invalid`, `Forbidden`, …) or the error's name. */
  readonly reason: string;
  /**
   * Why, in the API server's words (`Status.message`: it names fields, never Secret values — the
   * API server redacts them) or, for an error without an answer, the error's message; at most
   * {@link MAX_FAILURE_MESSAGE} characters.
   */
  readonly message?: string;
}

/** The longest {@link CopyFailure.message} kept. */
export const MAX_FAILURE_MESSAGE = 300;

/** What carrying out a plan did. */
export interface ExecutionReport {
  readonly applied: readonly ObjectRef[];
  readonly deleted: readonly ObjectRef[];
  /** The plan's conflicts plus applies the server refused with 409 (a field owned by another manager). */
  readonly conflicts: readonly PlanConflict[];
  readonly failed: readonly CopyFailure[];
}

/** Options of {@link executePlan}. */
export interface ExecuteOptions {
  /** Writes in flight at once, per phase (deletes, then applies); default 4. */
  readonly concurrency?: number;
}

type Step =
  | { readonly kind: 'applied'; readonly ref: ObjectRef }
  | { readonly kind: 'deleted'; readonly ref: ObjectRef }
  | { readonly kind: 'conflict'; readonly conflict: PlanConflict }
  | { readonly kind: 'failed'; readonly failure: CopyFailure };

export function failureOf(ref: ObjectRef, op: CopyFailure['op'], error: unknown): CopyFailure {
  const e = error as {
    code?: unknown;
    reason?: unknown;
    name?: unknown;
    message?: unknown;
    status?: { message?: unknown };
  } | null;
  const said =
    typeof e?.status?.message === 'string'
      ? e.status.message
      : typeof e?.message === 'string'
        ? e.message
        : undefined;
  const message =
    said === undefined || said === ''
      ? undefined
      : said.length > MAX_FAILURE_MESSAGE
        ? `${said.slice(0, MAX_FAILURE_MESSAGE - 1)}…`
        : said;
  return {
    ref,
    op,
    ...(typeof e?.code === 'number' ? { code: e.code } : {}),
    reason: typeof e?.reason === 'string' ? e.reason : typeof e?.name === 'string' ? e.name : 'Error',
    ...(message !== undefined ? { message } : {}),
  };
}

/**
 * Carries out a plan through `ports`: every delete first (so a Secret being replaced is gone
 * before it is applied again), then every apply; emits one {@link ExecutionReport} and completes.
 * Never errors: each write's failure is a value in the report.
 *
 * ## Example
 * ```ts
 * executePlan(plan, {
 *   apply: (copy, { force }) => client.apply(copy, { fieldManager: FIELD_MANAGER, force }),
 *   delete: (ref, uid) => client.delete(ref, uid ? { preconditions: { uid } } : {}),
 * }).subscribe((report) => console.log(report.applied.length, report.failed.length));
 * ```
 *
 * ## Semantics
 * - Deletes: 404 (already gone) and 409 (the uid precondition failed: it is another object now)
 *   count as deleted. Applies: a 409 on an apply without `force` is a conflict (a field another
 *   manager owns has another value: the object is not ours), not a failure.
 * - An apply whose `replace` delete failed is not attempted (it would be refused).
 * - Concurrency: at most `concurrency` writes in flight within each phase.
 * - unsubscribe: writes in flight are unsubscribed; nothing is reported.
 */
export function executePlan(
  plan: CopyPlan,
  ports: CopyPorts,
  options: ExecuteOptions = {},
): Observable<ExecutionReport> {
  const concurrency = options.concurrency ?? 4;
  const failedDeletes = new Set<string>();
  const deletes$ = from(plan.delete).pipe(
    mergeMap(
      (d): Observable<Step> =>
        defer(() => from(ports.delete(d.ref, d.uid))).pipe(
          ignoreElements(),
          endWith<Step>({ kind: 'deleted', ref: d.ref }),
          catchError((error: unknown) => {
            if (isNotFound(error) || isConflict(error)) return of<Step>({ kind: 'deleted', ref: d.ref });
            if (d.reason === 'replace')
              failedDeletes.add(`${d.ref.kind}:${d.ref.namespace ?? ''}/${d.ref.name}`);
            return of<Step>({ kind: 'failed', failure: failureOf(d.ref, 'delete', error) });
          }),
        ),
      concurrency,
    ),
  );
  const applies$ = defer(() =>
    from(plan.apply.filter((a) => !failedDeletes.has(`${a.copy.kind ?? ''}:${keyOf(a.copy)}`))),
  ).pipe(
    mergeMap(
      (a): Observable<Step> =>
        defer(() => from(ports.apply(a.copy, { force: a.force }))).pipe(
          ignoreElements(),
          endWith<Step>({ kind: 'applied', ref: refOf(a.copy) }),
          catchError((error: unknown) =>
            of<Step>(
              !a.force && isConflict(error)
                ? { kind: 'conflict', conflict: { ref: refOf(a.copy), heldBy: 'unmanaged' } }
                : { kind: 'failed', failure: failureOf(refOf(a.copy), 'apply', error) },
            ),
          ),
        ),
      concurrency,
    ),
  );
  const sortRefs = (refs: ObjectRef[]): ObjectRef[] =>
    refs.sort((a, b) =>
      byPlace({ namespace: a.namespace ?? '', name: a.name }, { namespace: b.namespace ?? '', name: b.name }),
    );
  return concat(deletes$, applies$).pipe(
    reduce(
      (acc, step) => {
        if (step.kind === 'applied') acc.applied.push(step.ref);
        else if (step.kind === 'deleted') acc.deleted.push(step.ref);
        else if (step.kind === 'conflict') acc.conflicts.push(step.conflict);
        else acc.failed.push(step.failure);
        return acc;
      },
      {
        applied: [] as ObjectRef[],
        deleted: [] as ObjectRef[],
        conflicts: [...plan.conflicts],
        failed: [] as CopyFailure[],
      },
    ),
    map((r) => ({
      applied: sortRefs(r.applied),
      deleted: sortRefs(r.deleted),
      conflicts: r.conflicts,
      failed: r.failed,
    })),
  );
}
