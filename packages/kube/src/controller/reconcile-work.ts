/**
 * The work of one request: wait until every cache is synced (WaitForCacheSync), read the object
 * from the primary Store as the controller's own writes left it, skip it when it is gone, else run
 * the reconcile (inside the finalizer when there is one) — user code isolated: a synchronous throw
 * or a missing result fails that key as a `UserCodeError`, counted once; a rejection or an
 * Observable error is counted as a reconcile failure too (the error itself is kept, so
 * `isNotFound(result.error.cause)` still works, and the result names hook `reconcile`).
 *
 * The deadline (controller-runtime's `ReconciliationTimeout`): the work after the cache sync runs
 * under `timeoutMs` on the scheduler; past it the work is unsubscribed (the key's worker is freed),
 * `ctx.signal` aborts, and one scheduler tick later (so user code honouring the signal has
 * unwound before the key's next reconcile can start) the request fails with a
 * {@link ReconcileTimeoutError} — counted, logged and retried with the key's backoff like any failure. Waiting for the cache is not work:
 * it is neither timed nor counted in flight.
 *
 * @module
 */
import { findTerminalError } from '@rxkube/core';
import type { Action } from '@rxkube/core';
import { catchError, defer, from, map, Observable, of, race, switchMap, take, throwError } from 'rxjs';
import type { ObservableInput, SchedulerLike, Subscription } from 'rxjs';

import { directObservable, runDirect } from '../internal/direct.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { isUserCodeError, UserCodeError } from '../user-code-error.js';
import type { UserCodeHook } from '../user-code-error.js';
import type { ControllerReconcile, ReconcileContext } from './options.js';
import type { FinalizedRun } from './finalizer-stage.js';
import type { UserCodeReporter } from './user-code.js';
import { asUserCodeError } from './user-code.js';
import type { WatchedKind } from './watches.js';

/** The action of a skipped request (identity-compared, so a user's awaitChange is never taken for it). */
export const SKIPPED: Action = Object.freeze({ type: 'awaitChange' });

/**
 * Errors a reconcile failed with asynchronously (a rejection, an Observable error, a timeout):
 * kept unchanged as the result's cause, and remembered here so the result still names hook
 * `reconcile`.
 */
const reconcileFailures = new WeakSet<object>();

/** Whether `error` is one a reconcile failed with (see `reconcileFailures`). */
export function isReconcileFailure(error: unknown): boolean {
  return error !== null && typeof error === 'object' && reconcileFailures.has(error);
}

/**
 * A reconcile ran past its deadline (`reconcileTimeoutMs`): its work was unsubscribed, its
 * `ctx.signal` aborted, and the request is retried with the key's backoff.
 *
 * ## Example
 * ```ts
 * controller({ for: widgetType, client }).run(reconcile).subscribe((r) => {
 *   const cause = r.error?.cause;
 *   if (isReconcileTimeoutError(cause)) console.warn(r.key, 'took longer than', cause.timeoutMs, 'ms');
 * });
 * ```
 */
export class ReconcileTimeoutError extends Error {
  /** Discriminant for tagged-error matching (works across copies of this package). */
  readonly _tag = 'ReconcileTimeoutError' as const;
  override readonly name = 'ReconcileTimeoutError';

  /** @param key the request's key.  @param timeoutMs the deadline it missed.  @param controller its controller. */
  constructor(
    readonly key: string,
    readonly timeoutMs: number,
    readonly controller: string | undefined,
  ) {
    super(
      `reconcile of "${key}"${controller !== undefined ? ` (controller ${controller})` : ''} did not finish ` +
        `within ${timeoutMs} ms (reconcileTimeoutMs): it was cancelled and ctx.signal aborted; it is retried ` +
        'with backoff. Pass ctx.signal to your own I/O (fetch(url, { signal: ctx.signal })), return ' +
        'Action.requeue(ms) instead of waiting, or raise reconcileTimeoutMs',
    );
  }
}

