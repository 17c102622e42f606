/**
 * `finalizer`: kube-rs's finalizer helper as a reconcile wrapper — the finalizer is added before
 * any side effect, `cleanup` runs when the object is being deleted, and the finalizer is removed
 * with a JSON Patch `test` + `remove` pinned to its index (docs/promises.md promise 8).
 *
 * @module
 */
import { Action, InvalidArgumentError } from '@rxkube/core';
import {
  asyncScheduler,
  catchError,
  concat,
  defer,
  EMPTY,
  from,
  ignoreElements,
  last,
  of,
  switchMap,
  tap,
  throwError,
} from 'rxjs';
import type { Observable, ObservableInput, SchedulerLike } from 'rxjs';

import type { Client } from '../client/client.js';
import type { JsonPatchOperation } from '../client/verb-options.js';
import { isNamespaceTerminating, isNotFound } from '../errors.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';

/**
 * A finalizer whose cleanup keeps failing (given to `onStuck`).
 *
 * ## Example
 * ```ts
 * finalizer<Widget>('example.com/cleanup', {
 *   client,
 *   apply: (w) => ensureBucket(w).pipe(map(() => Action.awaitChange())),
 *   cleanup: (w) => deleteBucket(w),
 *   onStuck: (s: StuckFinalizer<Widget>) => log.warn({ key: s.key, failures: s.failures, err: s.error }, 'cleanup stuck'),
 * });
 * ```
 */
export interface StuckFinalizer<T> {
  /** `namespace/name`. */
  readonly key: string;
  readonly finalizer: string;
  readonly object: T;
  /** Consecutive failed cleanups. */
  readonly failures: number;
  /** Scheduler time of the first failure of this streak. */
  readonly sinceMs: number;
  /** The last error. */
  readonly error: unknown;
}

/**
 * The Event `finalizer` records when a cleanup is stuck (an `EventRecorder` fits).
 *
 * ## Example
 * ```ts
 * const events: FinalizerEventSink = new EventRecorder(client, {
 *   reportingController: 'example.com/widget-controller',
 *   reportingInstance: 'widgets-0',
 * });
 * finalizer<Widget>('example.com/cleanup', {
 *   client,
 *   apply: (w) => ensureBucket(w).pipe(map(() => Action.awaitChange())),
 *   cleanup: (w) => deleteBucket(w),
 *   events,
 * });
 * ```
 */
export interface FinalizerEventSink {
  record(
    regarding: KubeObject,
    event: {
      readonly type: 'Warning';
      readonly reason: string;
      readonly action: string;
      readonly note: string;
    },
  ): void;
}

/**
 * Options of {@link finalizer}.
 *
 * ## Example
 * ```ts
 * const options: FinalizerOptions<Widget> = {
 *   client,
 *   apply: (w) => ensureBucket(w).pipe(map(() => Action.requeue(300_000))),
 *   cleanup: (w) => deleteBucket(w),
 *   stuck: { failures: 3, afterMs: 60_000 },
 * };
 * const reconcile = finalizer('example.com/cleanup', options);
 * ```
 */
export interface FinalizerOptions<T extends KubeObject> {
  /**
   * Patches the object: `client.patch(ref, { type: 'json', body: ops })` (a `KubeClient`, the
   * controller's client, a test's `stubClient()`).
   */
  readonly client: Pick<Client, 'patch'>;
  /** `managedFields` manager of the patches; default: none sent. */
  readonly fieldManager?: string;
  /** The reconcile proper; called with our finalizer in place, never while the object is being deleted. */
  readonly apply: (object: T) => ObservableInput<Action>;
  /**
   * Releases what `apply` created; must be idempotent (it runs again after any failure, including a
   * failed finalizer removal). Completing is success; emitted values are ignored; an error is
   * retried by the applier's backoff.
   */
  readonly cleanup: (object: T) => ObservableInput<unknown>;
  /** When a failing cleanup is reported stuck: after `failures` failures (default 5) or `afterMs` (default 300 000). */
  readonly stuck?: { readonly failures?: number; readonly afterMs?: number };
  /** Called once per streak when a cleanup becomes stuck (log, metric). */
  readonly onStuck?: (stuck: StuckFinalizer<T>) => void;
  /**
   * Receives a Warning `FinalizerStuck` Event when a cleanup becomes stuck, and `CleanupIncomplete`
   * when a cleanup was refused because the namespace it writes into is being deleted — recorded
   * on the object (a cluster-scoped object's Events go to `default`, as Kubernetes does); not
   * when the object's own namespace is the terminating one (no Event can be stored there: the
   * log line says so).
   */
  readonly events?: FinalizerEventSink;
  /**
   * Where a cleanup cut short is logged (a `ControllerLogger` fits): a terminating namespace
   * refused its write, so the finalizer is removed without it — a `warn` line naming the object,
   * the finalizer, the namespace and whether the Event was recorded.
   */
  readonly log?: {
    warn?(message: string, fields: Readonly<Record<string, unknown>>): void;
  };
  /** Failing objects tracked at most (oldest forgotten); default 10 000. */
  readonly maxTracked?: number;
}

