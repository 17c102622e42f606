/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { decodeProtobufObject } from '../protobuf/codec.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import { parseAccept } from './negotiate.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/default/configmaps';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const PB = 'application/vnd.kubernetes.protobuf';
const ONLY_ACCEPTED =
  'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

async function get(path: string, accept: string): Promise<{ status: number; type: string; bytes: Buffer }> {
  const res = await fetch(`${server.url}${path}`, { headers: { Accept: accept } });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}
const json = (b: Buffer): any => JSON.parse(b.toString('utf8')); // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  await post(CM, { metadata: { name: 'cm1' }, data: { b: '2', a: '1' } });
  await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
  await post(WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } });
});
afterAll(async () => {
  await server.stop();
});

describe('Accept clauses (goautoneg.ParseAccept)', () => {
  it('orders by quality, then wildcards last, else as written', () => {
    const order = parseAccept('*/*;q=0.5, application/json;q=0.5, application/yaml, text/*').map(
      (c) => `${c.type}/${c.subtype}`,
    );
    expect(order).toEqual(['application/yaml', 'text/*', 'application/json', '*/*']);
  });
});

// observed on kube-apiserver v1.24.0 (negotiation/negotiate.go, handlers/rest.go AllowsMediaTypeTransform)
describe('output negotiation falls back to the first type the endpoint can serve', () => {
  it('a Table in protobuf cannot be served: the next clause (JSON) is', async () => {
    const r = await get(`${CM}/cm1`, `${PB};as=Table;v=v1;g=meta.k8s.io,application/json`);
    expect(r.type).toBe('application/json');
    expect(json(r.bytes).kind).toBe('ConfigMap');
  });

  it('an unknown as= falls back; alone it is 406 listing the media types', async () => {
    const fallback = await get(`${CM}/cm1`, 'application/json;as=Foo;v=v1;g=meta.k8s.io,application/json');
    expect(json(fallback.bytes).kind).toBe('ConfigMap');
    for (const accept of [
      'application/json;as=Foo;v=v1;g=meta.k8s.io',
      'application/json;as=Table;g=foo;v=v1',
      'application/json;as=PartialObjectMetadata',
      `${PB};as=Table;v=v1;g=meta.k8s.io`,
    ]) {
      const r = await get(`${CM}/cm1`, accept);
      expect([r.status, json(r.bytes).message], accept).toEqual([406, ONLY_ACCEPTED]);
    }
  });

  it('no clause naming a known media type: the bare 406 with empty details', async () => {
    for (const accept of ['text/html', 'application/xml', 'application/*']) {
      const r = await get(`${CM}/cm1`, accept);
      expect(json(r.bytes), accept).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: '406: Not Acceptable',
        reason: 'NotAcceptable',
        details: {},
        code: 406,
      });
    }
  });

  it('quality wins over order', async () => {
    for (const accept of [`*/*;q=0.5,${PB}`, `application/json;q=0.5,${PB}`]) {
      const r = await get(`${CM}/cm1`, accept);
      expect(r.type, accept).toBe(PB);
      expect(decodeProtobufObject(r.bytes).metadata.name).toBe('cm1');
    }
  });

  it('YAML with sorted keys', async () => {
    const r = await get(`${CM}/cm1`, 'application/yaml');
    expect(r.type).toBe('application/yaml');
    const text = r.bytes.toString('utf8');
    expect(text.startsWith('apiVersion: v1\ndata:\n  a: "1"\n  b: "2"\nkind: ConfigMap\n')).toBe(true);
    expect(parseYaml(text)).toMatchObject({ kind: 'ConfigMap', data: { a: '1', b: '2' } });
  });

  it('custom resources: protobuf alone is 406 (itself in protobuf), with JSON after it JSON', async () => {
    const only = await get(`${WIDGETS}/w1`, PB);
    expect(only.status).toBe(406);
    expect(only.type).toBe(PB);
    expect(decodeProtobufObject(only.bytes)).toMatchObject({
      kind: 'Status',
      code: 406,
      message: ONLY_ACCEPTED,
    });
    const list = await get(WIDGETS, PB);
    expect(list.status).toBe(406);
    const fallback = await get(`${WIDGETS}/w1`, `${PB},application/json`);
    expect(fallback.type).toBe('application/json');
    expect(json(fallback.bytes).kind).toBe('Widget');
  });

  it('PartialObjectMetadata travels in protobuf, also for custom resources', async () => {
    const r = await get(`${WIDGETS}/w1`, `${PB};as=PartialObjectMetadata;v=v1;g=meta.k8s.io`);
    expect(r.type).toBe(PB);
    expect(decodeProtobufObject(r.bytes)).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'w1', namespace: 'default' },
    });
    const list = await get(CM, `${PB};as=PartialObjectMetadataList;v=v1;g=meta.k8s.io`);
    expect(decodeProtobufObject(list.bytes)).toMatchObject({ kind: 'PartialObjectMetadataList' });
  });

  it('PartialObjectMetadata of a list, or a List of one object, is 406 naming the Go type (response.go)', async () => {
    const list = await get(
      CM,
      'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json',
    );
    expect([list.status, json(list.bytes).message]).toEqual([
      406,
      'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)',
    ]);
    const one = await get(
      `${WIDGETS}/w1`,
      'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    );
    expect([one.status, json(one.bytes).message]).toEqual([
      406,
      'you requested PartialObjectMetadataList, but the requested object is not a list (*unstructured.Unstructured)',
    ]);
  });

  it('meta.k8s.io/v1beta1 Tables and PartialObjectMetadata', async () => {
    const table = await get(CM, 'application/json;as=Table;v=v1beta1;g=meta.k8s.io');
    expect(json(table.bytes)).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1' });
    expect(json(table.bytes).rows[0].object.apiVersion).toBe('meta.k8s.io/v1beta1');
    const partial = await get(
      `${CM}/cm1`,
      'application/json;as=PartialObjectMetadata;v=v1beta1;g=meta.k8s.io',
    );
    expect(json(partial.bytes).apiVersion).toBe('meta.k8s.io/v1beta1');
  });

  it('a watch cannot stream YAML: 406 listing the stream types, written in YAML', async () => {
    const r = await get(`${CM}?watch=1`, 'application/yaml');
    expect(r.status).toBe(406);
    expect(r.type).toBe('application/yaml');
    expect(parseYaml(r.bytes.toString('utf8'))).toMatchObject({
      message:
        'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    });
  });

  it('errors are written in the encoding the client accepts (ErrorNegotiated)', async () => {
    const r = await get(`${CM}/nope`, PB);
    expect(r.status).toBe(404);
    expect(r.type).toBe(PB);
    expect(decodeProtobufObject(r.bytes)).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'NotFound',
      message: 'configmaps "nope" not found',
      details: { name: 'nope', kind: 'configmaps' },
      code: 404,
    });
  });
});