/**
 * Whether `e` is a {@link ReconcileTimeoutError} (by `_tag`).
 *
 * ## Example
 * ```ts
 * import { Counter } from 'prom-client';
 *
 * declare const result: ControllerResult;
 * const timeouts = new Counter({ name: 'widget_reconcile_timeouts_total', help: 'Reconciles past their deadline' });
 * if (isReconcileTimeoutError(result.error?.cause)) timeouts.inc();
 * ```
 */
export function isReconcileTimeoutError(e: unknown): e is ReconcileTimeoutError {
  return e !== null && typeof e === 'object' && (e as { _tag?: unknown })._tag === 'ReconcileTimeoutError';
}

/** What the work needs. */
export interface WorkDeps<T extends KubeObject> {
  readonly controller: string | undefined;
  readonly primary: WatchedKind<T>;
  readonly tracker: WriteTracker;
  readonly synced$: Observable<unknown>;
  /**
   * Whether every cache is synced right now: then the work runs without subscribing to
   * `synced$` (the same outcome: `synced$` would emit at once), sparing a combineLatest, filter,
   * take and switchMap per reconcile (issue 21, the lean event path).
   */
  readonly synced?: () => boolean;
  readonly contextOf: (key: string, object: T, signalOf: () => AbortSignal) => ReconcileContext<T>;
  readonly reconcile: ControllerReconcile<T>;
  readonly finalizer:
    | {
        readonly name: string;
        readonly run: FinalizedRun<T>;
        readonly cleanup: (object: T, ctx: ReconcileContext<T>) => ObservableInput<unknown>;
      }
    | undefined;
  readonly report: UserCodeReporter;
  /** Graceful stop: a request still waiting for its caches then ends as skipped. */
  readonly shutdown$: Observable<unknown> | undefined;
  /** The deadline of one reconcile (after the cache sync); `undefined`: none. */
  readonly timeoutMs: number | undefined;
  readonly scheduler: SchedulerLike;
  /** `ControllerOptions.admit`: wraps a key's whole work, or refuses it (`undefined`: skipped). */
  readonly admit?: ((object: T, work: Observable<Action>) => Observable<Action> | undefined) | undefined;
}

