/**
 * Webhook handlers continue the API server's trace: a `WebhookServer` with `webhookTracing` over
 * real HTTPS (a generated serving certificate for 127.0.0.1) answers a review sent with a
 * `traceparent` header — as the API server's otelhttp client sends it (KEP-647, ./README.md) — in a
 * SERVER span that is that context's child, with the handler's own spans its children; a request
 * without the header is a root span.
 */
import { request } from 'node:https';

import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { KubeObject } from '../types.js';
import { generateWebhookCertificates } from '../webhook/certificates.js';
import type { AdmissionReview } from '../webhook/types.js';
import { allowed, denied } from '../webhook/types.js';
import { defaultPath, WebhookServer } from '../webhook/webhook-server.js';
import { webhookTracing } from './index.js';

const API_SERVER_SPAN = '00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b7-01';

function post(url: string, body: unknown, ca: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', ca, headers: { 'content-type': 'application/json', ...headers }, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const review = (name: string): AdmissionReview => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: `uid-${name}`,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    name,
    namespace: 'default',
    operation: 'CREATE',
    userInfo: { username: 'alice' },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } },
  },
});

describe('webhookTracing', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('webhooks');
  let server: WebhookServer;
  let ca: string;
  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
    ca = certs.caCert;
    server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      tls: { cert: certs.cert, key: certs.key },
      tracing: webhookTracing(tracer),
    }).validate<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap' }, async (req) => {
      await Promise.resolve();
      tracer.startSpan(`handler ${req.name ?? ''}`).end();
      return req.name === 'bad' ? denied('bad name') : allowed();
    });
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
    context.disable();
    await provider.shutdown();
  });

  it("answers in a SERVER span that continues the API server's traceparent, the handler's spans its children", async () => {
    const path = defaultPath('validate', { apiVersion: 'v1', kind: 'ConfigMap' });
    expect(await post(server.url(path), review('good'), ca, { traceparent: API_SERVER_SPAN })).toBe(200);
    expect(await post(server.url(path), review('bad'), ca, {})).toBe(200);
    const spans = exporter.getFinishedSpans();
    const servers = spans.filter((s) => s.name === `POST ${path}`);
    expect(servers).toHaveLength(2);
    const [continued, root] = servers;
    expect(continued?.kind).toBe(1); // SpanKind.SERVER
    expect(continued?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4737');
    expect(continued?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(continued?.attributes).toEqual({
      'http.request.method': 'POST',
      'url.path': path,
      'http.route': path,
      'http.response.status_code': 200,
    });
    expect(root?.parentSpanContext).toBeUndefined();
    expect(root?.spanContext().traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4737');
    const handler = (name: string) => spans.find((s) => s.name === `handler ${name}`);
    expect(handler('good')?.parentSpanContext?.spanId).toBe(continued?.spanContext().spanId);
    expect(handler('good')?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4737');
    expect(handler('bad')?.parentSpanContext?.spanId).toBe(root?.spanContext().spanId);
  });

  it('traces a request to no webhook with its status', async () => {
    exporter.reset();
    expect(await post(server.url('/nowhere'), review('x'), ca, { traceparent: API_SERVER_SPAN })).toBe(404);
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('POST /nowhere');
    expect(span?.attributes['http.response.status_code']).toBe(404);
    expect(span?.status.code).toBe(0); // a 4xx is the client's error, not the server span's
  });
});
