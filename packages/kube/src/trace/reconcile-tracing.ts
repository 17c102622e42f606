/**
 * Reconcile traces with OpenTelemetry: {@link reconcileTracing} turns a `Tracer` into the
 * {@link ReconcileTracing} hooks a controller calls. Each reconcile is a root span
 * `reconcile <Kind>`, started when the reconcile starts (its links: one per coalesced trigger) and
 * the active OpenTelemetry context while the user's code runs; its `traceparent` is what the
 * controller stamps on the children the reconcile writes (KEP-5915). Each API request it made is a
 * CLIENT child span, built when the reconcile ends, so that the `tail` rule can drop a reconcile
 * with all its request spans — e.g. {@link wroteOrFailed} (a dropped span is never ended, so never
 * exported).
 *
 * @module
 */
import type { Attributes, Context, Link, Span, SpanContext, Tracer } from '@opentelemetry/api';

import type { ControllerResult } from '../controller/report.js';
import type { KubeObject } from '../types.js';
import type { ReconcileTracing, TriggerNote, TriggerReason } from '../controller/tracing.js';
import { TRACEPARENT_ANNOTATION } from '../controller/tracing.js';
import { globalContextManager, ROOT, SPAN_KEY } from './otel-context.js';

export { TRACEPARENT_ANNOTATION } from '../controller/tracing.js';

// The API's enum values, so that this module loads nothing of `@opentelemetry/api` (its types only).
/** `SpanKind.INTERNAL`. */
const INTERNAL = 0;
/** `SpanKind.CLIENT`. */
const CLIENT = 2;
/** `SpanStatusCode.ERROR`. */
const ERROR = 2;
/** `TraceFlags.SAMPLED`. */
const SAMPLED = 1;
/** The span context of a link to a trigger that carried none (`INVALID_SPAN_CONTEXT`). */
const NO_CONTEXT: SpanContext = {
  traceId: '00000000000000000000000000000000',
  spanId: '0000000000000000',
  traceFlags: 0,
};
/**
 * Why a reconcile ran: a trigger's reason, or the applier's own timer (a requeue the reconcile
 * asked for, a retry after an error); `unknown` when neither was seen.
 *
 * ## Example
 * ```ts
 * const retried = (s: ReconcileSummary) => s.reasons.includes('error retry' satisfies ReconcileReason);
 * ```
 */
export type ReconcileReason = TriggerReason | 'requeue requested' | 'error retry' | 'unknown';

/**
 * A finished reconcile as the `tail` rule sees it.
 *
 * ## Example
 * ```ts
 * const keepSlow = (s: ReconcileSummary) => s.durationMs > 1_000 || wroteOrFailed(s);
 * ```
 */
export interface ReconcileSummary {
  readonly controller: string;
  readonly key: string;
  /** `ControllerResult.outcome`, or `cancelled` when the reconcile was unsubscribed (shutdown). */
  readonly outcome: ControllerResult['outcome'] | 'cancelled';
  /** API requests with a method other than GET. */
  readonly writes: number;
  /** API requests made. */
  readonly requests: number;
  readonly durationMs: number;
  readonly reasons: readonly ReconcileReason[];
}

/**
 * The tail rule that keeps a reconcile when it wrote something (an API request other than GET) or
 * did not succeed — drops the quiet, successful ones.
 *
 * ## Example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 *
 * const tracing = reconcileTracing(trace.getTracer('widget-operator'), { tail: wroteOrFailed });
 * ```
 */
export function wroteOrFailed(summary: ReconcileSummary): boolean {
  return summary.writes > 0 || summary.outcome === 'error' || summary.outcome === 'terminal';
}

/**
 * Options of {@link reconcileTracing}.
 *
 * ## Example
 * ```ts
 * const options: ReconcileTracingOptions = { tail: wroteOrFailed, maxLinks: 8 };
 * ```
 */