/** `(request, key) => Observable<Action>` for the applier. */
export function reconcileWork<T extends KubeObject>(
  deps: WorkDeps<T>,
): (request: ObjectRef, key: string) => Observable<Action> {
  const { tracker, primary } = deps;
  /** A synchronous failure of the reconcile itself is its "panic" (docs/guides/manager-and-operations.md). */
  const panicked = (error: UserCodeError): Observable<never> => {
    if (error.hook === 'reconcile') deps.report.panic();
    return throwError(() => error);
  };
  /** A reconcile's rejection or Observable error: kept as it is, remembered as the reconcile's. */
  const failedWith = (hook: UserCodeHook, key: string, error: unknown): Error => {
    // Rejected / errored: kept as it is (a KubeApiError stays one), remembered as the reconcile's.
    if (error === null || typeof error !== 'object')
      return asUserCodeError(hook, error, key, deps.controller);
    if (!isUserCodeError(error) && findTerminalError(error) === undefined) reconcileFailures.add(error);
    return error as Error;
  };
  /**
   * Calls user code: its result as an Observable, or the error a synchronous failure (a throw, a
   * missing result, not an ObservableInput) is reported as. Errors of the Observable itself are
   * not mapped here (see {@link failedWith}).
   */
  const callUser = (
    hook: UserCodeHook,
    key: string,
    call: () => ObservableInput<Action>,
  ): Observable<Action> | UserCodeError => {
    let out: ObservableInput<Action>;
    try {
      out = call();
      if (out === undefined || out === null) {
        throw new TypeError(
          'the reconcile returned nothing; return an ObservableInput of one Action, e.g. of(Action.awaitChange())',
        );
      }
    } catch (error) {
      // A UserCodeError of a ctx hook (record, …) keeps its hook; anything else is the reconcile's.
      return asUserCodeError(hook, error, key, deps.controller);
    }
    try {
      return from(out);
    } catch (error) {
      // Not an ObservableInput (from() throws synchronously for a number, a plain object, …).
      return asUserCodeError(hook, error, key, deps.controller);
    }
  };
  const userCode = (
    hook: UserCodeHook,
    key: string,
    call: () => ObservableInput<Action>,
  ): Observable<Action> =>
    defer(() => {
      const action$ = callUser(hook, key, call);
      if (!(action$ instanceof Observable)) return panicked(action$);
      return action$.pipe(catchError((error: unknown) => throwError(() => failedWith(hook, key, error))));
    });
  /**
   * The work of a key with a finalizer: the reconcile (or cleanup) inside it. Without one, the
   * reconcile is called straight from {@link timed} (no defer, no catchError per reconcile).
   */
  const finalized = (
    request: ObjectRef,
    key: string,
    object: T,
    stored: T,
    abort: LazyAbort,
  ): Observable<Action> => {
    const fin = deps.finalizer!;
    // Our finalizer removal left a deleting object without it (possibly with the unchanged
    // resourceVersion, packages/testing/fixtures/kube-wire/13-finalizers.json #7): as far as this controller goes it is gone.
    if (
      object !== stored &&
      object.metadata.deletionTimestamp !== undefined &&
      !(object.metadata.finalizers ?? []).includes(fin.name)
    ) {
      return of(SKIPPED);
    }
    const signalOf = (): AbortSignal => abort.signal;
    return fin.run(
      request,
      key,
      object,
      (current) =>
        userCode('reconcile', key, () => deps.reconcile(request, deps.contextOf(key, current, signalOf))),
      (current) => fin.cleanup(current, deps.contextOf(key, current, signalOf)),
      abort.signal,
    );
  };
  /**
   * The work under the deadline, as one Observable (issue 21, the lean event path: it replaces
   * defer · timeout · finalize around defer · from · catchError per reconcile, each a
   * subscriber and a closure or two). The deadline is one scheduler action from the start of the
   * work until its first value — `timeout({ first })`'s — and its failure settles one tick later.
   * `ctx.signal` aborts on timeout, cancellation and settling; it is made only when read.
   * `counted`: errors are counted as user-code errors here (the caller does not).
   */
  const timed = (request: ObjectRef, key: string, counted = false): Observable<Action> =>
    directObservable<Action>((subscriber) => {
      const fail = (error: unknown): void => {
        if (counted) countUserCodeError(error, key);
        subscriber.error(error);
      };
      const abort = new LazyAbort();
      const stored = primary.store.get(key);
      let work$: Observable<Action> | UserCodeError;
      let userErrors = false;
      if (stored === undefined) work$ = of(SKIPPED);
      else {
        const object = tracker.latest(stored, primary.plan.resource);
        if (deps.finalizer !== undefined) work$ = finalized(request, key, object, stored, abort);
        else {
          work$ = callUser('reconcile', key, () =>
            deps.reconcile(
              request,
              deps.contextOf(key, object, () => abort.signal),
            ),
          );
          userErrors = true;
        }
      }
      if (!(work$ instanceof Observable)) {
        if (work$.hook === 'reconcile') deps.report.panic();
        fail(work$);
        return () => abort.abort(() => settledReason(key));
      }
      let seen = false;
      let deadline: Subscription | undefined;
      const inner = runDirect(work$, {
        next: (action) => {
          seen = true;
          deadline?.unsubscribe();
          deadline = undefined;
          subscriber.next(action);
        },
        error: (error: unknown) => fail(userErrors ? failedWith('reconcile', key, error) : error),
        complete: () => subscriber.complete(),
      });
      const ms = deps.timeoutMs;
      if (ms !== undefined && !seen && !subscriber.closed) {
        deadline = deps.scheduler.schedule(() => {
          inner.unsubscribe();
          const error = new ReconcileTimeoutError(key, ms, deps.controller);
          abort.abort(() => error);
          // The failure settles the request one scheduler tick (a macrotask) after the abort:
          // user code that honours ctx.signal unwinds in promise callbacks (its `finally`
          // blocks run), and only then may the key's next reconcile start — otherwise a
          // change parked behind the hung run would start synchronously beside it.
          deadline = deps.scheduler.schedule(() => {
            deadline = undefined;
            fail(new UserCodeError('reconcile', error, whereOf(deps.controller, key)));
          }, 0);
        }, ms);
      }
      return () => {
        deadline?.unsubscribe();
        inner.unsubscribe();
        abort.abort(() => settledReason(key));
      };
    });
  // A request still waiting for its caches when shutdown begins is not work in flight: it ends
  // as skipped at once (a watch that never syncs must not hold stop() until its deadline).
  const ready$: Observable<boolean> =
    deps.shutdown$ === undefined
      ? deps.synced$.pipe(map(() => true))
      : race(deps.synced$.pipe(map(() => true)), deps.shutdown$.pipe(map(() => false))).pipe(take(1));
  const countUserCodeError = (error: unknown, key: string): void => {
    const user = userCodeErrorIn(error);
    if (user !== undefined) deps.report.count(user);
    else if (isReconcileFailure(error)) {
      deps.report.count(new UserCodeError('reconcile', error, whereOf(deps.controller, key)));
    }
  };
  const admit = deps.admit;
  // The whole work of a key (finalizer included) runs only if admitted, e.g. by a shard's fence.
  const admitted =
    admit === undefined
      ? timed
      : (request: ObjectRef, key: string): Observable<Action> =>
          defer(() => {
            const stored = primary.store.get(key);
            if (stored === undefined) return of(SKIPPED);
            return admit(tracker.latest(stored, primary.plan.resource), timed(request, key)) ?? of(SKIPPED);
          });
  const synced = deps.synced;
  return (request, key) => {
    if (synced?.() === true) {
      // errors are counted, then forwarded: by the work itself, or by one pass-through
      if (admit === undefined) return timed(request, key, true);
      return new Observable<Action>((subscriber) =>
        admitted(request, key).subscribe({
          next: (action) => subscriber.next(action),
          error: (error: unknown) => {
            countUserCodeError(error, key);
            subscriber.error(error);
          },
          complete: () => subscriber.complete(),
        }),
      );
    }
    return ready$.pipe(
      switchMap((ready) => (ready ? admitted(request, key) : of(SKIPPED))),
      catchError((error: unknown) => {
        countUserCodeError(error, key);
        return throwError(() => error);
      }),
    );
  };
}

