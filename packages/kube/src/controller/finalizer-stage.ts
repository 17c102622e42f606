/**
 * The finalizer stage of a controller: `finalizer()` around the reconcile, its PATCHes going
 * through the write tracker (so their echoes do not rerun the reconcile, and a rerun reads the
 * object as the finalizer left it), its cleanup isolated as user code.
 *
 * @module
 */
import type { Action } from '@rxkube/core';
import { defer, finalize, from, last, tap, throwError } from 'rxjs';
import type { Observable, ObservableInput, SchedulerLike } from 'rxjs';

import type { Client } from '../client/client.js';
import type { FinalizerEventSink, FinalizerOptions } from '../finalizer/finalizer.js';
import { finalizerOver } from '../finalizer/finalizer.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import { writeId } from '../sink/write-tracker.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import { UserCodeError } from '../user-code-error.js';
import type { ControllerFinalizerOptions } from './options.js';

/** The reconcile of one key with the finalizer around it. */
export type FinalizedRun<T extends KubeObject> = (
  request: ObjectRef,
  key: string,
  object: T,
  apply: (object: T) => ObservableInput<Action>,
  cleanup: (object: T) => ObservableInput<unknown>,
  signal?: AbortSignal,
) => Observable<Action>;

/** What the finalizer stage needs. */
export interface FinalizerStageDeps {
  readonly client: Client | undefined;
  readonly tracker: WriteTracker;
  readonly events: FinalizerEventSink | undefined;
  /** Where a cleanup cut short by a terminating namespace is logged. */
  readonly log?: FinalizerOptions<KubeObject>['log'];
  readonly controller: string | undefined;
  readonly scheduler: SchedulerLike;
}

/**
 * Builds the finalizer wrapper of one run. `run(request, key, object, apply, cleanup)` calls
 * `apply` with the object once our finalizer is on it, or `cleanup` when it is being deleted.
 */
export function finalizerStage<T extends KubeObject>(
  fin: ControllerFinalizerOptions<T>,
  deps: FinalizerStageDeps,
): FinalizedRun<T> {
  const client = deps.client as Client;
  /** Per key while its reconcile runs (one per key at a time: the applier's). */
  const running = new Map<
    string,
    {
      object: T;
      signal: AbortSignal | undefined;
      apply: (object: T) => ObservableInput<Action>;
      cleanup: (object: T) => ObservableInput<unknown>;
    }
  >();
  const fieldManager = fin.fieldManager !== undefined ? { fieldManager: fin.fieldManager } : {};
  const wrapped = finalizerOver<T>(
    fin.name,
    {
      apply: (object) => {
        const run = running.get(objectKey(object));
        if (run === undefined)
          return throwError(() => new Error(`finalizer apply of ${objectKey(object)} outside its reconcile`));
        return run.apply(object);
      },
      cleanup: (object) => {
        const key = objectKey(object);
        const run = running.get(key);
        if (run === undefined)
          return throwError(() => new Error(`finalizer cleanup of ${key} outside its reconcile`));
        return defer(() => {
          let out: ObservableInput<unknown>;
          try {
            out = run.cleanup(object);
            if (out === undefined || out === null) {
              throw new TypeError(
                'cleanup returned nothing; return an ObservableInput that completes when done (e.g. EMPTY)',
              );
            }
          } catch (error) {
            throw new UserCodeError('cleanup', error, {
              ...(deps.controller !== undefined ? { controller: deps.controller } : {}),
              key,
            });
          }
          return from(out);
        });
      },
      ...(fin.stuck !== undefined ? { stuck: fin.stuck } : {}),
      ...(fin.onStuck !== undefined ? { onStuck: fin.onStuck } : {}),
      ...(deps.events !== undefined ? { events: deps.events } : {}),
      ...(deps.log !== undefined ? { log: deps.log } : {}),
    },
    // through the controller's one client, each patch tracked as this key's write, carrying ctx.signal
    (ref, ops) => {
      const key = objectKey(ref);
      const run = running.get(key);
      const before = run?.object;
      const signal = run?.signal;
      return deps.tracker.track(writeId(ref, ref), () =>
        from(
          client.patch<T>(
            ref,
            { type: 'json', body: ops },
            { ...fieldManager, ...(signal !== undefined ? { signal } : {}) },
          ),
        ).pipe(
          last(),
          tap((after) => deps.tracker.recorded(before, after, key)),
        ),
      );
    },
    deps.scheduler,
  );
  return (_request, key, object, apply, cleanup, signal) => {
    running.set(key, { object, signal, apply, cleanup });
    return wrapped(object).pipe(finalize(() => running.delete(key)));
  };
}
