/* eslint-disable @typescript-eslint/no-unsafe-member-access -- watch lines are untyped JSON */
/**
 * A watch at a non-storage version of a CRD with a conversion webhook, on the embedded server:
 * each event's object is converted by its own review, in order, and an object the webhook cannot
 * convert ends the stream cleanly — nothing after it, no ERROR event, never an unconverted
 * object — as kube-apiserver's watch encoder does (`endpoints/handlers/watch.go`, README.md).
 * The happy path runs on both backends in `packages/examples/widget/src/gadget-conversion.integration.test.ts`.
 */
import type { KubeObject } from '@rxkube/kube';
import { WebhookServer, generateWebhookCertificates } from '@rxkube/kube/webhook';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { call, WatchReader } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';

let server: ApiServer;
let hooks: WebhookServer;
const NS = 'default';

beforeAll(async () => {
  const certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
  hooks = new WebhookServer({
    host: '127.0.0.1',
    port: 0,
    tls: { cert: certs.cert, key: certs.key },
  }).convert(
    { group: 'conv.example.com', kind: 'Thing' },
    {
      hub: 'v2',
      spokes: {
        v1: {
          toHub: (o) => ({ ...o, spec: { count: (o.spec as { n: number }).n } }),
          fromHub: (o: KubeObject) => {
            const spec = o.spec as { count: number; broken?: boolean };
            if (spec.broken === true) throw new Error(`cannot convert ${o.metadata.name ?? ''} to v1`);
            return { ...o, spec: { n: spec.count } };
          },
        },
      },
    },
  );
  await hooks.start();
  server = await startApiServer();
  const version = (name: string, storage: boolean, spec: Record<string, unknown>) => ({
    name,
    served: true,
    storage,
    schema: {
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
    },
  });
  const crd = await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.conv.example.com' },
      spec: {
        group: 'conv.example.com',
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
        versions: [
          version('v1', false, { n: { type: 'integer' } }),
          version('v2', true, { count: { type: 'integer' }, broken: { type: 'boolean' } }),
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: {
            conversionReviewVersions: ['v1'],
            clientConfig: {
              url: hooks.url('/convert'),
              caBundle: Buffer.from(certs.caCert).toString('base64'),
            },
          },
        },
      },
    },
  });
  expect(crd.status).toBe(201);
});

afterAll(async () => {
  await server?.stop();
  await hooks?.stop();
});

it('converts each watch event at v1; an object the webhook cannot convert ends the stream', async () => {
  const create = async (name: string, spec: Record<string, unknown>) => {
    const r = await call(server.url, 'POST', `/apis/conv.example.com/v2/namespaces/${NS}/things`, {
      body: { apiVersion: 'conv.example.com/v2', kind: 'Thing', metadata: { name }, spec },
    });
    expect(r.status).toBe(201);
  };
  await create('first', { count: 1 });
  const watch = new WatchReader(server.url, `/apis/conv.example.com/v1/namespaces/${NS}/things?watch=true`);
  await watch.ready;
  expect(watch.status).toBe(200);
  const [initial] = await watch.count(1);
  expect([initial?.type, initial?.object.apiVersion, initial?.object.spec]).toEqual([
    'ADDED',
    'conv.example.com/v1',
    { n: 1 },
  ]);
  await create('broken', { count: 2, broken: true });
  await create('after', { count: 3 });
  expect(await watch.end()).toBe('end');
  // nothing after the first event: not the broken object unconverted, not the one after it
  expect(watch.lines.map((l): [string, unknown] => [l.type, l.object?.metadata?.name as unknown])).toEqual([
    ['ADDED', 'first'],
  ]);
});
