/**
 * The controller's side of tracing (`options.tracing`): tells the tracer each trigger with its
 * reason, the queue wait, the start and end of each reconcile, and runs the reconcile's work so
 * that its API requests reach the reconcile's trace; runs the user's reconcile in the trace's
 * context (`ReconcileTrace.run`) and gives it a client that stamps the children it writes with
 * the trace's `traceparent` (`./trace-stamp.ts`). No OpenTelemetry here: the tracer behind
 * {@link ReconcileTracing} is the user's (`@rxkube/kube/trace`). Without `tracing`, nothing of this
 * runs ({@link traceHooks} returns `undefined`).
 *
 * @module
 */
import type { Action } from '@rxkube/core';
import { from, Observable, tap } from 'rxjs';
import type { ObservableInput } from 'rxjs';

import type { Client } from '../client/client.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import type { ReconcileTrace, ReconcileTracing, TriggerReason } from './tracing.js';
import type { RequestObserver } from '../transport/request-scope.js';
import { withRequestObserver } from '../transport/request-scope.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import type { ControllerObserver, ControllerReconcile } from './options.js';
import type { Trigger } from './relist-gate.js';
import type { ControllerResult } from './report.js';
import type { CurrentChild } from './trace-stamp.js';
import { currentChildOf, stampingClient } from './trace-stamp.js';
import type { TriggerRole } from './triggers.js';
import type { ControllerPlan } from './validate-options.js';
import type { WatchedKinds } from './watches.js';

/** What the controller's stages call when tracing is on. */
export interface TraceHooks {
  readonly onTrigger: (request: ObjectRef, role: TriggerRole, trigger: Trigger) => void;
  /** `reconcileOn`'s requests, each told as a trigger. */
  requested(requests: ObservableInput<ObjectRef>): Observable<ObjectRef>;
  /** The request observer of the reconcile of `key` running now. */
  requestsOf(key: string): RequestObserver | undefined;
  /** The client the reconcile of `key` writes through: stamping its children when traced. */
  clientOf(key: string, client: Client): Client;
  /** The user's reconcile, run (called and subscribed) in its trace's context. */
  reconcile<T extends KubeObject>(reconcile: ControllerReconcile<T>): ControllerReconcile<T>;
  /** The work, each run traced. */
  work(
    work: (request: ObjectRef, key: string) => Observable<Action>,
  ): (request: ObjectRef, key: string) => Observable<Action>;
  /** `observer` (optional), with the queue wait told to the tracer. */
  observer(observer: ControllerObserver | undefined): ControllerObserver;
  ended(result: ControllerResult): void;
  /** The run ended: traces of reconciles still running end as cancelled. */
  cancelled(): void;
}

/** The hooks of `tracing` (`undefined` when it is not set: the controller then calls none). */
export function traceHooks<T extends KubeObject>(
  tracing: ReconcileTracing | undefined,
  plan: ControllerPlan<T>,
  kinds: WatchedKinds<T>,
  tracker: WriteTracker,
): TraceHooks | undefined {
  if (tracing === undefined) return undefined;
  const store = kinds.primary.store;
  const current = currentChildOf(kinds, tracker);
  const name = plan.name ?? plan.primary.resource.kind.toLowerCase();
  const running = new Map<string, ReconcileTrace>();
  const reasonOf = (role: TriggerRole, { type, relist }: Trigger): TriggerReason => {
    if (type === 'Resync') return 'resync';
    if (relist === true) return role === 'primary' ? 'relist' : 'related object relisted';
    if (role === 'primary') return type === 'Delete' ? 'object deleted' : 'object updated';
    return type === 'Delete' ? 'related object deleted' : 'related object updated';
  };
  return {
    onTrigger: (request, role, trigger) =>
      tracing.triggered(name, objectKey(request), {
        reason: reasonOf(role, trigger),
        object: trigger.object,
      }),
    requested: (requests) =>
      from(requests).pipe(tap((r) => tracing.triggered(name, objectKey(r), { reason: 'reconcileOn' }))),
    requestsOf: (key) => running.get(key)?.request,
    clientOf: (key, client) => {
      const traceparent = running.get(key)?.traceparent;
      if (traceparent === undefined) return client;
      // the reconcile's own object is no child of it: its writes are never stamped
      const { apiVersion, kind } = plan.primary.resource;
      const children: CurrentChild = (target) =>
        target.apiVersion === apiVersion &&
        target.kind === kind &&
        objectKey({
          name: target.metadata?.name ?? '',
          ...(target.metadata?.namespace !== undefined ? { namespace: target.metadata.namespace } : {}),
        }) === key
          ? undefined
          : current(target);
      return stampingClient(client, traceparent, children);
    },
    reconcile: (reconcile) => (request, ctx) => {
      const trace = running.get(ctx.key);
      if (trace?.run === undefined) return reconcile(request, ctx);
      const run = <R>(fn: () => R): R => (trace.run as <X>(f: () => X) => X)(fn);
      // a throw, or what is not an ObservableInput, reaches the controller as it is
      const out = run(() => reconcile(request, ctx));
      let action$: Observable<Action>;
      try {
        action$ = from(out);
      } catch {
        return out;
      }
      return new Observable<Action>((subscriber) => run(() => action$.subscribe(subscriber)));
    },
    work: (work) => (request, key) =>
      new Observable<Action>((subscriber) => {
        running.get(key)?.end(undefined); // never: one reconcile per key at a time
        const trace = tracing.start(name, key, request, store.get(key));
        running.set(key, trace);
        return withRequestObserver(trace.request, () => work(request, key).subscribe(subscriber));
      }),
    observer: (observer) =>
      new Proxy<ControllerObserver>(observer ?? {}, {
        get(target, property) {
          if (property === 'started') {
            return (key: string, queuedMs: number, active: number) => {
              tracing.queued(name, key, queuedMs);
              target.started?.(key, queuedMs, active);
            };
          }
          const value: unknown = Reflect.get(target, property);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }),
    ended: (result) => {
      const trace = running.get(result.key);
      running.delete(result.key);
      trace?.end(result);
    },
    cancelled: () => {
      const traces = [...running.values()];
      running.clear();
      for (const trace of traces) trace.end(undefined);
    },
  };
}
