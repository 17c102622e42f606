/**
 * The webhook server over real HTTPS (a generated CA and serving certificate for 127.0.0.1):
 * AdmissionReview and ConversionReview answers, failure kinds, metrics, certificate reload and
 * graceful shutdown. The API servers calling it are covered by
 * `packages/examples/widget/src/webhooks.integration.test.ts` (both backends).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';

import type { Resource } from '../resource.js';
import type { KubeObject } from '../types.js';
import { generateWebhookCertificates, type WebhookCertificates } from './certificates.js';
import type { AdmissionReview, ConversionReview } from './types.js';
import { allowed, denied } from './types.js';
import { WebhookServer } from './webhook-server.js';

type WidgetSpec = { size: number; color?: string; tags?: string[] };
type Widget = Resource<WidgetSpec> & { spec: WidgetSpec };
const widgetType = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;

const certs: Promise<WebhookCertificates> = generateWebhookCertificates({
  hosts: ['127.0.0.1', 'localhost'],
});

interface Answer {
  status: number;
  body: string;
  peerSerial: string;
}

async function post(
  url: string,
  body: unknown,
  ca: string,
  contentType = 'application/json',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', ca, headers: { 'content-type': contentType }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            peerSerial: (res.socket as TLSSocket).getPeerCertificate().serialNumber,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
}

function review(
  object: Widget | undefined,
  operation: 'CREATE' | 'UPDATE' | 'DELETE' = 'CREATE',
  oldObject?: Widget,
): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      name: 'w1',
      namespace: 'default',
      operation,
      userInfo: { username: 'alice', groups: ['system:authenticated'] },
      ...(object !== undefined ? { object } : {}),
      ...(oldObject !== undefined ? { oldObject } : {}),
    },
  };
}

const widget = (spec: WidgetSpec): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w1', namespace: 'default' },
  spec,
});

const servers: WebhookServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function started(server: WebhookServer): Promise<WebhookServer> {
  servers.push(server);
  await server.start();
  return server;
}

describe('WebhookServer', () => {
  it('answers a validating review: allowed with warnings, denied with code and message, typed by resource', async () => {
    const { cert, key, caCert } = await certs;
    const seen: string[] = [];
    const server = await started(
      new WebhookServer({ host: '127.0.0.1', port: 0, tls: { cert, key } }).validate<Widget>(
        widgetType,
        (req) => {
          seen.push(
            `${req.operation} ${req.userInfo.username ?? ''} old=${String(req.oldObject?.spec.size)}`,
          );
          const size = req.object?.spec.size ?? 0;
          if (size > 10) return denied(`spec.size ${String(size)} is more than 10`, { code: 422 });
          return size > 5 ? allowed('spec.size above 5 is deprecated') : allowed();
        },
      ),
    );
    const url = server.url('/validate-example-com-v1-widget');
    const ok = JSON.parse((await post(url, review(widget({ size: 1 })), caCert)).body) as AdmissionReview;
    expect(ok).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'uid-1', allowed: true },
    });
    const warned = JSON.parse(
      (await post(url, review(widget({ size: 6 }), 'UPDATE', widget({ size: 1 })), caCert)).body,
    ) as AdmissionReview;
    expect(warned.response).toEqual({
      uid: 'uid-1',
      allowed: true,
      warnings: ['spec.size above 5 is deprecated'],
    });
    const no = JSON.parse((await post(url, review(widget({ size: 11 })), caCert)).body) as AdmissionReview;
    expect(no.response).toEqual({
      uid: 'uid-1',
      allowed: false,
      status: { code: 422, message: 'spec.size 11 is more than 10' },
    });
    expect(seen).toEqual(['CREATE alice old=undefined', 'UPDATE alice old=1', 'CREATE alice old=undefined']);
  });

  it('answers a mutating review with the RFC 6902 patch of the recipe, none when nothing changed', async () => {
    const { cert, key, caCert } = await certs;
    const server = await started(
      new WebhookServer({ host: '127.0.0.1', port: 0, tls: { cert, key } }).mutate<Widget>(
        widgetType,
        async (draft, req) => {
          await Promise.resolve();
          if (req.object?.spec.color !== undefined) return;
          draft.spec.color = 'blue';
          draft.spec.tags = [...(draft.spec.tags ?? []), 'defaulted'];
          draft.metadata.labels = { 'example.com/a~b': 'x' };
        },
      ),
    );
    const url = server.url('/mutate-example-com-v1-widget');
    const res = JSON.parse(
      (await post(url, review(widget({ size: 1, tags: ['t'] })), caCert)).body,
    ) as AdmissionReview;
    expect(res.response?.status).toBeUndefined();
    expect(res.response?.allowed).toBe(true);
    expect(res.response?.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(res.response?.patch ?? '', 'base64').toString('utf8'))).toEqual([
      { op: 'add', path: '/metadata/labels', value: { 'example.com/a~b': 'x' } },
      { op: 'add', path: '/spec/tags/-', value: 'defaulted' },
      { op: 'add', path: '/spec/color', value: 'blue' },
    ]);
    const same = JSON.parse(
      (await post(url, review(widget({ size: 1, color: 'red' })), caCert)).body,
    ) as AdmissionReview;
    expect(same.response).toEqual({ uid: 'uid-1', allowed: true });
  });

  it('denies with 500 when a handler throws and with 504 at its deadline; counts them by code', async () => {
    const { cert, key, caCert } = await certs;
    const registry = new Registry();
    let aborted: AbortSignal | undefined;
    const server = await started(
      new WebhookServer({ host: '127.0.0.1', port: 0, tls: { cert, key }, registry })
        .validate<Widget>(widgetType, () => {
          throw new Error('database unreachable');
        })
        .validate<KubeObject>(
          { apiVersion: 'v1', kind: 'ConfigMap' },
          (_req, signal) => {
            aborted = signal;
            return new Promise(() => undefined); // hangs
          },
          { timeoutMs: 50 },
        ),
    );
    const threw = JSON.parse(
      (await post(server.url('/validate-example-com-v1-widget'), review(widget({ size: 1 })), caCert)).body,
    ) as AdmissionReview;
    expect(threw.response).toEqual({
      uid: 'uid-1',
      allowed: false,
      status: {
        code: 500,
        reason: 'InternalError',
        message: 'validating webhook /validate-example-com-v1-widget failed: database unreachable',
      },
    });
    const hung = JSON.parse(
      (await post(server.url('/validate--v1-configmap'), review(widget({ size: 1 })), caCert)).body,
    ) as AdmissionReview;
    expect(hung.response?.status).toEqual({
      code: 504,
      reason: 'Timeout',
      message: 'validating webhook /validate--v1-configmap did not answer within its deadline of 50 ms',
    });
    expect(aborted?.aborted).toBe(true);
    const bad = await post(server.url('/validate--v1-configmap'), '{"kind":"Nope"}', caCert);
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('expected an admission.k8s.io/v1 AdmissionReview');
    expect((await post(server.url('/nowhere'), review(undefined), caCert)).status).toBe(404);
    const metrics = await registry.metrics();
    expect(metrics).toContain(
      'controller_runtime_webhook_requests_total{webhook="/validate-example-com-v1-widget",code="200"} 1',
    );
    expect(metrics).toContain(
      'controller_runtime_webhook_requests_total{webhook="/validate--v1-configmap",code="200"} 1',
    );
    expect(metrics).toContain(
      'controller_runtime_webhook_requests_total{webhook="/validate--v1-configmap",code="400"} 1',
    );
    expect(metrics).toContain('controller_runtime_webhook_requests_total{webhook="unknown",code="404"} 1');
    expect(metrics).toContain(
      'controller_runtime_webhook_requests_in_flight{webhook="/validate--v1-configmap"} 0',
    );
    expect(metrics).toContain(
      'controller_runtime_webhook_latency_seconds_count{webhook="/validate-example-com-v1-widget"} 1',
    );
  });

  it('converts through the hub, keeps metadata and reports a failing conversion as Failure', async () => {
    const { cert, key, caCert } = await certs;
    const server = await started(
      new WebhookServer({ host: '127.0.0.1', port: 0, tls: { cert, key } }).convert(
        { group: 'example.com', kind: 'Widget' },
        {
          hub: 'v2',
          spokes: {
            v1: {
              toHub: (o) => ({ ...o, spec: { replicas: (o.spec as { size: number }).size } }),
              fromHub: (o) => {
                const replicas = (o.spec as { replicas: number }).replicas;
                if (replicas < 0) throw new Error('replicas must not be negative');
                return { ...o, spec: { size: replicas } };
              },
            },
          },
        },
      ),
    );
    const objects = [
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'a', uid: 'u-a', labels: { x: 'y' } },
        spec: { size: 3 },
      },
      {
        apiVersion: 'example.com/v2',
        kind: 'Widget',
        metadata: { name: 'b', uid: 'u-b' },
        spec: { replicas: 4 },
      },
    ];
    const toV2 = JSON.parse(
      (
        await post(
          server.url('/convert'),
          {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'ConversionReview',
            request: { uid: 'c1', desiredAPIVersion: 'example.com/v2', objects },
          },
          caCert,
        )
      ).body,
    ) as ConversionReview;
    expect(toV2.response).toEqual({
      uid: 'c1',
      result: { status: 'Success' },
      convertedObjects: [
        {
          apiVersion: 'example.com/v2',
          kind: 'Widget',
          metadata: { name: 'a', uid: 'u-a', labels: { x: 'y' } },
          spec: { replicas: 3 },
        },
        objects[1],
      ],
    });
    const failing = JSON.parse(
      (
        await post(
          server.url('/convert'),
          {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'ConversionReview',
            request: {
              uid: 'c2',
              desiredAPIVersion: 'example.com/v1',
              objects: [{ ...objects[1], spec: { replicas: -1 } }],
            },
          },
          caCert,
        )
      ).body,
    ) as ConversionReview;
    expect(failing.response).toEqual({
      uid: 'c2',
      convertedObjects: [],
      result: { status: 'Failure', message: 'replicas must not be negative' },
    });
  });

  it('serves certificate files and swaps to new ones written in place, keeping the old pair when the new one is broken', async () => {
    const first = await certs;
    const dir = mkdtempSync(join(tmpdir(), 'rxkube-webhook-certs-'));
    dirs.push(dir);
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const server = await started(
      new WebhookServer({ host: '127.0.0.1', port: 0, tls: { certFile, keyFile } }).validate(widgetType, () =>
        allowed(),
      ),
    );
    const url = server.url('/validate-example-com-v1-widget');
    const serialOf = (pem: string): string => new X509Certificate(pem).serialNumber;
    expect((await post(url, review(widget({ size: 1 })), first.caCert)).peerSerial).toBe(
      serialOf(first.cert),
    );
    // a new serving certificate from the same CA, as cert-manager renews it
    const second = await generateWebhookCertificates({
      hosts: ['127.0.0.1'],
      ca: { cert: first.caCert, key: first.caKey },
    });
    writeFileSync(keyFile, second.key);
    writeFileSync(certFile, second.cert);
    await server.reloadCertificates(); // the folder watch does the same; awaited here to be deterministic
    expect((await post(url, review(widget({ size: 1 })), first.caCert)).peerSerial).toBe(
      serialOf(second.cert),
    );
    writeFileSync(certFile, 'not a certificate');
    await server.reloadCertificates();
    expect((await post(url, review(widget({ size: 1 })), first.caCert)).peerSerial).toBe(
      serialOf(second.cert),
    );
  });

  it('lets a request in flight answer on stop() and refuses new connections after', async () => {
    const { cert, key, caCert } = await certs;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const server = await started(
      new WebhookServer({ host: '127.0.0.1', port: 0, tls: { cert, key } }).validate(widgetType, async () => {
        entered();
        await gate;
        return allowed();
      }),
    );
    const url = server.url('/validate-example-com-v1-widget');
    const answer = post(url, review(widget({ size: 1 })), caCert);
    await inHandler;
    const stopped = server.stop();
    release();
    expect(JSON.parse((await answer).body)).toMatchObject({ response: { allowed: true } });
    await stopped;
    await expect(post(url, review(widget({ size: 1 })), caCert)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('refuses bad registrations with a clear error', () => {
    const tls = { cert: 'x', key: 'y' };
    expect(() => new WebhookServer({ tls: {} as never })).toThrow(/certFile, keyFile/);
    const selfManaged = { secret: { namespace: 'ns', name: 'certs' }, hosts: ['h'] };
    expect(() => new WebhookServer({ tls: { selfManaged } })).toThrow(
      /client is needed with tls.selfManaged/,
    );
    expect(
      () =>
        new WebhookServer({
          client: {} as never,
          tls: { selfManaged: { ...selfManaged, validForDays: 20, renewBeforeDays: 30 } },
        }),
    ).toThrow(/must be longer than renewBeforeDays \(30\)/);
    const server = new WebhookServer({ tls }).validate(widgetType, () => allowed());
    expect(() => server.validate(widgetType, () => allowed())).toThrow(/must be unique/);
    expect(() => server.mutate(widgetType, () => undefined, { timeoutMs: 30_000 })).toThrow(/below 30000/);
    expect(() => server.convert({ group: 'g', kind: 'K' }, { hub: '', spokes: {} })).toThrow(/hub/);
  });
});
