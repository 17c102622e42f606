/**
 * What a controller tells a tracer: plain types, no OpenTelemetry. The controller and the Manager
 * import only these types (erased at build), so a controller without `tracing` loads nothing of
 * `@opentelemetry/*`; `reconcileTracing` (`@rxkube/kube/trace`) implements them with an OpenTelemetry `Tracer`.
 *
 * @module
 */
import type { ControllerResult } from './result.js';
import type { RequestObserver } from '../transport/request-scope.js';
import type { KubeObject, ObjectRef } from '../types.js';

/**
 * The annotation of KEP-5915 (a W3C `traceparent`): the trace context of whoever last created
 * or changed the object. A traced reconcile stamps it on the children it creates or changes, and
 * links to it on the objects that triggered it.
 *
 * ## Example
 * ```ts
 * declare const object: KubeObject;
 * const traceparent: string | undefined = object.metadata.annotations?.[TRACEPARENT_ANNOTATION];
 * ```
 */
export const TRACEPARENT_ANNOTATION = 'tracing.k8s.io/traceparent';

/**
 * Why a request was triggered, in kube-rs's words (`ReconcileReason`) where the controller knows
 * them: the primary object changed or was deleted, a related (owned or mapped) object changed, a
 * relist (a list after the first found the object, or a related one, changed while the watch was
 * away), a periodic resync, or a request from `reconcileOn`.
 *
 * ## Example
 * ```ts
 * const reason: TriggerReason = 'related object updated';
 * ```
 */
export type TriggerReason =
  | 'object updated'
  | 'object deleted'
  | 'related object updated'
  | 'related object deleted'
  | 'relist'
  | 'related object relisted'
  | 'resync'
  | 'reconcileOn';

/**
 * One trigger of a request: its reason and, unless it came from `reconcileOn`, the object whose
 * event it was (the primary object itself, or the related one).
 *
 * ## Example
 * ```ts
 * const note: TriggerNote = { reason: 'object updated', object: widget };
 * ```
 */
export interface TriggerNote {
  readonly reason: TriggerReason;
  readonly object?: KubeObject;
}

/**
 * The tracing hooks of a controller (`ControllerOptions.tracing`, `ManagerOptions.tracing`). Build
 * one with {@link reconcileTracing} (an OpenTelemetry `Tracer`) or `loadReconcileTracing()`.
 *
 * ## Example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { reconcileTracing } from '@rxkube/kube/trace';
 *
 * const tracing: ReconcileTracing = reconcileTracing(trace.getTracer('widget-operator'));
 * controller({ for: widgetType, client, tracing }).run(reconcile).subscribe();
 * ```
 */
export interface ReconcileTracing {
  /** A trigger asked for `request` (keyed `key`); coalesced until its reconcile starts. */
  triggered(controller: string, key: string, note: TriggerNote): void;
  /** The reconcile of `key` leaves the queue after waiting `queuedMs` (the applier's `started`). */
  queued(controller: string, key: string, queuedMs: number): void;
  /** The reconcile of `key` starts; `object` is the primary object it reads (absent: gone). */
  start(controller: string, key: string, request: ObjectRef, object: KubeObject | undefined): ReconcileTrace;
}

/**
 * One reconcile being traced.
 *
 * ## Example
 * ```ts
 * declare const tracing: ReconcileTracing;
 * declare const request: ObjectRef;
 * declare const object: KubeObject;
 * declare const result: ControllerResult;
 * const t: ReconcileTrace = tracing.start('widgets', 'ns/a', request, object);
 * t.end(result); // or t.end(undefined) when it was cancelled
 * ```
 */
export interface ReconcileTrace {
  /** Told every API request the reconcile makes (through `ctx`, its status and finalizer writes). */
  readonly request: RequestObserver;
  /**
   * The W3C `traceparent` of the reconcile's span, which the controller stamps on the children its
   * writes create or change (`tracing.k8s.io/traceparent`); absent when the reconcile is not traced.
   */
  readonly traceparent?: string | undefined;
  /**
   * Runs `fn` (the user's reconcile) with the reconcile's span as the active context, so that the
   * spans the user's code starts are its children; absent: `fn` runs as it is.
   */
  run?<R>(fn: () => R): R;
  /** The reconcile ended with `result`, or was cancelled (`undefined`: shutdown, unsubscribe). */
  end(result: ControllerResult | undefined): void;
}

/**
 * The tracing hook of a webhook server (`WebhookServerOptions.tracing`): `serve` handles one
 * request and resolves to its HTTP status; the hook runs it in a SERVER span that continues the
 * request's W3C `traceparent` (the API server's). Build one with `webhookTracing(tracer)` from
 * `@rxkube/kube/trace`.
 *
 * ## Example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { webhookTracing } from '@rxkube/kube/trace';
 *
 * const tracing: WebhookTracing = webhookTracing(trace.getTracer('widget-webhooks'));
 * ```
 */
export type WebhookTracing = (
  request: {
    readonly method: string;
    readonly path: string;
    readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  },
  serve: () => Promise<number>,
) => Promise<number>;
