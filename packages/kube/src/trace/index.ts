/**
 * `@rxkube/kube/trace`: OpenTelemetry traces of reconciles and of webhook requests. Loads nothing of
 * `@opentelemetry/*` itself (an optional peer dependency): pass a `Tracer` to
 * {@link reconcileTracing}, or let {@link loadReconcileTracing} load the API lazily.
 *
 * @module @rxkube/kube/trace
 */
export { loadReconcileTracing } from './load.js';
export type { ReconcileReason, ReconcileSummary, ReconcileTracingOptions } from './reconcile-tracing.js';
export {
  formatTraceparent,
  parseTraceparent,
  reconcileTracing,
  redactedUrl,
  TRACEPARENT_ANNOTATION,
  wroteOrFailed,
} from './reconcile-tracing.js';
export type { WebhookTracing, WebhookTracingOptions } from './webhook-tracing.js';
export { webhookTracing } from './webhook-tracing.js';