function whereOf(controller: string | undefined, key: string): { controller?: string; key: string } {
  return { ...(controller !== undefined ? { controller } : {}), key };
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

/**
 * `ctx.signal` of one reconcile, made when first read: most reconciles never read it, and an
 * AbortController, its signal and the abort event were a measurable share of the event path.
 * An abort before the first read is remembered; the signal is then made already aborted.
 */
class LazyAbort {
  private controller: AbortController | undefined;
  private reason: (() => unknown) | undefined;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason());
    }
    return this.controller.signal;
  }

  /** Aborts with `reason()` unless aborted already (the first reason stays). */
  abort(reason: () => unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason());
  }
}

/**
 * The reason `ctx.signal` aborts with once a reconcile settled or was cancelled: an Error (its
 * prototype, name and message) without a captured stack. Every reconcile ends this way, and
 * capturing the stack (deep in RxJS frames, telling nothing) was the largest single cost of the
 * event path (~15% of its CPU at 10k events/s); even `Error.stackTraceLimit = 0` left ~1 µs.
 */
function settledReason(key: string): Error {
  const reason = Object.create(Error.prototype) as Error;
  Object.defineProperty(reason, 'message', {
    value: `reconcile of "${key}" ended (settled or cancelled)`,
    writable: true,
    configurable: true,
  });
  return reason;
}
