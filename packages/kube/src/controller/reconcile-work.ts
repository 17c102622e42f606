/**
 * The work of one request: wait until every cache is synced (WaitForCacheSync), read the object
 * from the primary Store as the controller's own writes left it, skip it when it is gone, else run
 * the reconcile (inside the finalizer when there is one) — user code isolated: a synchronous throw
 * or a missing result fails that key as a `UserCodeError`, counted once.
 *
 * @module
 */
import { findTerminalError } from '@rxkube/core';
import type { Action } from '@rxkube/core';
import { catchError, defer, from, of, switchMap, throwError } from 'rxjs';
import type { Observable, ObservableInput } from 'rxjs';

import type { WriteTracker } from '../sink/write-tracker.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { isUserCodeError } from '../user-code-error.js';
import type { UserCodeError } from '../user-code-error.js';
import type { UserCodeHook } from '../user-code-error.js';
import type { ControllerReconcile, ReconcileContext } from './options.js';
import type { FinalizedRun } from './finalizer-stage.js';
import type { UserCodeReporter } from './user-code.js';
import { asUserCodeError } from './user-code.js';
import type { WatchedKind } from './watches.js';

/** The action of a skipped request (identity-compared, so a user's awaitChange is never taken for it). */
export const SKIPPED: Action = Object.freeze({ type: 'awaitChange' });

/** What the work needs. */
export interface WorkDeps<T extends KubeObject> {
  readonly controller: string | undefined;
  readonly primary: WatchedKind<T>;
  readonly tracker: WriteTracker;
  readonly synced$: Observable<unknown>;
  readonly contextOf: (key: string, object: T) => ReconcileContext<T>;
  readonly reconcile: ControllerReconcile<T>;
  readonly finalizer:
    | {
        readonly name: string;
        readonly run: FinalizedRun<T>;
        readonly cleanup: (object: T, ctx: ReconcileContext<T>) => ObservableInput<unknown>;
      }
    | undefined;
  readonly report: UserCodeReporter;
  /** `ControllerOptions.admit`: wraps a key's whole work, or refuses it (`undefined`: skipped). */
  readonly admit?: ((object: T, work: Observable<Action>) => Observable<Action> | undefined) | undefined;
}

/** `(request, key) => Observable<Action>` for the applier. */
export function reconcileWork<T extends KubeObject>(
  deps: WorkDeps<T>,
): (request: ObjectRef, key: string) => Observable<Action> {
  const { tracker, primary } = deps;
  const userCode = (
    hook: UserCodeHook,
    key: string,
    call: () => ObservableInput<Action>,
  ): Observable<Action> =>
    defer(() => {
      let out: ObservableInput<Action>;
      try {
        out = call();
        if (out === undefined || out === null) {
          throw new TypeError(
            'the reconcile returned nothing; return an ObservableInput of one Action, e.g. of(Action.awaitChange())',
          );
        }
        return from(out);
      } catch (error) {
        // A UserCodeError of a ctx hook (record, …) keeps its hook; anything else is the reconcile's.
        return throwError(() => asUserCodeError(hook, error, key, deps.controller));
      }
    });
  const run = (request: ObjectRef, key: string): Observable<Action> =>
    deps.synced$.pipe(
      switchMap((): Observable<Action> => {
        const stored = primary.store.get(key);
        if (stored === undefined) return of(SKIPPED);
        const object = tracker.latest(stored, primary.plan.resource);
        const fin = deps.finalizer;
        if (fin === undefined)
          return userCode('reconcile', key, () => deps.reconcile(request, deps.contextOf(key, object)));
        // Our finalizer removal left a deleting object without it (possibly with the unchanged
        // resourceVersion, packages/testing/fixtures/kube-wire/13-finalizers.json #7): as far as this controller goes it is gone.
        if (
          object !== stored &&
          object.metadata.deletionTimestamp !== undefined &&
          !(object.metadata.finalizers ?? []).includes(fin.name)
        ) {
          return of(SKIPPED);
        }
        return fin.run(
          request,
          key,
          object,
          (current) =>
            userCode('reconcile', key, () => deps.reconcile(request, deps.contextOf(key, current))),
          (current) => fin.cleanup(current, deps.contextOf(key, current)),
        );
      }),
      catchError((error: unknown) => {
        const user = userCodeErrorIn(error);
        if (user !== undefined) deps.report.count(user);
        return throwError(() => error);
      }),
    );
  const admit = deps.admit;
  if (admit === undefined) return run;
  // The whole work of a key (finalizer included) runs only if admitted, e.g. by a shard's fence.
  return (request, key) =>
    deps.synced$.pipe(
      switchMap((): Observable<Action> => {
        const stored = primary.store.get(key);
        if (stored === undefined) return of(SKIPPED);
        return admit(tracker.latest(stored, primary.plan.resource), run(request, key)) ?? of(SKIPPED);
      }),
    );
}

/** The first {@link UserCodeError} in `error`'s cause chain (a terminal error stops the search). */
export function userCodeErrorIn(error: unknown): UserCodeError | undefined {
  let current = error;
  for (let depth = 0; depth < 16 && current !== null && typeof current === 'object'; depth++) {
    if (isUserCodeError(current)) return current;
    if (findTerminalError(current) === current) return undefined;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