export interface ReconcileTracingOptions {
  /** Head rule: whether to trace the reconcile of `key` at all (decided when it starts). Default: all. */
  readonly head?: (controller: string, key: string) => boolean;
  /** Tail rule: whether to export a finished reconcile (with its request spans). Default: all. */
  readonly tail?: (summary: ReconcileSummary) => boolean;
  /**
   * At most this many span links per reconcile (default 16): one per coalesced trigger (to its
   * object's `tracing.k8s.io/traceparent`, or, when it carries none, a link without a context
   * holding the trigger's attributes) and one to the run that asked for a requeue or failed before
   * a retry. The number of triggers is in `rxkube.reconcile.triggers`, those without a link in
   * `rxkube.reconcile.triggers_dropped`.
   */
  readonly maxLinks?: number;
  /** At most this many request spans per reconcile (default 128); more are counted only. */
  readonly maxRequests?: number;
  /** Wall clock in ms since the epoch (default `performance.timeOrigin + performance.now()`). */
  readonly now?: () => number;
  /**
   * Makes each reconcile's span the active context while the user's reconcile runs, through the
   * context manager registered with `@opentelemetry/api` (every SDK's `register()` registers one,
   * e.g. `AsyncLocalStorageContextManager`). Default `true`.
   */
  readonly activeContext?: boolean;
}

const DEFAULT_MAX_LINKS = 16;
const DEFAULT_MAX_REQUESTS = 128;
/** Keys with state kept (pending triggers, a scheduled retry); the oldest is dropped beyond. */
const MAX_KEYS = 10_000;

interface Noted {
  readonly note: TriggerNote;
  readonly at: number;
}

/** What is known of a key between its reconciles. */
interface KeyState {
  triggers: Noted[];
  /** Every trigger since the last start (`triggers` holds the first `maxLinks`). */
  count: number;
  queuedMs?: number;
  /** Failures in a row before the next reconcile. */
  failures: number;
  /** The applier's own timer: a requeue or an error retry, with the span that asked for it. */
  scheduled?: {
    readonly reason: 'requeue requested' | 'error retry';
    readonly span: SpanContext | undefined;
  };
}

interface Request {
  readonly method: string;
  readonly url: URL;
  readonly start: number;
  end?: number;
  status?: number;
  error?: unknown;
}

/**
 * Builds the tracing hooks of controllers from an OpenTelemetry `Tracer`: pass the result as
 * `tracing` to `controller()` or to the Manager.
 *
 * ## Example
 * ```ts
 * import { trace } from '@opentelemetry/api';
 * import { reconcileTracing, wroteOrFailed } from '@rxkube/kube/trace';
 *
 * const manager = new Manager({
 *   client,
 *   name: 'widget-operator',
 *   tracing: reconcileTracing(trace.getTracer('widget-operator'), { tail: wroteOrFailed }),
 * });
 * ```
 *
 * ## Semantics
 * - Root span `reconcile <Kind>` (kind INTERNAL, no parent) per reconcile, with `rxkube.controller`,
 *   `k8s.object.kind`, `k8s.namespace.name`, `k8s.object.name`, `k8s.object.uid`,
 *   `rxkube.reconcile.reason` (+ `.reasons`), `rxkube.reconcile.queue_wait_ms`,
 *   `rxkube.reconcile.attempt`, `rxkube.reconcile.outcome`, `rxkube.reconcile.requeue_after_ms` /
 *   `rxkube.reconcile.retry_in_ms`, `rxkube.reconcile.triggers`, `rxkube.reconcile.writes`; an
 *   error is recorded as an exception with status ERROR.
 * - One link per trigger coalesced into it (`rxkube.trigger.reason`, the trigger object's kind,
 *   namespace, name and resourceVersion, `rxkube.trigger.wait_ms`): to the object's
 *   `tracing.k8s.io/traceparent` when it carries one, else a link without a context (all-zero
 *   ids, which the OpenTelemetry specification records when it has attributes); and one to the
 *   reconcile that asked for a requeue or failed before a retry — at most `maxLinks`, the rest
 *   counted.
 * - The span starts with the reconcile and is the active context while the user's reconcile runs
 *   (`activeContext`): the spans the user's code starts are its children. Its `traceparent` is
 *   stamped on the children the reconcile creates or changes (see `ControllerOptions.tracing`).
 * - One CLIENT child span per API request (`http.request.method`, `url.full` with credentials
 *   and secret-looking query values redacted, `server.address`, `server.port`,
 *   `http.response.status_code`, `error.type`).
 *
 * ## Memory
 * Per key: the first `maxLinks` triggers until its reconcile starts, and the span context of a
 * pending requeue or retry; at most 10 000 keys (the oldest dropped). Per running reconcile: its
 * first `maxRequests` requests.
 */
