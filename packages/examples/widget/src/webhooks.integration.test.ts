/**
 * The Widget operator's webhooks, served by the Manager over HTTPS on 127.0.0.1 and called by the
 * API server through ValidatingWebhookConfiguration / MutatingWebhookConfiguration `url`s with a
 * `caBundle` — the same suite on the embedded server (its admission chain,
 * `packages/testing/src/admission/webhooks.ts`) and on a real kube-apiserver v1.24.
 *
 * Webhook configurations are cluster-wide: each is limited by `namespaceSelector` to this
 * suite's namespace, so suites sharing a control plane never meet them. A real API server reads
 * configurations through an informer: every new configuration is waited for by its outcome (a
 * dry-run create it changes), never by a duration.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

import { ensureCrd, KubeApiError, KubeClient, Manager } from '@rxkube/kube';
import { generateWebhookCertificates, type WebhookCertificates } from '@rxkube/kube/webhook';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exampleFile } from '../../src/paths.js';
import { type Widget, widgetType } from './widget.js';
import {
  MUTATING_WEBHOOK,
  SIZE_CLASS,
  VALIDATING_WEBHOOK,
  setupWebhooks,
  webhookConfigurations,
} from './webhooks.js';

const NS = 'webhooked';
const LABELS = { 'rxkube-test': 'widget-webhooks' };
const BOUND = { timeoutMs: 30_000 };
const GROW_PATH = '/grow-widget';
let growUrl = '';
let mutateUrl = '';

const widget = (
  name: string,
  spec: NonNullable<Widget['spec']>,
  labels?: Record<string, string>,
): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: NS, ...(labels !== undefined ? { labels } : {}) },
  spec,
});

describeEachBackend('widget webhooks (HTTPS, called by the API server)', (b) => {
  let client: KubeClient;
  let mgr: Manager;
  let certs: WebhookCertificates;
  const configs: { kind: string; name: string }[] = [];

  /** Creates a webhook configuration and remembers it for cleanup. */
  async function register(config: Record<string, unknown>): Promise<void> {
    await client.create(config as never);
    configs.push({
      kind: String(config['kind']),
      name: String((config['metadata'] as { name: string }).name),
    });
  }

  /** A raw create (for the `Warning` headers, which the client does not surface). */
  function rawCreate(
    body: unknown,
  ): Promise<{ status: number; warnings: string[]; body: Record<string, unknown> }> {
    const cluster = b.cluster.kubeConfig.getCurrentCluster();
    const url = `${b.cluster.url}/apis/example.com/v1/namespaces/${NS}/widgets`;
    const ca =
      cluster?.caData !== undefined ? Buffer.from(cluster.caData, 'base64').toString('utf8') : undefined;
    return new Promise((resolve, reject) => {
      const request = url.startsWith('https:') ? httpsRequest : httpRequest;
      const req = request(
        url,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${b.cluster.token}`, 'content-type': 'application/json' },
          ...(ca !== undefined ? { ca } : { rejectUnauthorized: cluster?.skipTLSVerify !== true }),
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const header = res.headers['warning'];
            const list: string[] =
              header === undefined ? [] : typeof header === 'string' ? header.split(/,(?=\s*299)/) : header;
            resolve({
              status: res.statusCode ?? 0,
              warnings: list.map((w) => w.trim()),
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }

  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await ensureCrd(client, exampleFile('widget', 'crd.yaml'), { fieldManager: 'widget-webhooks-test' });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: LABELS } });
    certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
    mgr = new Manager({ client, name: 'widget-webhooks', logLevel: 'silent', leaderElection: false });
    const server = setupWebhooks(mgr, {
      host: '127.0.0.1',
      port: 0,
      tls: { cert: certs.cert, key: certs.key },
    }).mutate<Widget>(
      widgetType,
      // the reinvocation test's second mutation: grows a labelled widget to 20
      (draft) => {
        if (
          draft.metadata.labels?.['reinvoke'] !== undefined &&
          draft.spec !== undefined &&
          draft.spec.size < 20
        )
          draft.spec.size = 20;
      },
      { path: GROW_PATH },
    );
    await mgr.start();
    growUrl = server.url(GROW_PATH);
    mutateUrl = server.url('/mutate-example-com-v1-widget');
    const caBundle = Buffer.from(certs.caCert).toString('base64');
    for (const config of webhookConfigurations(
      'widget-webhooks',
      (path) => ({ url: server.url(path), caBundle }),
      LABELS,
    )) {
      await register(config);
    }
    // the API server sees the configurations once a dry-run create comes back labelled
    await waitFor(
      'the mutating webhook to be called',
      async () => {
        const w = await client.create(widget('probe', { size: 1 }), { dryRun: true });
        return w.metadata.labels?.[SIZE_CLASS] === 'small';
      },
      BOUND,
    );
  }, 120_000);

  afterAll(async () => {
    if (client === undefined) return;
    for (const c of configs.reverse()) {
      await client
        .delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind: c.kind, name: c.name })
        .catch(() => undefined);
    }
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
    await mgr?.stop();
    client.close();
  });

  it('mutates: the created Widget carries the size-class label the webhook patched in, stored', async () => {
    const created = await client.create(widget('small-one', { size: 3 }, { team: 'a' }));
    expect(created.metadata.labels).toEqual({ team: 'a', [SIZE_CLASS]: 'small' });
    const stored = await client.get<Widget>({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      namespace: NS,
      name: 'small-one',
    });
    expect(stored.metadata.labels).toEqual({ team: 'a', [SIZE_CLASS]: 'small' });
    // schema defaults still apply to the mutated object
    expect(stored.spec?.color).toBe('blue');
    // UPDATE goes through it too
    const updated = await client.patch<Widget>(
      { apiVersion: 'example.com/v1', kind: 'Widget', namespace: NS, name: 'small-one' },
      { type: 'merge', body: { spec: { size: 30 } } },
    );
    expect(updated.metadata.labels?.[SIZE_CLASS]).toBe('large');
  });

  it('validates: a denied create is a 403 naming the webhook and its message; nothing is stored', async () => {
    const error = await client.create(widget('too-red', { size: 60, color: 'red' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).code).toBe(403);
    expect((error as KubeApiError).message).toContain(
      `admission webhook "${VALIDATING_WEBHOOK}" denied the request: red widgets come in at most 50, not 60 (spec.size)`,
    );
    await expect(
      client.get({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: NS, name: 'too-red' }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('returns the validating webhook’s warnings as Warning headers', async () => {
    const answer = await rawCreate(widget('many', { size: 90 }));
    expect(answer.status).toBe(201);
    expect(answer.warnings).toEqual(['299 - "spec.size 90: more than 80 widgets is deprecated"']);
  });

  it('calls webhooks on a dry run (sideEffects: None) and stores nothing', async () => {
    const dry = await client.create(widget('dry', { size: 12 }), { dryRun: true });
    expect(dry.metadata.labels?.[SIZE_CLASS]).toBe('large');
    await expect(
      client.get({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: NS, name: 'dry' }),
    ).rejects.toMatchObject({ code: 404 });
    await expect(
      client.create(widget('dry-red', { size: 70, color: 'red' }), { dryRun: true }),
    ).rejects.toMatchObject({
      code: 403,
    });
  });

  it('skips webhooks whose namespaceSelector does not select the namespace', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${NS}-plain` } });
    try {
      const plain = await client.create<Widget>({
        ...widget('red', { size: 60, color: 'red' }),
        metadata: { name: 'red', namespace: `${NS}-plain` },
      });
      expect(plain.metadata.labels?.[SIZE_CLASS]).toBeUndefined();
    } finally {
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: `${NS}-plain` });
    }
  });

  it('failurePolicy: an unreachable webhook rejects with 500 under Fail and is skipped under Ignore', async () => {
    // a port nothing listens on: the manager's server, stopped, would do too; port 1 is never served
    const unreachable = (policy: string, name: string): Record<string, unknown> => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [
        {
          name: `${policy.toLowerCase()}.unreachable.example.com`,
          clientConfig: {
            url: 'https://127.0.0.1:1/validate',
            caBundle: Buffer.from(certs.caCert).toString('base64'),
          },
          rules: [
            {
              operations: ['CREATE'],
              apiGroups: ['example.com'],
              apiVersions: ['v1'],
              resources: ['widgets'],
            },
          ],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: policy,
          timeoutSeconds: 2,
          namespaceSelector: { matchLabels: LABELS },
          objectSelector: { matchLabels: { unreachable: policy } },
        },
      ],
    });
    await register(unreachable('Ignore', 'widget-webhooks-ignore'));
    await register(unreachable('Fail', 'widget-webhooks-fail'));
    const failing = (): Promise<unknown> =>
      client.create(widget('unreached', { size: 2 }, { unreachable: 'Fail' }), { dryRun: true });
    const error = await waitFor(
      'the Fail configuration to be in force',
      async () => {
        const e = await failing().then(
          () => undefined,
          (x: unknown) => x,
        );
        return e instanceof KubeApiError ? e : undefined;
      },
      BOUND,
    );
    expect(error.code).toBe(500);
    expect(error.message).toContain('failed calling webhook "fail.unreachable.example.com"');
    // Ignore: the same kind of failure lets the write through (configured before Fail, so in force)
    const ignored = await client.create(widget('ignored', { size: 2 }, { unreachable: 'Ignore' }));
    expect(ignored.metadata.labels?.[SIZE_CLASS]).toBe('small');
  });

  it('reinvocationPolicy IfNeeded: a webhook runs again when a later one changed the object; Never: not', async () => {
    const caBundle = Buffer.from(certs.caCert).toString('base64');
    const rules = [
      { operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] },
    ];
    const hook = (name: string, url: string, extra: Record<string, unknown>) => ({
      name,
      clientConfig: { url, caBundle },
      rules,
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      namespaceSelector: { matchLabels: LABELS },
      ...extra,
    });
    // configurations run in the order of their names: -a (the size class) before -b (grow)
    await register({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'widget-webhooks-reinvoke-a' },
      webhooks: [
        hook('if-needed.size-class.example.com', mutateUrl, {
          reinvocationPolicy: 'IfNeeded',
          objectSelector: { matchLabels: { reinvoke: 'if-needed' } },
        }),
        hook('never.size-class.example.com', mutateUrl, {
          reinvocationPolicy: 'Never',
          objectSelector: { matchLabels: { reinvoke: 'never' } },
        }),
      ],
    });
    await register({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'widget-webhooks-reinvoke-b' },
      webhooks: [
        hook('grow.example.com', growUrl, {
          objectSelector: { matchExpressions: [{ key: 'reinvoke', operator: 'Exists' }] },
        }),
      ],
    });
    const dryCreate = (policy: string) =>
      client.create(widget(`reinvoked-${policy}`, { size: 3 }, { reinvoke: policy }), { dryRun: true });
    // IfNeeded: labelled small in the first round, grown to 20 after it, labelled again: large
    const reinvoked = await waitFor(
      'both reinvocation configurations in force',
      async () => {
        const w = await dryCreate('if-needed');
        return w.spec?.size === 20 && w.metadata.labels?.[SIZE_CLASS] === 'large' ? w : undefined;
      },
      BOUND,
    );
    expect(reinvoked.metadata.labels?.[SIZE_CLASS]).toBe('large');
    // Never: grown to 20 as well, but the size class stays what the first round said
    const once = await dryCreate('never');
    expect(once.spec?.size).toBe(20);
    expect(once.metadata.labels?.[SIZE_CLASS]).toBe('small');
  });

  it('names the webhooks it registered (for the manifests)', () => {
    expect(mgr.webhooks().admissionWebhooks.map((w) => [w.type, w.path])).toEqual([
      ['validating', '/validate-example-com-v1-widget'],
      ['mutating', '/mutate-example-com-v1-widget'],
      ['mutating', GROW_PATH],
    ]);
    expect(MUTATING_WEBHOOK).toBe('mutate.widgets.example.com');
  });
});
