/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer();
});
afterAll(async () => {
  await server.stop();
});

describe('discovery (file 01)', () => {
  it('/api is APIVersions without apiVersion', async () => {
    const r = await call(server.url, 'GET', '/api');
    expect(r.body).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [
        { clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${String(server.port)}` },
      ],
    });
  });

  it('/api/v1 lists the core resources with subresources as separate entries', async () => {
    const r = await call(server.url, 'GET', '/api/v1');
    expect(Object.keys(r.body)).toEqual(['kind', 'groupVersion', 'resources']);
    const names = r.body.resources.map((x: { name: string }) => x.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'configmaps',
        'events',
        'namespaces',
        'namespaces/status',
        'pods',
        'pods/status',
        'secrets',
        'services',
        'serviceaccounts',
      ]),
    );
    const cm = r.body.resources.find((x: { name: string }) => x.name === 'configmaps');
    expect(Object.keys(cm)).toEqual([
      'name',
      'singularName',
      'namespaced',
      'kind',
      'verbs',
      'shortNames',
      'storageVersionHash',
    ]);
    expect(cm).toMatchObject({ singularName: '', namespaced: true, kind: 'ConfigMap', shortNames: ['cm'] });
    const nsStatus = r.body.resources.find((x: { name: string }) => x.name === 'namespaces/status');
    expect(nsStatus).toEqual({
      name: 'namespaces/status',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('/apis, /apis/{group} and /apis/{group}/{version} carry apiVersion v1', async () => {
    const all = await call(server.url, 'GET', '/apis', {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json',
    });
    expect(all.body.kind).toBe('APIGroupList');
    expect(all.body.apiVersion).toBe('v1');
    expect(all.body.groups.map((g: { name: string }) => g.name)).toEqual(
      expect.arrayContaining(['apps', 'events.k8s.io', 'coordination.k8s.io', 'apiextensions.k8s.io']),
    );
    const g = await call(server.url, 'GET', '/apis/coordination.k8s.io');
    expect(g.body).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'coordination.k8s.io',
      versions: [{ groupVersion: 'coordination.k8s.io/v1', version: 'v1' }],
      preferredVersion: { groupVersion: 'coordination.k8s.io/v1', version: 'v1' },
    });
    const gv = await call(server.url, 'GET', '/apis/coordination.k8s.io/v1');
    expect(gv.body.resources).toEqual([
      expect.objectContaining({ name: 'leases', singularName: '', namespaced: true, kind: 'Lease' }),
    ]);
    expect(Object.keys(gv.body)).toEqual(['kind', 'apiVersion', 'groupVersion', 'resources']);
  });

  it('404s: unknown group as text, unknown resource as a JSON Status', async () => {
    const g = await call(server.url, 'GET', '/apis/nope.example.com/v1');
    expect(g.status).toBe(404);
    expect(g.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(g.text).toBe('404 page not found\n');
    const r = await call(server.url, 'GET', '/api/v1/namespaces/wire/nothings');
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
  });

  it('/version and health endpoints (file 22)', async () => {
    const v = await call(server.url, 'GET', '/version');
    expect(v.body).toMatchObject({ major: '1', minor: '24' });
    for (const p of ['/readyz', '/livez', '/healthz', '/readyz/etcd']) {
      const r = await call(server.url, 'GET', p);
      expect([r.status, r.text, r.headers['content-type'], r.headers['x-content-type-options']]).toEqual([
        200,
        'ok',
        'text/plain; charset=utf-8',
        'nosniff',
      ]);
    }
    const verbose = await call(server.url, 'GET', '/readyz?verbose');
    expect(verbose.text).toMatch(/^\[\+\]ping ok\n[\s\S]*readyz check passed\n$/);
    const unknown = await call(server.url, 'GET', '/readyz/nope');
    expect(unknown.status).toBe(404);
  });

  it('the kubeconfig works with @kubernetes/client-node', async () => {
    const { CoreV1Api } = await import('@kubernetes/client-node');
    const api = server.kubeConfig.makeApiClient(CoreV1Api);
    const ns = await api.listNamespace();
    expect(ns.items.map((n) => n.metadata?.name)).toEqual([
      'default',
      'kube-node-lease',
      'kube-public',
      'kube-system',
    ]);
    const cm = await api.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'from-client' }, data: { a: 'b' } },
    });
    expect(cm.metadata?.resourceVersion).toBe(String(server.resourceVersion));
    expect(server.objects('configmaps', 'default').map((o) => o.metadata.name)).toEqual(['from-client']);
  });
});
