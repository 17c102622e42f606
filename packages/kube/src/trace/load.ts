/**
 * {@link loadReconcileTracing}: the tracing hooks over the global OpenTelemetry tracer, loading
 * `@opentelemetry/api` only when called.
 *
 * @module
 */
import type * as OpenTelemetryApi from '@opentelemetry/api';

import type { ReconcileTracing } from '../controller/tracing.js';
import type { ReconcileTracingOptions } from './reconcile-tracing.js';
import { reconcileTracing } from './reconcile-tracing.js';

/**
 * Loads `@opentelemetry/api` and returns {@link reconcileTracing} over its global tracer
 * (`trace.getTracer(name)`), or `undefined` when the package is not installed — so an operator
 * traces when the application registered an OpenTelemetry SDK and costs nothing otherwise.
 *
 * ## Example
 * ```ts
 * const tracing = await loadReconcileTracing({ name: 'widget-operator', tail: wroteOrFailed });
 * const manager = new Manager({ client, name: 'widget-operator', ...(tracing !== undefined ? { tracing } : {}) });
 * ```
 *
 * @param options the tracer's `name` (default `rxkube`) and `version`, and {@link ReconcileTracingOptions}.
 */
export async function loadReconcileTracing(
  options: ReconcileTracingOptions & { readonly name?: string; readonly version?: string } = {},
): Promise<ReconcileTracing | undefined> {
  let api: typeof OpenTelemetryApi;
  try {
    api = await import('@opentelemetry/api');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
  const { name = 'rxkube', version, ...rest } = options;
  return reconcileTracing(api.trace.getTracer(name, version), rest);
}
