/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/wire/configmaps';
const W = '/apis/example.com/v1/namespaces/wire/widgets';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: {
      plural: 'widgets',
      singular: 'widget',
      kind: 'Widget',
      listKind: 'WidgetList',
      shortNames: ['wg'],
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: { size: { type: 'integer', minimum: 1 }, color: { type: 'string' } },
              },
              status: {
                type: 'object',
                properties: { phase: { type: 'string' }, observedGeneration: { type: 'integer' } },
              },
            },
          },
        },
      },
    ],
  },
};

async function waitEstablished(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await call(
      server.url,
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
    );
    const conds = (r.body.status?.conditions ?? []) as { type: string; status: string }[];
    if (conds.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('CRD never Established');
}

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'wire' } } });
  const c = await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: CRD,
  });
  expect(c.status).toBe(201);
  expect(c.body.status).toEqual({
    conditions: null,
    acceptedNames: { plural: '', kind: '' },
    storedVersions: ['v1'],
  });
  await waitEstablished();
});
afterAll(async () => {
  await server.stop();
});

describe('patches (file 10)', () => {
  it('merge, JSON (with test), strategic; 415 and 422/400 answers', async () => {
    await call(server.url, 'POST', CM, {
      body: { metadata: { name: 's10-cm', labels: { app: 'wire' } }, data: { a: '1', b: '2' } },
    });
    const m = await call(server.url, 'PATCH', `${CM}/s10-cm`, {
      body: { data: { a: '10', b: null } },
      contentType: 'application/merge-patch+json',
    });
    expect(m.body.data).toEqual({ a: '10' });
    const j = await call(server.url, 'PATCH', `${CM}/s10-cm`, {
      body: [
        { op: 'add', path: '/data/c', value: '3' },
        { op: 'replace', path: '/data/a', value: '11' },
      ],
      contentType: 'application/json-patch+json',
    });
    expect(j.body.data).toEqual({ a: '11', c: '3' });
    const t = await call(server.url, 'PATCH', `${CM}/s10-cm`, {
      body: [
        { op: 'test', path: '/data/a', value: '999' },
        { op: 'remove', path: '/data/a' },
      ],
      contentType: 'application/json-patch+json',
    });
    expect(t.status).toBe(422);
    expect(t.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
    const notArray = await call(server.url, 'PATCH', `${CM}/s10-cm`, {
      body: { op: 'add' },
      contentType: 'application/json-patch+json',
    });
    expect(notArray.status).toBe(400);
    const s = await call(server.url, 'PATCH', `${CM}/s10-cm`, {
      body: { metadata: { labels: { tier: 'gold' } }, data: { d: '4' } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(s.body.metadata.labels).toEqual({ app: 'wire', tier: 'gold' });
    const wrong = await call(server.url, 'PATCH', `${CM}/s10-cm`, {
      body: { data: { e: '5' } },
      contentType: 'application/json',
    });
    expect(wrong.status).toBe(415);
    expect(wrong.body.message).toBe('415: Unsupported Media Type');
    const same = await call(server.url, 'PATCH', `${CM}/s10-cm`, {
      body: { data: { d: '4' } },
      contentType: 'application/merge-patch+json',
    });
    expect(same.body.metadata.resourceVersion).toBe(s.body.metadata.resourceVersion);
    const stale = await call(server.url, 'PATCH', `${CM}/s10-cm`, {
      body: { metadata: { resourceVersion: '2' }, data: { v: '6' } },
      contentType: 'application/merge-patch+json',
    });
    expect(stale.status).toBe(409);
  });

  it('custom resources: strategic → 415, merge/JSON bump generation, schema 422', async () => {
    const c = await call(server.url, 'POST', W, {
      body: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 's10-w' },
        spec: { size: 1, color: 'red' },
      },
    });
    expect(c.status).toBe(201);
    expect(Object.keys(c.body)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(c.body.metadata.generation).toBe(1);
    const smp = await call(server.url, 'PATCH', `${W}/s10-w`, {
      body: { spec: { size: 2 } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(smp.status).toBe(415);
    expect(smp.body.details).toBeUndefined();
    const m = await call(server.url, 'PATCH', `${W}/s10-w`, {
      body: { spec: { size: 2 } },
      contentType: 'application/merge-patch+json',
    });
    expect(m.body.metadata.generation).toBe(2);
    const bad = await call(server.url, 'PATCH', `${W}/s10-w`, {
      body: { spec: { size: 0 } },
      contentType: 'application/merge-patch+json',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'Widget.example.com "s10-w" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
    );
  });
});

describe('status subresource and generation (file 12)', () => {
  it('drops status on create, ignores status on the main resource and spec on /status', async () => {
    const c = await call(server.url, 'POST', W, {
      body: { metadata: { name: 's12-w' }, spec: { size: 1 }, status: { phase: 'FromCreate' } },
    });
    expect(c.body.status).toBeUndefined();
    const st = await call(server.url, 'PUT', `${W}/s12-w/status`, {
      body: { ...c.body, spec: { size: 99 }, status: { phase: 'Ready', observedGeneration: 1 } },
    });
    expect(st.status).toBe(200);
    expect(st.body.spec).toEqual({ size: 1 });
    expect(st.body.status).toEqual({ observedGeneration: 1, phase: 'Ready' });
    expect(st.body.metadata.generation).toBe(1);
    expect(
      st.body.metadata.managedFields.some((f: { subresource?: string }) => f.subresource === 'status'),
    ).toBe(true);
    const main = await call(server.url, 'PUT', `${W}/s12-w`, {
      body: { ...st.body, status: { phase: 'Ignored' } },
    });
    expect(main.body.metadata.resourceVersion).toBe(st.body.metadata.resourceVersion);
    expect(main.body.status.phase).toBe('Ready');
    const label = await call(server.url, 'PATCH', `${W}/s12-w`, {
      body: { metadata: { labels: { x: 'y' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(label.body.metadata.generation).toBe(1);
    const pruned = await call(server.url, 'POST', W, {
      body: { metadata: { name: 's12-pruned' }, spec: { size: 1, extra: 'dropped' } },
    });
    expect(pruned.body.spec).toEqual({ size: 1 });
    const missing = await call(server.url, 'POST', W, {
      body: { metadata: { name: 's12-bad2' }, spec: { color: 'red' } },
    });
    expect(missing.body.message).toBe('Widget.example.com "s12-bad2" is invalid: spec.size: Required value');
    const noRv = await call(server.url, 'PUT', `${W}/s12-w`, {
      body: { metadata: { name: 's12-w' }, spec: { size: 3 } },
    });
    expect(noRv.status).toBe(422);
  });

  it('lists of custom resources carry item TypeMeta and continue ""', async () => {
    const l = await call(server.url, 'GET', W);
    expect(Object.keys(l.body)).toEqual(['apiVersion', 'items', 'kind', 'metadata']);
    expect(l.body.metadata.continue).toBe('');
    expect(l.body.items[0].kind).toBe('Widget');
  });

  it('discovery includes the CRD group with singularName and shortNames', async () => {
    const d = await call(server.url, 'GET', '/apis/example.com/v1');
    expect(d.body.resources[0]).toMatchObject({
      name: 'widgets',
      singularName: 'widget',
      namespaced: true,
      kind: 'Widget',
      shortNames: ['wg'],
    });
    expect(d.body.resources[1]).toEqual({
      name: 'widgets/status',
      singularName: '',
      namespaced: true,
      kind: 'Widget',
      verbs: ['get', 'patch', 'update'],
    });
  });

  it('invalid CRDs → 422 with causes', async () => {
    const r = await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: {
        metadata: { name: 'bad.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'gadgets', kind: 'Gadget' },
          versions: [],
        },
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.details.kind).toBe('CustomResourceDefinition');
    expect(r.body.details.causes.length).toBeGreaterThan(0);
  });
});

describe('server-side apply (file 11)', () => {
  it('creates via apply, conflicts with causes, force, fieldManager required', async () => {
    const yaml = (v: string): string =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s11-cm\ndata:\n  key: ${v}\n`;
    const a = await call(server.url, 'PATCH', `${CM}/s11-cm?fieldManager=a`, {
      body: yaml('from-a'),
      contentType: 'application/apply-patch+yaml',
    });
    expect(a.status).toBe(201);
    expect(a.body.metadata.managedFields[0]).toMatchObject({ manager: 'a', operation: 'Apply' });
    const again = await call(server.url, 'PATCH', `${CM}/s11-cm?fieldManager=a`, {
      body: yaml('from-a'),
      contentType: 'application/apply-patch+yaml',
    });
    expect(again.status).toBe(200);
    expect(again.body.metadata.resourceVersion).toBe(a.body.metadata.resourceVersion);
    const b = await call(server.url, 'PATCH', `${CM}/s11-cm?fieldManager=b`, {
      body: yaml('from-b'),
      contentType: 'application/apply-patch+yaml',
    });
    expect(b.status).toBe(409);
    expect(b.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "a": .data.key',
      reason: 'Conflict',
      details: {
        causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.data.key' }],
      },
      code: 409,
    });
    const forced = await call(server.url, 'PATCH', `${CM}/s11-cm?fieldManager=b&force=true`, {
      body: yaml('from-b'),
      contentType: 'application/apply-patch+yaml',
    });
    expect(forced.status).toBe(200);
    expect(forced.body.data.key).toBe('from-b');
    const noFm = await call(server.url, 'PATCH', `${CM}/s11-cm`, {
      body: yaml('x'),
      contentType: 'application/apply-patch+yaml',
    });
    expect(noFm.status).toBe(422);
    expect(noFm.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  });
});
