/**
 * The tracer's bookkeeping, driven through the hooks a controller calls (the HTTP path is in
 * reconcile-tracing.integration.test.ts): bounded links (one per trigger), reasons of the
 * applier's own timers, head and tail rules, cancelled reconciles, traceparent parsing and URL
 * redaction. A fixed clock keeps the span times exact.
 */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Action } from '@rxkube/core';
import { afterEach, describe, expect, it } from 'vitest';

import type { ControllerResult } from '../controller/report.js';
import type { KubeObject, ObjectRef } from '../types.js';
import type { ReconcileTracingOptions } from './index.js';
import {
  formatTraceparent,
  parseTraceparent,
  reconcileTracing,
  redactedUrl,
  TRACEPARENT_ANNOTATION,
  wroteOrFailed,
} from './index.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
  't',
);
afterEach(() => exporter.reset());

const request: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a' };
const object = (name: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(annotations ? { annotations } : {}) },
});
const result = (
  outcome: ControllerResult['outcome'],
  extra: Partial<ControllerResult> = {},
): ControllerResult => ({
  controller: 'c',
  key: 'ns/a',
  request,
  outcome,
  durationMs: 1,
  ...extra,
});
const tracingAt = (options: ReconcileTracingOptions = {}) => {
  let t = 1_000;
  return reconcileTracing(tracer, { now: () => (t += 10), ...options });
};
const traceparent = (i: number): string =>
  `00-${'1'.repeat(31)}${i.toString(16)}-${'2'.repeat(15)}${i.toString(16)}-01`;

describe('reconcileTracing', () => {
  it('links every coalesced trigger, with or without a trace context, at most maxLinks, and counts them all', () => {
    const tracing = tracingAt({ maxLinks: 3 });
    for (let i = 1; i <= 5; i++) {
      // s1, s3, s5 carry a traceparent; s2, s4 none
      tracing.triggered('c', 'ns/a', {
        reason: 'related object updated',
        object: object(`s${i}`, i % 2 === 1 ? { [TRACEPARENT_ANNOTATION]: traceparent(i) } : undefined),
      });
    }
    tracing.queued('c', 'ns/a', 7);
    tracing.start('c', 'ns/a', request, undefined).end(result('success', { action: Action.awaitChange() }));
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes).toMatchObject({
      'rxkube.reconcile.triggers': 5,
      'rxkube.reconcile.triggers_dropped': 2,
      'rxkube.reconcile.queue_wait_ms': 7,
      'rxkube.reconcile.reason': 'related object updated',
    });
    expect(span?.events).toEqual([]);
    // the clock ticks 10 ms per read: s1…s3 kept at 1010, 1020, 1030 (s4, s5 only counted), start 1040
    expect(span?.links).toEqual([
      {
        context: {
          traceId: `${'1'.repeat(31)}1`,
          spanId: `${'2'.repeat(15)}1`,
          traceFlags: 1,
          isRemote: true,
        },
        attributes: {
          'rxkube.trigger.reason': 'related object updated',
          'k8s.object.kind': 'Secret',
          'k8s.namespace.name': 'ns',
          'k8s.object.name': 's1',
          'rxkube.trigger.wait_ms': 30,
        },
      },
      {
        context: { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 },
        attributes: {
          'rxkube.trigger.reason': 'related object updated',
          'k8s.object.kind': 'Secret',
          'k8s.namespace.name': 'ns',
          'k8s.object.name': 's2',
          'rxkube.trigger.wait_ms': 20,
        },
      },
      {
        context: {
          traceId: `${'1'.repeat(31)}3`,
          spanId: `${'2'.repeat(15)}3`,
          traceFlags: 1,
          isRemote: true,
        },
        attributes: {
          'rxkube.trigger.reason': 'related object updated',
          'k8s.object.kind': 'Secret',
          'k8s.namespace.name': 'ns',
          'k8s.object.name': 's3',
          'rxkube.trigger.wait_ms': 10,
        },
      },
    ]);
  });

  it('gives a traced reconcile the traceparent of its span, and none to one the head rule refuses', () => {
    const tracing = tracingAt({ head: (_c, key) => key !== 'ns/skip' });
    const traced = tracing.start('c', 'ns/a', request, undefined);
    const skipped = tracing.start('c', 'ns/skip', { ...request, name: 'skip' }, undefined);
    traced.end(result('success'));
    skipped.end(result('success'));
    const [span] = exporter.getFinishedSpans();
    const { traceId, spanId } = span?.spanContext() ?? { traceId: '', spanId: '' };
    expect(traced.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(parseTraceparent(traced.traceparent)).toMatchObject({ traceId, spanId, traceFlags: 1 });
    expect(skipped.traceparent).toBeUndefined();
    expect('run' in skipped).toBe(false);
  });

  it('says a requeue ran because it was requested, linked to the run that asked', () => {
    const tracing = tracingAt();
    tracing
      .start('c', 'ns/a', request, object('a'))
      .end(result('requeue', { action: Action.requeue(30_000) }));
    tracing.start('c', 'ns/a', request, object('a')).end(result('success', { action: Action.awaitChange() }));
    const [first, second] = exporter.getFinishedSpans();
    expect(first?.attributes).toMatchObject({
      'rxkube.reconcile.reason': 'unknown',
      'rxkube.reconcile.requeue_after_ms': 30_000,
      'k8s.object.uid': 'uid-a',
    });
    expect(second?.attributes['rxkube.reconcile.reason']).toBe('requeue requested');
    expect(second?.links).toEqual([
      { context: first?.spanContext(), attributes: { 'rxkube.link.reason': 'requeue requested' } },
    ]);
  });

  it('counts attempts over failures in a row and starts again after a success', () => {
    const tracing = tracingAt();
    const error = Object.assign(new Error('boom'), { key: 'ns/a' });
    const failed = () =>
      result('error', { error: error as unknown as NonNullable<ControllerResult['error']>, retryInMs: 5 });
    tracing.start('c', 'ns/a', request, undefined).end(failed());
    tracing.start('c', 'ns/a', request, undefined).end(failed());
    tracing.start('c', 'ns/a', request, undefined).end(result('success'));
    tracing.start('c', 'ns/a', request, undefined).end(result('success'));
    expect(exporter.getFinishedSpans().map((s) => s.attributes['rxkube.reconcile.attempt'])).toEqual([
      1, 2, 3, 1,
    ]);
    expect(exporter.getFinishedSpans().map((s) => s.status.code)).toEqual([2, 2, 0, 0]);
  });

  it('drops what the head rule refuses, and what the tail rule refuses with its request spans', () => {
    const tracing = tracingAt({ head: (_c, key) => key !== 'ns/skip', tail: wroteOrFailed });
    const skipped = tracing.start('c', 'ns/skip', { ...request, name: 'skip' }, undefined);
    expect(skipped.request('PATCH', new URL('https://h/x'))).toBeUndefined();
    skipped.end(result('success'));
    const quiet = tracing.start('c', 'ns/a', request, undefined);
    quiet.request('GET', new URL('https://h/api/v1/namespaces/ns/configmaps/a'))?.(200);
    quiet.end(result('success'));
    expect(exporter.getFinishedSpans()).toEqual([]);

    const writer = tracing.start('c', 'ns/a', request, undefined);
    writer.request('GET', new URL('https://h:6443/api/v1/namespaces/ns/configmaps/a'))?.(200);
    writer.request('PATCH', new URL('https://h:6443/api/v1/namespaces/ns/secrets/s'))?.(
      409,
      new Error('conflict'),
    );
    writer.end(result('success'));
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === 'reconcile ConfigMap');
    expect(spans.map((s) => s.name).sort()).toEqual(['GET', 'PATCH', 'reconcile ConfigMap']);
    const patch = spans.find((s) => s.name === 'PATCH');
    expect(patch?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
    expect(patch?.attributes).toEqual({
      'http.request.method': 'PATCH',
      'url.full': 'https://h:6443/api/v1/namespaces/ns/secrets/s',
      'server.address': 'h',
      'server.port': 6443,
      'http.response.status_code': 409,
      'error.type': '409',
    });
    expect(patch?.status.code).toBe(2);
  });

  it('ends a cancelled reconcile as cancelled', () => {
    const tracing = tracingAt();
    tracing.start('c', 'ns/a', request, undefined).end(undefined);
    expect(exporter.getFinishedSpans()[0]?.attributes['rxkube.reconcile.outcome']).toBe('cancelled');
  });
});