/**
 * The reconcile function `finalizer` returns, with its stuck-cleanup gauge.
 *
 * ## Example
 * ```ts
 * import { Gauge } from 'prom-client';
 *
 * declare const options: FinalizerOptions<Widget>;
 * const reconcile: FinalizerReconcile<Widget> = finalizer('example.com/cleanup', options);
 * widgets$.pipe(applier(objectKey, reconcile)).subscribe();
 * new Gauge({
 *   name: 'widget_finalizer_stuck',
 *   help: 'Widgets whose cleanup is stuck',
 *   collect() {
 *     this.set(reconcile.stuckCount()); // on each scrape
 *   },
 * });
 * ```
 */
export interface FinalizerReconcile<T> {
  (object: T): Observable<Action>;
  /** Objects whose cleanup is failing now and was reported stuck (a gauge). */
  stuckCount(): number;
  /** Objects whose cleanup is failing now. */
  failingCount(): number;
}

interface Streak {
  failures: number;
  readonly sinceMs: number;
  reported: boolean;
}

const QUALIFIED_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/**
 * Wraps a reconcile so that a finalizer guards everything it creates (kube-rs `finalizer`).
 *
 * ## Example
 * ```ts
 * const reconcile = finalizer<Widget>('example.com/cleanup', {
 *   client,
 *   apply: (w) => ensureBucket(w).pipe(map(() => Action.requeue(300_000))),
 *   cleanup: (w) => deleteBucket(w), // idempotent
 *   events: recorder,
 * });
 * widgets$.pipe(applier(objectKey, reconcile, { concurrency: 4 }));
 * ```
 *
 * ## Semantics
 * | object | what happens | Action |
 * |---|---|---|
 * | not deleting, no finalizer | JSON patch adds it (`test` the list, `add` `/metadata/finalizers/-`; or `test` it is `null` and `add` the list), then `apply(patched object)` | `apply`'s |
 * | not deleting, finalizer present | `apply(object)` | `apply`'s |
 * | deleting, finalizer present | `cleanup(object)` to completion, then `[test, remove]` of `/metadata/finalizers/<index>` | `awaitChange` |
 * | deleting, no finalizer | nothing (it was removed already) | `awaitChange` |
 *
 * - A failed `test` (someone else changed the finalizer list: 422) or any error is thrown, so the
 *   applier retries with backoff on the latest object; 404 on removal (already gone) is success.
 * - A cleanup refused because a namespace it writes into is being deleted (403
 *   `NamespaceTerminating`, also in a `cause` chain) can never succeed: it counts as done — a
 *   Warning Event `CleanupIncomplete` says so — and the finalizer is removed, so a namespace
 *   deletion is never blocked by it.
 * - Stuck cleanups: each failure counts; at `stuck.failures` consecutive failures or `stuck.afterMs`
 *   since the first (checked at each failure, time from the scheduler), `onStuck` runs and a
 *   Warning Event `FinalizerStuck` is recorded, once per streak. A successful cleanup, or seeing the
 *   object without our finalizer, ends the streak.
 *
 * ## Guarantees
 * - `apply` never runs unless our finalizer is on the object the server returned.
 * - The finalizer is never removed before `cleanup` completed, and never by index alone (the
 *   `test` pins the name at that index).
 *
 * ## Memory
 * One small record per object whose cleanup is failing, at most `maxTracked`, released on success.
 *
 * @param name the finalizer, domain-qualified (`example.com/cleanup`).
 * @param options client, apply, cleanup, stuck thresholds and hooks.
 * @param scheduler time source of the stuck threshold.
 * @throws {InvalidArgumentError} synchronously for a bad name or option.
 */