export function reconcileTracing(tracer: Tracer, options: ReconcileTracingOptions = {}): ReconcileTracing {
  const maxLinks = options.maxLinks ?? DEFAULT_MAX_LINKS;
  const maxRequests = options.maxRequests ?? DEFAULT_MAX_REQUESTS;
  const now = options.now ?? (() => performance.timeOrigin + performance.now());
  const keys = new Map<string, KeyState>();
  const stateOf = (id: string): KeyState => {
    let state = keys.get(id);
    if (state === undefined) {
      if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value as string);
      state = { triggers: [], count: 0, failures: 0 };
      keys.set(id, state);
    }
    return state;
  };
  return {
    triggered(controller, key, note) {
      const state = stateOf(`${controller}\0${key}`);
      state.count++;
      if (state.triggers.length < maxLinks) state.triggers.push({ note, at: now() });
    },
    queued(controller, key, queuedMs) {
      stateOf(`${controller}\0${key}`).queuedMs = queuedMs;
    },
    start(controller, key, request, object) {
      const id = `${controller}\0${key}`;
      const state = stateOf(id);
      const triggers = state.triggers;
      const count = state.count;
      const queuedMs = state.queuedMs;
      const scheduled = state.scheduled;
      const attempt = state.failures + 1;
      state.triggers = [];
      state.count = 0;
      delete state.queuedMs;
      delete state.scheduled;
      if (options.head !== undefined && !options.head(controller, key)) {
        return { request: () => undefined, end: (result) => settle(id, result, undefined) };
      }
      const started = now();
      const reasons = reasonsOf(triggers, scheduled);
      const links = linksOf(triggers, scheduled, maxLinks, started);
      const linked = links.length - (scheduled?.span !== undefined ? 1 : 0);
      const span = tracer.startSpan(
        `reconcile ${request.kind}`,
        {
          kind: INTERNAL,
          root: true,
          startTime: started,
          attributes: {
            'rxkube.controller': controller,
            'k8s.object.kind': request.kind,
            ...(request.namespace !== undefined ? { 'k8s.namespace.name': request.namespace } : {}),
            'k8s.object.name': request.name,
            ...(object?.metadata.uid !== undefined ? { 'k8s.object.uid': object.metadata.uid } : {}),
            'rxkube.reconcile.reason': reasons[0] ?? 'unknown',
            'rxkube.reconcile.reasons': [...reasons],
            ...(queuedMs !== undefined ? { 'rxkube.reconcile.queue_wait_ms': queuedMs } : {}),
            'rxkube.reconcile.attempt': attempt,
            'rxkube.reconcile.triggers': count,
            ...(count > linked ? { 'rxkube.reconcile.triggers_dropped': count - linked } : {}),
          },
          links,
        },
        ROOT,
      );
      const spanContext = span.spanContext();
      const traceparent = formatTraceparent(spanContext);
      const requests: Request[] = [];
      let requestCount = 0;
      let writes = 0;
      let over = false;
      return {
        traceparent,
        run: (fn) => {
          const manager = options.activeContext === false ? undefined : globalContextManager();
          return manager === undefined ? fn() : manager.with(manager.active().setValue(SPAN_KEY, span), fn);
        },
        request(method, url) {
          // A request from something the reconcile left behind (a timer, a subscriber of its
          // result) runs in its async context after it ended: not its request.
          if (over) return undefined;
          requestCount++;
          if (method !== 'GET') writes++;
          if (requests.length >= maxRequests) return undefined;
          const r: Request = { method, url, start: now() };
          requests.push(r);
          return (status, error) => {
            r.end = now();
            if (status !== undefined) r.status = status;
            if (error !== undefined) r.error = error;
          };
        },
        end(result) {
          if (over) return;
          over = true;
          const ended = now();
          const summary: ReconcileSummary = {
            controller,
            key,
            outcome: result?.outcome ?? 'cancelled',
            writes,
            requests: requestCount,
            durationMs: ended - started,
            reasons,
          };
          if (options.tail !== undefined && !options.tail(summary)) {
            // never ended, so never exported (a started span holds nothing once unreferenced)
            settle(id, result, undefined);
            return;
          }
          span.setAttributes({
            'rxkube.reconcile.outcome': summary.outcome,
            'rxkube.reconcile.writes': writes,
            ...(requestCount > requests.length
              ? { 'rxkube.reconcile.requests_dropped': requestCount - requests.length }
              : {}),
            ...(result?.action?.type === 'requeue'
              ? { 'rxkube.reconcile.requeue_after_ms': result.action.afterMs }
              : {}),
            ...(result?.retryInMs !== undefined ? { 'rxkube.reconcile.retry_in_ms': result.retryInMs } : {}),
          });
          if (result?.error !== undefined) {
            span.recordException(result.error, ended);
            span.setStatus({ code: ERROR, message: result.error.message });
          }
          const parent = ROOT.setValue(SPAN_KEY, span);
          for (const r of requests) requestSpan(tracer, parent, r, ended);
          span.end(ended);
          settle(id, result, span);
        },
      };
    },
  };

  /** Keeps what the key's next reconcile needs to know; forgets a key with nothing pending. */
  function settle(id: string, result: ControllerResult | undefined, span: Span | undefined): void {
    const state = keys.get(id);
    if (state === undefined) return;
    const spanContext = span?.spanContext();
    if (result?.outcome === 'error') {
      state.failures++;
      if (result.retryInMs !== undefined) state.scheduled = { reason: 'error retry', span: spanContext };
    } else {
      state.failures = 0;
      if (result?.action?.type === 'requeue')
        state.scheduled = { reason: 'requeue requested', span: spanContext };
    }
    if (state.count === 0 && state.failures === 0 && state.scheduled === undefined) keys.delete(id);
  }
}