describe('parseTraceparent', () => {
  it('reads a W3C traceparent and refuses malformed or all-zero ones', () => {
    expect(parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toEqual({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      isRemote: true,
    });
    expect(parseTraceparent('00-00000000000000000000000000000000-b7ad6b7169203331-01')).toBeUndefined();
    expect(parseTraceparent('ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBeUndefined();
    expect(parseTraceparent('not a traceparent')).toBeUndefined();
    expect(parseTraceparent(undefined)).toBeUndefined();
  });
});

describe('formatTraceparent', () => {
  it('writes a W3C traceparent, and none for an invalid context', () => {
    const context = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    };
    expect(formatTraceparent(context)).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(formatTraceparent({ ...context, traceFlags: 0 })).toBe(
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
    );
    expect(formatTraceparent({ ...context, traceId: '0'.repeat(32) })).toBeUndefined();
    expect(formatTraceparent({ ...context, spanId: 'xyz' })).toBeUndefined();
  });
});

describe('redactedUrl', () => {
  it('hides credentials and secret-looking query values, keeps the rest', () => {
    expect(redactedUrl(new URL('https://u:p@h/api/v1/pods?access_token=abc&limit=5&fieldManager=m'))).toBe(
      'https://REDACTED:REDACTED@h/api/v1/pods?access_token=REDACTED&limit=5&fieldManager=m',
    );
  });
});

describe('a reconcile that ended', () => {
  it('takes no more requests and ends once', () => {
    const tracing = tracingAt();
    const trace = tracing.start('c', 'ns/a', request, undefined);
    trace.end(result('success'));
    expect(trace.request('GET', new URL('https://h/api/v1/pods'))).toBeUndefined();
    trace.end(result('success'));
    expect(exporter.getFinishedSpans()).toHaveLength(1);
  });
});
