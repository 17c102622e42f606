/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
// The answers of dry runs and of deletecollection, as a real kube-apiserver v1.24 gives them:
// apiserver/pkg/registry/generic/registry/store.go (Create with dryRun never reaches the storage, so
// no resourceVersion; DeleteCollection answers the list it listed) and the CRD REST's own Delete
// (apiextensions-apiserver/pkg/registry/customresourcedefinition/etcd.go: no grace period or
// generation bump).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'dry';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  expect(
    (await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
  ).toBe(201);
});
afterAll(async () => {
  await server.stop();
});

describe('dry-run answers', () => {
  it('a dry-run create (POST or apply) has uid and creationTimestamp but no resourceVersion, and stores nothing', async () => {
    const rv = server.resourceVersion;
    const r = await call(server.url, 'POST', `${CM}?dryRun=All`, { body: { metadata: { name: 'n1' } } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.metadata)).toEqual(['name', 'namespace', 'uid', 'creationTimestamp']);
    const a = await call(server.url, 'PATCH', `${CM}/n2?dryRun=All&fieldManager=t`, {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n2\n',
      contentType: 'application/apply-patch+yaml',
    });
    expect(a.status).toBe(201);
    expect(a.body.metadata.resourceVersion).toBeUndefined();
    expect(server.resourceVersion).toBe(rv);
    expect(server.objects('configmaps', NS)).toEqual([]);
  });

  it('a dry-run update answers the would-be object at the stored resourceVersion', async () => {
    const c = await call(server.url, 'POST', CM, { body: { metadata: { name: 'u1' }, data: { a: '1' } } });
    const r = await call(server.url, 'PATCH', `${CM}/u1?dryRun=All`, {
      body: { data: { a: '2' } },
      contentType: 'application/merge-patch+json',
    });
    expect(r.body.data).toEqual({ a: '2' });
    expect(r.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
    expect(server.object('configmaps', NS, 'u1')?.['data']).toEqual({ a: '1' });
  });
});

describe('deletecollection answers the list as it was listed (store.DeleteCollection)', () => {
  it('an item kept by a finalizer is shown without its deletionTimestamp, dry run or not', async () => {
    await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'k1', labels: { dc: 'x' }, finalizers: ['example.com/f'] } },
    });
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'k2', labels: { dc: 'x' } } } });
    for (const dry of [true, false]) {
      const r = await call(server.url, 'DELETE', `${CM}?labelSelector=dc%3Dx${dry ? '&dryRun=All' : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.kind).toBe('ConfigMapList');
      const items = r.body.items as { metadata: { name: string; deletionTimestamp?: string } }[];
      expect(items.map((i) => [i.metadata.name, i.metadata.deletionTimestamp])).toEqual([
        ['k1', undefined],
        ['k2', undefined],
      ]);
    }
    expect(server.object('configmaps', NS, 'k1')?.metadata.deletionTimestamp).toBeDefined();
    expect(server.object('configmaps', NS, 'k2')).toBeUndefined();
  });
});

describe('deleting a CRD', () => {
  it('marks it with the cleanup finalizer only: generation unchanged, no grace period', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gizmos', kind: 'Gizmo' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    };
    const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    expect((await call(server.url, 'POST', CRDS, { body: crd })).status).toBe(201);
    const r = await call(server.url, 'DELETE', `${CRDS}/gizmos.example.com?dryRun=All`);
    expect(r.status).toBe(200);
    expect(r.body.metadata.generation).toBe(1);
    expect(r.body.metadata.deletionGracePeriodSeconds).toBeUndefined();
    expect(r.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
  });
});
