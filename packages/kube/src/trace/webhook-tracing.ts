/**
 * {@link webhookTracing}: the requests a `WebhookServer` serves as SERVER spans continuing the API
 * server's W3C `traceparent` header (KEP-647: the API server propagates its context to webhooks),
 * with the handler running in the span's context.
 *
 * @module
 */
import type { Span, SpanContext, Tracer } from '@opentelemetry/api';

import type { WebhookTracing } from '../controller/tracing.js';
import { globalContextManager, ROOT, SPAN_KEY } from './otel-context.js';
import { parseTraceparent } from './reconcile-tracing.js';

export type { WebhookTracing } from '../controller/tracing.js';

/** `SpanKind.SERVER`. */
const SERVER = 1;
/** `SpanStatusCode.ERROR`. */
const ERROR = 2;

/**
 * Options of {@link webhookTracing}.
 *
 * ## Example
 * ```ts
 * const options: WebhookTracingOptions = { activeContext: false };
 * ```
 */
export interface WebhookTracingOptions {
  /**
   * Makes the request's span the active context while the handler runs, through the context
   * manager registered with `@opentelemetry/api` (as `reconcileTracing`'s). Default `true`.
   */
  readonly activeContext?: boolean;
}

/**
 * Builds the tracing hook of a `WebhookServer` (`WebhookServerOptions.tracing`) from an
 * OpenTelemetry `Tracer`.
 *
 * ## Example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { WebhookServer } from '@rxkube/kube/webhook';
 * import { webhookTracing } from '@rxkube/kube/trace';
 *
 * const server = new WebhookServer({
 *   tls: { certFile: '/certs/tls.crt', keyFile: '/certs/tls.key' },
 *   tracing: webhookTracing(trace.getTracer('widget-webhooks')),
 * });
 * ```
 *
 * ## Semantics
 * - One span `<method> <path>` (kind SERVER) per request, the child of the request's
 *   `traceparent` header when it carries a valid one (the API server's span), else a root; with
 *   `http.request.method`, `url.path`, `http.route`, `http.response.status_code`; a 5xx answer
 *   sets `error.type` and status ERROR. `tracestate` is not continued.
 * - The handler runs in the span's context: spans it starts (and instrumented requests it makes
 *   back to the API server) are the span's children.
 * - A request the server fails to answer still ends its span, with `error.type` the error's name.
 */
export function webhookTracing(tracer: Tracer, options: WebhookTracingOptions = {}): WebhookTracing {
  return async (request, serve) => {
    const header = request.headers['traceparent'];
    const parent = parseTraceparent(typeof header === 'string' ? header : header?.[0]);
    const name = `${request.method} ${request.path}`;
    const span = tracer.startSpan(
      name,
      {
        kind: SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.path': request.path,
          'http.route': request.path,
        },
      },
      parent === undefined ? ROOT : ROOT.setValue(SPAN_KEY, remoteSpan(parent)),
    );
    const manager = options.activeContext === false ? undefined : globalContextManager();
    try {
      const status =
        manager === undefined
          ? await serve()
          : await manager.with(manager.active().setValue(SPAN_KEY, span), serve);
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) {
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: ERROR });
      }
      return status;
    } catch (error) {
      span.setAttribute('error.type', error instanceof Error ? error.name : '_OTHER');
      span.setStatus({ code: ERROR });
      throw error;
    } finally {
      span.end();
    }
  };
}

/** The API's `NonRecordingSpan` over a remote context: what a parent in a `Context` must be. */
function remoteSpan(context: SpanContext): Span {
  return { spanContext: () => context, isRecording: () => false } as unknown as Span;
}