export function finalizer<T extends KubeObject>(
  name: string,
  options: FinalizerOptions<T>,
  scheduler: SchedulerLike = asyncScheduler,
): FinalizerReconcile<T> {
  const client = options?.client;
  if (typeof client?.patch !== 'function') {
    throw new InvalidArgumentError(
      'finalizer',
      'options.client',
      client,
      'must be a Client (a KubeClient, or any object with a patch function)',
    );
  }
  const manager = options.fieldManager;
  if (manager !== undefined && (typeof manager !== 'string' || manager === '')) {
    throw new InvalidArgumentError(
      'finalizer',
      'options.fieldManager',
      manager,
      'must be a non-empty string',
    );
  }
  if (typeof name !== 'string' || name.length > 253 || !QUALIFIED_NAME.test(name)) {
    throw new InvalidArgumentError(
      'finalizer',
      'name',
      name,
      'must be a domain-qualified name such as "example.com/cleanup" (Kubernetes warns about unqualified finalizers)',
    );
  }
  const { apply, cleanup } = options;
  for (const [arg, fn] of [
    ['apply', apply],
    ['cleanup', cleanup],
  ] as const) {
    if (typeof fn !== 'function')
      throw new InvalidArgumentError('finalizer', `options.${arg}`, fn, 'must be a function');
  }
  const stuckFailures = options.stuck?.failures ?? 5;
  const stuckAfterMs = options.stuck?.afterMs ?? 300_000;
  const maxTracked = options.maxTracked ?? 10_000;
  if (!Number.isInteger(stuckFailures) || stuckFailures < 1) {
    throw new InvalidArgumentError(
      'finalizer',
      'options.stuck.failures',
      stuckFailures,
      'must be an integer >= 1',
    );
  }
  if (typeof stuckAfterMs !== 'number' || Number.isNaN(stuckAfterMs) || stuckAfterMs < 0) {
    throw new InvalidArgumentError(
      'finalizer',
      'options.stuck.afterMs',
      stuckAfterMs,
      'must be a number >= 0 (ms; Infinity to disable)',
    );
  }
  if (!Number.isInteger(maxTracked) || maxTracked < 1) {
    throw new InvalidArgumentError('finalizer', 'options.maxTracked', maxTracked, 'must be an integer >= 1');
  }

  const patchOptions = manager !== undefined ? { fieldManager: manager } : {};
  return finalizerOver(
    name,
    options,
    (ref, ops) => client.patch<T>(ref, { type: 'json', body: ops }, patchOptions),
    scheduler,
  );
}

/**
 * {@link finalizer} over a patch function of the caller's: the controller's finalizer stage passes
 * its client's patch wrapped in the write tracker (internal: not exported by the entry).
 */
