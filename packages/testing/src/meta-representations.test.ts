/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
// PartialObjectMetadata(List) and Table in both meta.k8s.io versions, as a real kube-apiserver v1.24
// serves them (apiserver/pkg/endpoints/handlers/response.go transformObject/asPartialObjectMetadata,
// asTable): the version asked for is the version answered, an object asked for as a list (or the
// reverse) is a 406 naming the Go type, custom resources without printer columns get the default Age
// column described like ObjectMeta (apiextensions serveDefaultColumnsIfEmpty).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'reps';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const W = `/apis/example.com/v1/namespaces/${NS}/widgets`;
const accept = (as: string, v: string): string => `application/json;as=${as};v=${v};g=meta.k8s.io`;

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
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  for (let i = 0; i < 100 && (await call(server.url, 'GET', W)).status !== 200; i++) {
    await new Promise((r) => setImmediate(r));
  }
  await call(server.url, 'POST', CM, { body: { metadata: { name: 'm1' }, data: { a: '1' } } });
  await call(server.url, 'POST', W, {
    body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { a: 1 } },
  });
});
afterAll(async () => {
  await server.stop();
});

describe('meta.k8s.io/v1beta1 is answered in v1beta1', () => {
  for (const v of ['v1', 'v1beta1']) {
    it(`PartialObjectMetadata, PartialObjectMetadataList and Table ${v}`, async () => {
      const want = `meta.k8s.io/${v}`;
      const one = await call(server.url, 'GET', `${CM}/m1`, { accept: accept('PartialObjectMetadata', v) });
      expect([one.body.kind, one.body.apiVersion]).toEqual(['PartialObjectMetadata', want]);
      const list = await call(server.url, 'GET', W, { accept: accept('PartialObjectMetadataList', v) });
      expect([list.body.kind, list.body.apiVersion, list.body.items[0].apiVersion]).toEqual([
        'PartialObjectMetadataList',
        want,
        want,
      ]);
      const table = await call(server.url, 'GET', CM, { accept: accept('Table', v) });
      expect([table.body.kind, table.body.apiVersion, table.body.rows[0].object.apiVersion]).toEqual([
        'Table',
        want,
        want,
      ]);
      const w = new WatchReader(server.url, `${CM}?watch=1`, accept('PartialObjectMetadata', v));
      const [added] = await w.count(1);
      w.close();
      expect([added?.object.kind, added?.object.apiVersion]).toEqual(['PartialObjectMetadata', want]);
    });
  }
});

describe('an object is not a list', () => {
  it('a get asked for as a list, and a list asked for as one object, are 406 naming the Go type', async () => {
    const cases: [string, string, string][] = [
      [
        `${CM}/m1`,
        'PartialObjectMetadataList',
        'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)',
      ],
      [
        CM,
        'PartialObjectMetadata',
        'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)',
      ],
      [
        W,
        'PartialObjectMetadata',
        'you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)',
      ],
      [
        `/apis/apps/v1/namespaces/${NS}/deployments`,
        'PartialObjectMetadata',
        'you requested PartialObjectMetadata, but the requested object is a list (*apps.DeploymentList)',
      ],
    ];
    for (const [path, as, message] of cases) {
      const r = await call(server.url, 'GET', path, { accept: accept(as, 'v1') });
      expect(r.status).toBe(406);
      expect(r.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message,
        reason: 'NotAcceptable',
        code: 406,
      });
    }
  });
});

describe('Tables of custom resources', () => {
  it('without printer columns: Name and an Age column described like ObjectMeta.creationTimestamp', async () => {
    const t = await call(server.url, 'GET', W, { accept: accept('Table', 'v1') });
    expect(t.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Age']);
    expect(t.body.columnDefinitions[1].description).toMatch(
      /^CreationTimestamp is a timestamp representing the server time/,
    );
  });

  it("row objects carry typed metadata: managedFields entries in the struct's key order", async () => {
    const t = await call(server.url, 'GET', W, { accept: accept('Table', 'v1') });
    expect(Object.keys(t.body.rows[0].object.metadata.managedFields[0])).toEqual([
      'manager',
      'operation',
      'apiVersion',
      'time',
      'fieldsType',
      'fieldsV1',
    ]);
  });
});