function reasonsOf(triggers: readonly Noted[], scheduled: KeyState['scheduled']): ReconcileReason[] {
  const reasons = new Set<ReconcileReason>(triggers.map((t) => t.note.reason));
  if (scheduled !== undefined) reasons.add(scheduled.reason);
  return reasons.size === 0 ? ['unknown'] : [...reasons];
}

/**
 * The links of a reconcile: the run that asked for its requeue or retry, then one per trigger (to
 * the trigger's `traceparent`, else without a context), at most `max`.
 */
function linksOf(
  triggers: readonly Noted[],
  scheduled: KeyState['scheduled'],
  max: number,
  started: number,
): Link[] {
  const links: Link[] = [];
  if (scheduled?.span !== undefined) {
    links.push({ context: scheduled.span, attributes: { 'rxkube.link.reason': scheduled.reason } });
  }
  for (const t of triggers) {
    if (links.length >= max) break;
    const parent = parseTraceparent(t.note.object?.metadata.annotations?.[TRACEPARENT_ANNOTATION]);
    links.push({
      context: parent ?? NO_CONTEXT,
      attributes: { ...triggerAttributes(t.note), 'rxkube.trigger.wait_ms': Math.max(0, started - t.at) },
    });
  }
  return links;
}

function triggerAttributes(note: TriggerNote): Attributes {
  const o: KubeObject | undefined = note.object;
  return {
    'rxkube.trigger.reason': note.reason,
    ...(o?.kind !== undefined ? { 'k8s.object.kind': o.kind } : {}),
    ...(o?.metadata.namespace !== undefined ? { 'k8s.namespace.name': o.metadata.namespace } : {}),
    ...(o?.metadata.name !== undefined ? { 'k8s.object.name': o.metadata.name } : {}),
    ...(o?.metadata.resourceVersion !== undefined
      ? { 'k8s.object.resource_version': o.metadata.resourceVersion }
      : {}),
  };
}

