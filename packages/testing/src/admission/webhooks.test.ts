/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
/**
 * The embedded server's admission chain, the parts a real API server cannot show in one run
 * without waiting for its informers: the order of mutating webhooks across configurations (by
 * name, `configuration/mutating_webhook_manager.go`), `objectSelector` on the new and the old
 * object (`object/matcher.go`), `matchPolicy` Equivalent and Exact (`generic/webhook.go`), and
 * `timeoutSeconds` bounding a call (`callHook`). Facts: README.md beside this file.
 */
import type { KubeObject } from '@rxkube/kube';
import { WebhookServer, allowed, denied, generateWebhookCertificates } from '@rxkube/kube/webhook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from '../internal/test-client.js';
import { waitFor } from '../wait-for.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';

const NS = 'admitted';
let server: ApiServer;
let hooks: WebhookServer;
let caBundle: string;
const seen: { kind: string; requestKind: string }[] = [];

const rule = (resources: string[], apiGroups = [''], apiVersions = ['v1']): Record<string, unknown> => ({
  operations: ['CREATE', 'UPDATE'],
  apiGroups,
  apiVersions,
  resources,
});

async function configure(
  kind: 'Validating' | 'Mutating',
  name: string,
  path: string,
  extra: Record<string, unknown>,
): Promise<void> {
  const plural = `${kind.toLowerCase()}webhookconfigurations`;
  const r = await call(server.url, 'POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, {
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: `${kind}WebhookConfiguration`,
      metadata: { name },
      webhooks: [
        {
          name: `${name}.example.com`,
          clientConfig: { url: hooks.url(path), caBundle },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          ...extra,
        },
      ],
    },
  });
  expect(r.status).toBe(201);
}

beforeAll(async () => {
  const certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
  caBundle = Buffer.from(certs.caCert).toString('base64');
  const append = (letter: string) => (draft: { metadata: { annotations?: Record<string, string> } }) => {
    const order = draft.metadata.annotations?.['order'] ?? '';
    draft.metadata.annotations = { ...draft.metadata.annotations, order: order + letter };
  };
  hooks = new WebhookServer({ host: '127.0.0.1', port: 0, tls: { cert: certs.cert, key: certs.key } })
    .mutate<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap' }, append('a'), { path: '/a' })
    .mutate<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap' }, append('b'), { path: '/b' })
    .validate<KubeObject>(
      { apiVersion: 'v1', kind: 'Secret' },
      () => denied('guarded secrets are read-only'),
      { path: '/guard' },
    )
    .validate<KubeObject>(
      { apiVersion: 'v1', kind: 'Service' },
      (_req, signal) =>
        // answers only when its own deadline aborts it: longer than the configuration's 1 s
        new Promise((resolve) => signal.addEventListener('abort', () => resolve(allowed()))),
      { path: '/slow', timeoutMs: 3000 },
    )
    .validate<KubeObject>(
      { apiVersion: 'example.com/v2', kind: 'Thing' },
      (req) => {
        seen.push({ kind: req.kind.version, requestKind: req.requestKind?.version ?? '' });
        return allowed();
      },
      { path: '/things' },
    );
  await hooks.start();
  server = await startApiServer({ logger: { error: () => undefined } });
  expect(
    (await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
  ).toBe(201);
});

afterAll(async () => {
  await server?.stop();
  await hooks?.stop();
});

describe('the embedded admission chain', () => {
  it('runs mutating webhooks in the order of their configurations’ names, each on the last one’s result', async () => {
    // created in reverse order: the names decide
    await configure('Mutating', 'z-second', '/b', { rules: [rule(['configmaps'])] });
    await configure('Mutating', 'a-first', '/a', { rules: [rule(['configmaps'])] });
    const r = await call(server.url, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
      body: { metadata: { name: 'c1' } },
    });
    expect(r.status).toBe(201);
    expect(r.body.metadata.annotations).toEqual({ order: 'ab' });
    expect(server.objects('configmaps', NS)[0]?.metadata.annotations).toEqual({ order: 'ab' });
  });

  it('calls a webhook when its objectSelector matches the new or the old object', async () => {
    await configure('Validating', 'guard', '/guard', {
      rules: [rule(['secrets'])],
      objectSelector: { matchLabels: { guarded: 'yes' } },
    });
    const path = `/api/v1/namespaces/${NS}/secrets`;
    expect((await call(server.url, 'POST', path, { body: { metadata: { name: 'free' } } })).status).toBe(201);
    const guarded = await call(server.url, 'POST', path, {
      body: { metadata: { name: 'held', labels: { guarded: 'yes' } } },
    });
    expect(guarded.status).toBe(403);
    expect(guarded.body.message).toBe(
      'admission webhook "guard.example.com" denied the request: guarded secrets are read-only',
    );
    // a label added on update is seen through the new object
    const labelled = await call(server.url, 'PATCH', `${path}/free`, {
      body: { metadata: { labels: { guarded: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(labelled.status).toBe(403);
  });

  it('bounds a call by timeoutSeconds: Fail answers 500 naming the webhook', async () => {
    await configure('Validating', 'slow', '/slow', { rules: [rule(['services'])], timeoutSeconds: 1 });
    const r = await call(server.url, 'POST', `/api/v1/namespaces/${NS}/services`, {
      body: { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } },
    });
    expect(r.status).toBe(500);
    expect(r.body.reason).toBe('InternalError');
    expect(r.body.message).toMatch(
      /^Internal error occurred: failed calling webhook "slow.example.com": .*context deadline exceeded/,
    );
  });

  it('matchPolicy Equivalent calls a webhook of another version with the object in it; Exact does not', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
        versions: ['v1', 'v2'].map((name) => ({
          name,
          served: true,
          storage: name === 'v2',
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
      },
    };
    expect(
      (
        await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          body: crd,
        })
      ).status,
    ).toBe(201);
    await waitFor(
      'things to be served',
      async () =>
        (await call(server.url, 'GET', `/apis/example.com/v1/namespaces/${NS}/things`)).status === 200,
    );
    await configure('Validating', 'things-equivalent', '/things', {
      rules: [rule(['things'], ['example.com'], ['v2'])],
    });
    await configure('Validating', 'things-exact', '/things', {
      rules: [rule(['things'], ['example.com'], ['v2'])],
      matchPolicy: 'Exact',
    });
    const r = await call(server.url, 'POST', `/apis/example.com/v1/namespaces/${NS}/things`, {
      body: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't1' } },
    });
    expect(r.status).toBe(201);
    // called once (Equivalent) with the v2 object; the Exact webhook was not called
    expect(seen).toEqual([{ kind: 'v2', requestKind: 'v1' }]);
  });
});
