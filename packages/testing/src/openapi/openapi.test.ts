/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- documents are untyped JSON */
/**
 * `/openapi/v2` (JSON and protobuf) and `/openapi/v3`, compared with documents recorded from a real
 * kube-apiserver v1.24 (`fixtures/kube-v1.24/openapi-samples.json`), and the type information
 * (`type-schema.ts`) strategic merge patch and server-side apply read from the same schemas.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { call } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import { decodeOpenApiV2, OPENAPI_V2_PROTOBUF } from './protobuf.js';
import { typeSchemaOf } from './type-schema.js';

const samples: any = JSON.parse(
  readFileSync(new URL('../../fixtures/kube-v1.24/openapi-samples.json', import.meta.url), 'utf8'),
);

function getBytes(url: string, accept: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { Accept: accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type']),
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('OpenAPI documents', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ logger: { error: () => undefined } });
    const crd = parseYaml(samples.crd);
    expect(
      (
        await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
          body: crd,
        })
      ).status,
    ).toBe(201);
    // established on the next tick: wait for the CRD's group to be served
    for (let i = 0; i < 100 && (await call(server.url, 'GET', '/apis/example.com/v1')).status !== 200; i++)
      await new Promise((r) => setImmediate(r));
  });
  afterAll(() => server.stop());

  it('v2 definitions are the real v1.24 ones (converted from the recorded v3 schemas)', async () => {
    const doc = (await call(server.url, 'GET', '/openapi/v2')).body;
    expect(doc.swagger).toBe('2.0');
    for (const [name, real] of Object.entries(samples.v2)) expect(doc.definitions[name], name).toEqual(real);
  });

  it('v2 publishes a CRD kind like the real server (ObjectMeta under its plain name, not the _v2 copy)', async () => {
    const doc = (await call(server.url, 'GET', '/openapi/v2')).body;
    for (const [name, real] of Object.entries(samples.v2Widget)) {
      const expected = JSON.parse(
        JSON.stringify(real).replaceAll('ObjectMeta_v2', 'ObjectMeta').replaceAll('ListMeta_v2', 'ListMeta'),
      );
      expect(doc.definitions[name], name).toEqual(expected);
    }
  });

  it('v3 lists every served group-version with a hash, and serves each document immutable under it', async () => {
    const index = (await call(server.url, 'GET', '/openapi/v3')).body;
    for (const gv of [
      'api/v1',
      'apis/apps/v1',
      'apis/batch/v1',
      'apis/policy/v1',
      'apis/autoscaling/v2',
      'apis/example.com/v1',
    ])
      expect(index.paths[gv]?.serverRelativeURL, gv).toMatch(
        new RegExp(`^/openapi/v3/${gv}\\?hash=[0-9A-F]{128}$`),
      );
    const url: string = index.paths['apis/example.com/v1'].serverRelativeURL;
    const res = await call(server.url, 'GET', url);
    expect(res.headers['cache-control']).toBe('public, immutable');
    for (const [name, real] of Object.entries(samples.v3Widget))
      expect(res.body.components.schemas[name], name).toEqual(real);
    const patch = res.body.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
    });
    // v1.24 has no fieldValidation parameter: kubectl validates on the client, as against a real v1.24
    expect(patch.parameters.map((p: any) => p.name)).toEqual(['dryRun', 'fieldManager', 'force']);
    expect((await call(server.url, 'GET', '/openapi/v3/apis/nothing.example.com/v1')).status).toBe(404);
  });

  // kubectl apply reads these to choose a strategic or a JSON merge patch (apply/patcher.go,
  // gvkSupportsPatchOpenAPIV3): recorded from kube-apiserver v1.24, a CRD offers no strategic merge
  it('PATCH media types: strategic merge for built-ins only, as the real documents list them', async () => {
    const v2 = (await call(server.url, 'GET', '/openapi/v2')).body;
    const all = [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ];
    const custom = all.filter((t) => !t.startsWith('application/strategic'));
    expect(v2.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch.consumes).toEqual(all);
    expect(v2.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch.consumes).toEqual(
      custom,
    );
    expect(
      v2.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status'].patch.consumes,
    ).toEqual(custom);
    const index = (await call(server.url, 'GET', '/openapi/v3')).body;
    const v3 = async (gv: string, path: string): Promise<string[]> =>
      Object.keys(
        (await call(server.url, 'GET', index.paths[gv].serverRelativeURL)).body.paths[path].patch.requestBody
          .content,
      );
    // a Go map there: sorted
    expect(await v3('apis/apps/v1', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')).toEqual(
      [...all].sort(),
    );
    expect(
      await v3('apis/example.com/v1', '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'),
    ).toEqual([...custom].sort());
  });

  it('v2 as protobuf (kubectl default Accept): gnostic Document with the same definitions', async () => {
    const res = await getBytes(`${server.url}/openapi/v2`, OPENAPI_V2_PROTOBUF);
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/octet-stream');
    const doc = decodeOpenApiV2(res.body);
    expect(doc['swagger']).toBe('2.0');
    const defs = (doc['definitions'] as any).additional_properties as any[];
    const deployment = defs.find((d) => d.name === 'io.k8s.api.apps.v1.Deployment');
    expect(deployment.value.type.value).toEqual(['object']);
    const gvk = deployment.value.vendor_extension.find(
      (e: any) => e.name === 'x-kubernetes-group-version-kind',
    );
    expect(parseYaml(gvk.value.yaml)).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(defs.some((d) => d.name === 'com.example.v1.Widget')).toBe(true);
  });

  it('the documents follow the registry: a CRD deleted is gone from both', async () => {
    const before = (await call(server.url, 'GET', '/openapi/v2')).body;
    expect(before.definitions['com.example.v1.Widget']).toBeDefined();
    await call(
      server.url,
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
    );
    for (let i = 0; i < 100 && (await call(server.url, 'GET', '/apis/example.com/v1')).status === 200; i++)
      await new Promise((r) => setImmediate(r));
    expect(
      (await call(server.url, 'GET', '/openapi/v2')).body.definitions['com.example.v1.Widget'],
    ).toBeUndefined();
    expect((await call(server.url, 'GET', '/openapi/v3')).body.paths['apis/example.com/v1']).toBeUndefined();
  });
});

describe('type information from the schemas (one source for strategic merge patch and apply)', () => {
  const pod = typeSchemaOf('v1', 'Pod');
  it.each([
    [['spec', 'containers'], { type: 'map', keys: ['name'] }, 'name', 'merge'],
    [
      ['spec', 'containers', '*', 'ports'],
      { type: 'map', keys: ['containerPort', 'protocol'] },
      'containerPort',
      'merge',
    ],
    [['spec', 'containers', '*', 'env'], { type: 'map', keys: ['name'] }, 'name', 'merge'],
    [['spec', 'containers', '*', 'args'], { type: 'atomic' }, undefined, undefined],
    [['metadata', 'finalizers'], { type: 'set' }, undefined, 'merge'],
    [['metadata', 'ownerReferences'], { type: 'map', keys: ['uid'] }, 'uid', 'merge'],
    [['spec', 'volumes'], { type: 'map', keys: ['name'] }, 'name', 'merge,retainKeys'],
  ] as const)('Pod %j: apply %j, merge key %s, strategy %s', (path, semantics, key, strategy) => {
    const node = pod?.at(path);
    expect(node?.listSemantics).toEqual(semantics);
    expect(node?.patchMergeKey).toBe(key);
    expect(node?.patchStrategy).toBe(strategy);
  });

  it('Service ports are keyed by port and protocol; ObjectReference is atomic', () => {
    expect(typeSchemaOf('v1', 'Service')?.at(['spec', 'ports'])?.listSemantics).toEqual({
      type: 'map',
      keys: ['port', 'protocol'],
    });
    expect(typeSchemaOf('v1', 'Event')?.at(['involvedObject'])?.atomicMap).toBe(true);
  });

  it('custom schemas: list-type and map-keys as written, metadata as ObjectMeta', () => {
    const widget = typeSchemaOf('example.com/v1', 'Widget', {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: { type: 'object' },
            },
          },
        },
      },
    });
    expect(widget?.at(['spec', 'items'])?.listSemantics).toEqual({ type: 'map', keys: ['name'] });
    expect(widget?.at(['metadata', 'finalizers'])?.listSemantics).toEqual({ type: 'set' });
  });
});