/**
 * A W3C `traceparent` (`00-<32 hex>-<16 hex>-<2 hex>`) as a remote span context, else
 * `undefined` (malformed, all-zero ids, version `ff`).
 *
 * ## Example
 * ```ts
 * parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
 * // { traceId: '0af7…319c', spanId: 'b7ad…3331', traceFlags: 1, isRemote: true }
 * ```
 */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  if (value === undefined) return undefined;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value.trim());
  if (m === null || m[1] === 'ff') return undefined;
  const [, , traceId = '', spanId = '', flags = '00'] = m;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) & SAMPLED, isRemote: true };
}

/**
 * `context` as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), the value of the
 * `tracing.k8s.io/traceparent` annotation; `undefined` for an invalid context (all-zero ids: a
 * no-op tracer's).
 *
 * ## Example
 * ```ts
 * formatTraceparent({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
 * // '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
 * ```
 */
export function formatTraceparent(context: SpanContext): string | undefined {
  const { traceId, spanId, traceFlags } = context;
  if (!/^[0-9a-f]{32}$/.test(traceId) || !/^[0-9a-f]{16}$/.test(spanId)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return `00-${traceId}-${spanId}-0${(traceFlags & SAMPLED).toString(16)}`;
}

const SECRET_QUERY = /token|secret|password|passwd|key|signature|sig|credential|auth/i;

/**
 * `url` as `url.full` records it: credentials and the values of secret-looking query parameters
 * (token, secret, password, key, signature, credential, auth) replaced by `REDACTED`.
 *
 * ## Example
 * ```ts
 * redactedUrl(new URL('https://api:6443/api/v1/pods?token=abc&limit=5')); // '…?token=REDACTED&limit=5'
 * ```
 */
export function redactedUrl(url: URL): string {
  const out = new URL(url.toString());
  if (out.username !== '') out.username = 'REDACTED';
  if (out.password !== '') out.password = 'REDACTED';
  for (const name of [...out.searchParams.keys()]) {
    if (SECRET_QUERY.test(name)) out.searchParams.set(name, 'REDACTED');
  }
  return out.toString();
}

function requestSpan(tracer: Tracer, parent: Context, r: Request, fallbackEnd: number): void {
  const port = r.url.port !== '' ? Number(r.url.port) : r.url.protocol === 'https:' ? 443 : 80;
  const span = tracer.startSpan(
    r.method,
    {
      kind: CLIENT,
      startTime: r.start,
      attributes: {
        'http.request.method': r.method,
        'url.full': redactedUrl(r.url),
        'server.address': r.url.hostname,
        'server.port': port,
        ...(r.status !== undefined && r.status !== 0 ? { 'http.response.status_code': r.status } : {}),
      },
    },
    parent,
  );
  const failed = r.error !== undefined || (r.status !== undefined && r.status >= 400);
  if (failed) {
    const type =
      r.status !== undefined && r.status >= 400
        ? String(r.status)
        : r.error instanceof Error
          ? r.error.name
          : '_OTHER';
    span.setAttribute('error.type', type);
    span.setStatus({ code: ERROR });
  }
  span.end(r.end ?? fallbackEnd);
}
