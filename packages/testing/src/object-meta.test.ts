/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
// Object metadata over HTTP, as kube-apiserver v1.24 answers (each expectation was read from the
// real server): validation on create (k8s.io/apimachinery/pkg/api/validation/objectmeta.go), the
// update passes of apiserver/pkg/registry/rest/update.go (validateCommonFields + the strategy),
// immutable fields on PUT and on every patch type, and what a status write may change
// (the status strategies' PrepareForUpdate, e.g. pkg/registry/apps/deployment/strategy.go).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'meta';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const W = `/apis/example.com/v1/namespaces/${NS}/widgets`;
const OTHER_UID = '00000000-0000-0000-0000-000000000000';

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  expect(
    (await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
  ).toBe(201);
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  expect(
    (await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }))
      .status,
  ).toBe(201);
  for (let i = 0; i < 100; i++) {
    if ((await call(server.url, 'GET', W)).status === 200) break;
    await new Promise((r) => setImmediate(r));
  }
});
afterAll(async () => {
  await server.stop();
});

const fieldsOf = (body: { details?: { causes?: { field?: string }[] } }): (string | undefined)[] =>
  (body.details?.causes ?? []).map((c) => c.field);

describe('create validates metadata with the real causes', () => {
  it('labels, annotations, ownerReferences and finalizers of a ConfigMap, core checks included', async () => {
    const r = await call(server.url, 'POST', CM, {
      body: {
        metadata: {
          name: 'c1',
          labels: { 'bad key': 'x', ok: 'bad value!' },
          annotations: { 'p q': 'r' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '' }],
          finalizers: ['orphan', 'foregroundDeletion', 'nodomain'],
        },
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.details).toMatchObject({ name: 'c1', kind: 'ConfigMap' });
    expect(fieldsOf(r.body)).toEqual([
      'metadata.labels',
      'metadata.labels',
      'metadata.annotations',
      'metadata.ownerReferences.uid',
      'metadata.finalizers',
      'metadata.finalizers[2]',
    ]);
    expect(r.body.message).toContain(
      'metadata.finalizers[2]: Invalid value: "nodomain": name is neither a standard finalizer name nor is it fully qualified',
    );
  });

  it('annotations over 256 KiB in total are too long', async () => {
    const r = await call(server.url, 'POST', CM, {
      body: {
        metadata: { name: 'c2', annotations: { a: 'x'.repeat(200 * 1024), b: 'y'.repeat(60 * 1024) } },
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ConfigMap "c2" is invalid: metadata.annotations: Too long: must have at most 262144 bytes',
    );
  });

  it('custom resources get apimachinery checks only (no finalizer-index check)', async () => {
    const r = await call(server.url, 'POST', W, {
      body: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w0', finalizers: ['nodomain', 'bad finalizer'] },
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.details).toMatchObject({ name: 'w0', group: 'example.com', kind: 'Widget' });
    expect(fieldsOf(r.body)).toEqual(['metadata.finalizers']);
  });
});

describe('update validates metadata once per pass (rest/update.go validateCommonFields + strategy)', () => {
  beforeAll(async () => {
    expect((await call(server.url, 'POST', CM, { body: { metadata: { name: 'u1' } } })).status).toBe(201);
    const w = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { a: 1 } };
    expect((await call(server.url, 'POST', W, { body: w })).status).toBe(201);
  });

  it('a ConfigMap label error is listed four times, the message names it once', async () => {
    const r = await call(server.url, 'PATCH', `${CM}/u1`, {
      body: { metadata: { labels: { 'bad key': 'x' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(r.status).toBe(422);
    expect(fieldsOf(r.body)).toEqual([
      'metadata.labels',
      'metadata.labels',
      'metadata.labels',
      'metadata.labels',
    ]);
    expect(r.body.message).toMatch(
      /^ConfigMap "u1" is invalid: metadata\.labels: Invalid value: "bad key": name part/,
    );
  });

  it('a custom resource label error is listed three times', async () => {
    const r = await call(server.url, 'PATCH', `${W}/w1`, {
      body: { metadata: { labels: { 'bad key': 'x' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(fieldsOf(r.body)).toEqual(['metadata.labels', 'metadata.labels', 'metadata.labels']);
  });
});

describe('immutable metadata on PUT and every patch type', () => {
  beforeAll(async () => {
    expect(
      (await call(server.url, 'POST', CM, { body: { metadata: { name: 'i1' }, data: { a: '1' } } })).status,
    ).toBe(201);
  });

  it('PUT with another uid fails the storage precondition (409, etcd key in the message)', async () => {
    const cur = (await call(server.url, 'GET', `${CM}/i1`)).body;
    const r = await call(server.url, 'PUT', `${CM}/i1`, {
      body: { ...cur, metadata: { ...cur.metadata, uid: OTHER_UID } },
    });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(
      `Operation cannot be fulfilled on configmaps "i1": StorageError: invalid object, Code: 4, Key: /registry/configmaps/${NS}/i1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${OTHER_UID}, UID in object meta: ${cur.metadata.uid}`,
    );
    expect(r.body.details).toEqual({ name: 'i1', kind: 'configmaps' });
  });

  it('PUT without a uid keeps the stored one; creationTimestamp and generation are silently kept', async () => {
    const cur = (await call(server.url, 'GET', `${CM}/i1`)).body;
    const r = await call(server.url, 'PUT', `${CM}/i1`, {
      body: {
        ...cur,
        metadata: { ...cur.metadata, uid: '', creationTimestamp: '2000-01-01T00:00:00Z', generation: 9 },
        data: { a: '2' },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.metadata.uid).toBe(cur.metadata.uid);
    expect(r.body.metadata.creationTimestamp).toBe(cur.metadata.creationTimestamp);
    expect(r.body.metadata.generation).toBeUndefined();
  });

  const uidPatches: [string, string, unknown][] = [
    ['merge', 'application/merge-patch+json', { metadata: { uid: OTHER_UID } }],
    ['strategic', 'application/strategic-merge-patch+json', { metadata: { uid: OTHER_UID } }],
    ['json', 'application/json-patch+json', [{ op: 'replace', path: '/metadata/uid', value: OTHER_UID }]],
    [
      'apply',
      'application/apply-patch+yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: i1\n  uid: ${OTHER_UID}\n`,
    ],
  ];
  for (const [name, contentType, body] of uidPatches) {
    it(`a ${name} patch changing the uid is 422 "field is immutable", twice`, async () => {
      const r = await call(server.url, 'PATCH', `${CM}/i1?fieldManager=t`, { body, contentType });
      expect(r.status).toBe(422);
      expect(r.body.details.causes).toEqual([
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${OTHER_UID}": field is immutable`,
          field: 'metadata.uid',
        },
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${OTHER_UID}": field is immutable`,
          field: 'metadata.uid',
        },
      ]);
    });
  }

  it('deletionTimestamp and deletionGracePeriodSeconds cannot be set by a write', async () => {
    const r = await call(server.url, 'PATCH', `${CM}/i1`, {
      body: { metadata: { deletionTimestamp: '2000-01-01T00:00:00Z' } },
      contentType: 'application/merge-patch+json',
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ConfigMap "i1" is invalid: metadata.deletionTimestamp: Invalid value: 2000-01-01 00:00:00 +0000 UTC: field is immutable',
    );
    const g = await call(server.url, 'PATCH', `${CM}/i1`, {
      body: [{ op: 'add', path: '/metadata/deletionGracePeriodSeconds', value: 3 }],
      contentType: 'application/json-patch+json',
    });
    expect(g.body.message).toBe(
      'ConfigMap "i1" is invalid: metadata.deletionGracePeriodSeconds: Invalid value: 3: field is immutable',
    );
  });

  it('an apply that would create an object with a given uid is refused (handlers/patch.go)', async () => {
    const r = await call(server.url, 'PATCH', `${CM}/fresh?fieldManager=t`, {
      body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fresh\n  uid: ${OTHER_UID}\n`,
      contentType: 'application/apply-patch+yaml',
    });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(
      `Operation cannot be fulfilled on configmaps "fresh": uid mismatch: the provided object specified uid ${OTHER_UID}, and no existing object was found`,
    );
  });

  it('a create-on-update (Lease) with a uid fails the precondition against no object', async () => {
    const r = await call(server.url, 'PUT', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/l1`, {
      body: { metadata: { name: 'l1', uid: OTHER_UID }, spec: {} },
    });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(
      `Operation cannot be fulfilled on leases.coordination.k8s.io "l1": StorageError: invalid object, Code: 4, Key: /registry/leases/${NS}/l1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${OTHER_UID}, UID in object meta: `,
    );
  });
});

describe('namespaces/finalize', () => {
  it('checks each finalizer name (ValidateNamespaceFinalizeUpdate)', async () => {
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'meta-fin' } } });
    const r = await call(server.url, 'PUT', '/api/v1/namespaces/meta-fin/finalize', {
      body: { metadata: { name: 'meta-fin' }, spec: { finalizers: ['kubernetes', 'bad name'] } },
    });
    expect(r.status).toBe(422);
    expect(fieldsOf(r.body)).toEqual(['spec.finalizers[1]', 'spec.finalizers[1]']);
    expect(r.body.details.causes[1].message).toBe(
      'Invalid value: "bad name": name is neither a standard finalizer name nor is it fully qualified',
    );
  });
});

describe('what a status write may change in metadata', () => {
  const statusPatch = {
    metadata: { labels: { st: 'x' }, annotations: { st: 'y' } },
    status: { observedGeneration: 1 },
  };

  it('Deployments keep their labels but take annotations (apps/deployment/strategy.go)', async () => {
    const dep = {
      metadata: { name: 'd1', labels: { app: 'd' } },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    const D = `/apis/apps/v1/namespaces/${NS}/deployments`;
    expect((await call(server.url, 'POST', D, { body: dep })).status).toBe(201);
    const r = await call(server.url, 'PATCH', `${D}/d1/status`, {
      body: statusPatch,
      contentType: 'application/merge-patch+json',
    });
    expect(r.status).toBe(200);
    expect(r.body.metadata.labels).toEqual({ app: 'd' });
    expect(r.body.metadata.annotations).toEqual({ st: 'y' });
  });

  it('Namespaces take both (core/namespace strategy resets spec only)', async () => {
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'meta-st' } } });
    const r = await call(server.url, 'PATCH', '/api/v1/namespaces/meta-st/status', {
      body: { metadata: { labels: { st: 'x' }, annotations: { st: 'y' } } },
      contentType: 'application/merge-patch+json',
    });
    expect(r.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'meta-st', st: 'x' });
    expect(r.body.metadata.annotations).toEqual({ st: 'y' });
  });

  it('custom resources keep all of their metadata (apiextensions customresource statusStrategy)', async () => {
    const r = await call(server.url, 'PATCH', `${W}/w1/status`, {
      body: statusPatch,
      contentType: 'application/merge-patch+json',
    });
    expect(r.status).toBe(200);
    expect(r.body.metadata.labels).toBeUndefined();
    expect(r.body.metadata.annotations).toBeUndefined();
    expect(r.body.status).toEqual({ observedGeneration: 1 });
  });
});