export function finalizerOver<T extends KubeObject>(
  name: string,
  options: Omit<FinalizerOptions<T>, 'client' | 'fieldManager'>,
  patch: (ref: ObjectRef, ops: readonly JsonPatchOperation[]) => ObservableInput<T>,
  scheduler: SchedulerLike = asyncScheduler,
): FinalizerReconcile<T> {
  // Inside: finalizer() checked these at the door; the controller's finalizer stage passes the
  // name and thresholds its options check ran through finalizer(), and functions of its own.
  const { apply, cleanup } = options;
  const stuckFailures = options.stuck?.failures ?? 5;
  const stuckAfterMs = options.stuck?.afterMs ?? 300_000;
  const maxTracked = options.maxTracked ?? 10_000;

  const streaks = new Map<string, Streak>();

  const failed = (key: string, object: T, error: unknown): void => {
    const now = scheduler.now();
    let streak = streaks.get(key);
    if (streak === undefined) {
      streak = { failures: 0, sinceMs: now, reported: false };
      streaks.set(key, streak);
      if (streaks.size > maxTracked) {
        const oldest = streaks.keys().next();
        if (oldest.done !== true) streaks.delete(oldest.value);
      }
    }
    streak.failures++;
    if (streak.reported || (streak.failures < stuckFailures && now - streak.sinceMs < stuckAfterMs)) return;
    streak.reported = true;
    const info: StuckFinalizer<T> = {
      key,
      finalizer: name,
      object,
      failures: streak.failures,
      sinceMs: streak.sinceMs,
      error,
    };
    options.onStuck?.(info);
    options.events?.record(object, {
      type: 'Warning',
      reason: 'FinalizerStuck',
      action: 'Cleanup',
      note: `cleanup for finalizer ${name} failed ${streak.failures} times in ${Math.round((now - streak.sinceMs) / 1000)} s; the object cannot be deleted until it succeeds. Last error: ${describe(error)}`,
    });
  };

  const reconcile = (object: T): Observable<Action> =>
    defer(() => {
      const key = objectKey(object);
      const ref = refOf(object, key);
      const finalizers = object.metadata.finalizers;
      const index = finalizers?.indexOf(name) ?? -1;
      if (object.metadata.deletionTimestamp === undefined) {
        if (index >= 0) return from(apply(object));
        const ops: JsonPatchOperation[] =
          finalizers === undefined
            ? [
                { op: 'test', path: '/metadata/finalizers', value: null },
                { op: 'add', path: '/metadata/finalizers', value: [name] },
              ]
            : [
                { op: 'test', path: '/metadata/finalizers', value: [...finalizers] },
                { op: 'add', path: '/metadata/finalizers/-', value: name },
              ];
        return defer(() => patch(ref, ops)).pipe(
          last(),
          switchMap((patched) => from(apply(patched))),
        );
      }
      if (index < 0) {
        streaks.delete(key);
        return of(Action.awaitChange());
      }
      const remove: JsonPatchOperation[] = [
        { op: 'test', path: `/metadata/finalizers/${index}`, value: name },
        { op: 'remove', path: `/metadata/finalizers/${index}` },
      ];
      const cleaned$ = defer(() => from(cleanup(object))).pipe(
        ignoreElements(),
        catchError((error: unknown) => {
          const refused = namespaceTerminatingIn(error);
          if (refused !== undefined) {
            // The namespace it must write into is being deleted: that write can never succeed, and
            // retrying would block the deletion forever. Finish, and say so — in the log always,
            // and in an Event on the object where one can be stored (not in a terminating namespace).
            const namespace = refused.target.namespace ?? '?';
            const storable =
              object.metadata.namespace === undefined || object.metadata.namespace !== namespace;
            if (storable) {
              options.events?.record(object, {
                type: 'Warning',
                reason: 'CleanupIncomplete',
                action: 'Cleanup',
                note: `cleanup for finalizer ${name} could not write into namespace ${namespace}, which is being deleted; the finalizer is removed so the deletion can finish. ${describe(refused)}`,
              });
            }
            options.log?.warn?.(
              `cleanup for finalizer ${name} could not write into namespace ${namespace}, which is being deleted: ` +
                'the finalizer is removed without it so the deletion can finish',
              {
                key,
                finalizer: name,
                namespace,
                event:
                  options.events === undefined
                    ? 'none (no recorder)'
                    : storable
                      ? `Warning CleanupIncomplete recorded on the object${object.metadata.namespace === undefined ? ' (in namespace default)' : ''}`
                      : 'not recorded: the object is in the terminating namespace, where no Event can be stored',
                error: describe(refused),
              },
            );
            return EMPTY;
          }
          failed(key, object, error);
          return throwError(() => error);
        }),
      );
      const removed$ = defer(() => patch(ref, remove)).pipe(
        ignoreElements(),
        catchError((error: unknown) => (isNotFound(error) ? [] : throwError(() => error))),
      );
      return concat(
        cleaned$.pipe(tap({ complete: () => streaks.delete(key) })),
        removed$,
        of(Action.awaitChange()),
      );
    });

  return Object.assign(reconcile, {
    stuckCount: (): number => {
      let n = 0;
      for (const s of streaks.values()) if (s.reported) n++;
      return n;
    },
    failingCount: (): number => streaks.size,
  });
}

function refOf(object: KubeObject, key: string): ObjectRef {
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
    throw new InvalidArgumentError(
      'finalizer',
      `object (${key})`,
      object,
      'must carry apiVersion and kind (objects from a watch or the Store do)',
    );
  }
  const namespace = object.metadata.namespace;
  return {
    apiVersion,
    kind,
    name: object.metadata.name ?? '',
    ...(namespace !== undefined ? { namespace } : {}),
  };
}

/** The 403 NamespaceTerminating in `error`'s cause chain, if any. */
function namespaceTerminatingIn(
  error: unknown,
): { readonly target: { readonly namespace?: string } } | undefined {
  let current = error;
  for (let depth = 0; depth < 16 && current !== null && typeof current === 'object'; depth++) {
    if (isNamespaceTerminating(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function describe(error: unknown): string {
  const text =
    error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error);
  return (text ?? String(error)).slice(0, 300);
}
