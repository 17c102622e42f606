/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
// Patch bodies and patched objects as kube-apiserver v1.24 judges them (expected bodies read from
// the real server): apiserver/pkg/endpoints/handlers/patch.go (decoding each patch type, the
// patched object decoded again, the apply patcher's version and kind checks), rest.go checkName,
// and the custom resource validator's TypeMeta check (apiextensions-apiserver customresource
// validator.go).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'pb';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const W = `/apis/example.com/v1/namespaces/${NS}/widgets`;
const MERGE = 'application/merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

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
  expect(
    (await call(server.url, 'POST', CM, { body: { metadata: { name: 'p1' }, data: { a: '1' } } })).status,
  ).toBe(201);
  const w = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { a: 1 } };
  expect((await call(server.url, 'POST', W, { body: w })).status).toBe(201);
});
afterAll(async () => {
  await server.stop();
});

describe('patch bodies that do not parse', () => {
  it('a merge patch answers "Invalid JSON Patch"; JSON and strategic patches the Go decoder message', async () => {
    expect(
      (await call(server.url, 'PATCH', `${CM}/p1`, { body: '{bad', contentType: MERGE })).body.message,
    ).toBe('Invalid JSON Patch');
    for (const contentType of ['application/json-patch+json', 'application/strategic-merge-patch+json']) {
      const r = await call(server.url, 'PATCH', `${CM}/p1`, { body: '{bad', contentType });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe("invalid character 'b' looking for beginning of object key string");
    }
  });

  it('a merge patch that is not an object replaces the document, which no longer decodes (422 on "patch")', async () => {
    const r = await call(server.url, 'PATCH', `${CM}/p1`, { body: '[]', contentType: MERGE });
    expect(r.status).toBe(422);
    const detail =
      'Invalid value: "[]": couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: ` "" is invalid: patch: ${detail}`,
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }] },
      code: 422,
    });
  });
});

describe('TypeMeta a patch changes', () => {
  it('built-ins: a merge or JSON patch to another kind or version does not decode; strategic ignores it', async () => {
    const m = await call(server.url, 'PATCH', `${CM}/p1`, { body: { kind: 'Foo' }, contentType: MERGE });
    expect(m.status).toBe(422);
    expect(m.body.details.causes[0].field).toBe('patch');
    expect(m.body.message).toMatch(
      /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"data\\":\{\\"a\\":\\"1\\"\},\\"kind\\":\\"Foo\\",\\"metadata\\":\{\\"name\\":\\"p1\\",.*\}": no kind "Foo" is registered for version "v1" in scheme "pkg\/api\/legacyscheme\/scheme.go:30"$/,
    );
    const j = await call(server.url, 'PATCH', `${CM}/p1`, {
      body: [{ op: 'replace', path: '/apiVersion', value: 'v2' }],
      contentType: 'application/json-patch+json',
    });
    expect(j.body.message).toMatch(/no kind "ConfigMap" is registered for version "v2" in scheme/);
    const s = await call(server.url, 'PATCH', `${CM}/p1`, {
      body: { kind: 'Foo', apiVersion: 'v2', data: { b: '2' } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(s.status).toBe(200);
    expect([s.body.kind, s.body.apiVersion, s.body.data]).toEqual(['ConfigMap', 'v1', { a: '1', b: '2' }]);
  });

  it('custom resources: the validator names the wrong kind or apiVersion; a removed kind is missing', async () => {
    const k = await call(server.url, 'PATCH', `${W}/w1`, { body: { kind: 'Foo' }, contentType: MERGE });
    expect(k.status).toBe(422);
    expect(k.body.message).toBe(
      'Foo.example.com "w1" is invalid: kind: Invalid value: "Foo": must be Widget',
    );
    expect(k.body.details).toEqual({
      name: 'w1',
      group: 'example.com',
      kind: 'Foo',
      causes: [
        { reason: 'FieldValueInvalid', message: 'Invalid value: "Foo": must be Widget', field: 'kind' },
      ],
    });
    const v = await call(server.url, 'PATCH', `${W}/w1`, {
      body: { apiVersion: 'example.com/v9' },
      contentType: MERGE,
    });
    expect(v.body.message).toBe(
      'Widget.example.com "w1" is invalid: apiVersion: Invalid value: "example.com/v9": must be example.com/v1',
    );
    const n = await call(server.url, 'PATCH', `${W}/w1`, { body: { kind: null }, contentType: MERGE });
    expect(n.status).toBe(422);
    expect(n.body.details.causes[0].message).toMatch(
      /: Object 'Kind' is missing in '\{"apiVersion":"example.com\/v1",/,
    );
  });
});

describe('a patched object that no longer decodes', () => {
  it('is a 422 on the patch field with the decoder error (not a 400)', async () => {
    const r = await call(server.url, 'PATCH', `${CM}/p1`, { body: { data: { a: 1 } }, contentType: MERGE });
    expect(r.status).toBe(422);
    expect(r.body.details.causes[0].field).toBe('patch');
    expect(r.body.message).toMatch(
      /^ "" is invalid: patch: Invalid value: ".*": json: cannot unmarshal number into Go struct field ConfigMap.data of type string$/,
    );
  });
});

describe('the name on the URL must be in the object (handlers/rest.go checkName)', () => {
  const undeterminable = 'the name of the object (p1 based on URL) was undeterminable: name must be provided';

  it('a PUT without a name, and a patch removing it, are 400', async () => {
    const put = await call(server.url, 'PUT', `${CM}/p1`, { body: { metadata: {}, data: { a: '2' } } });
    expect([put.status, put.body.message]).toEqual([400, undeterminable]);
    const rm = await call(server.url, 'PATCH', `${CM}/p1`, {
      body: [{ op: 'remove', path: '/metadata/name' }],
      contentType: 'application/json-patch+json',
    });
    expect([rm.status, rm.body.message]).toEqual([400, undeterminable]);
    const nul = await call(server.url, 'PATCH', `${CM}/p1`, {
      body: { metadata: { name: null } },
      contentType: MERGE,
    });
    expect([nul.status, nul.body.message]).toEqual([400, undeterminable]);
  });
});

describe('apply configurations (the apply patcher)', () => {
  it('the apiVersion must be the endpoint version (400)', async () => {
    for (const [yaml, got] of [
      ['kind: ConfigMap\nmetadata:\n  name: p1\n', ''],
      ['apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: p1\n', 'v2'],
    ] as const) {
      const r = await call(server.url, 'PATCH', `${CM}/p1?fieldManager=t`, {
        body: yaml,
        contentType: APPLY,
      });
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(
        `Incorrect version specified in apply patch. Specified patch version: ${got}, expected: v1`,
      );
    }
  });

  it('a missing kind fails the field manager (500)', async () => {
    const r = await call(server.url, 'PATCH', `${CM}/p1?fieldManager=t`, {
      body: 'apiVersion: v1\nmetadata:\n  name: p1\n',
      contentType: APPLY,
    });
    expect(r.status).toBe(500);
    expect(r.body.message).toBe(
      'failed to create typed patch object (/p1; /v1, Kind=): no corresponding type for /v1, Kind=',
    );
    const cr = await call(server.url, 'PATCH', `${W}/w1?fieldManager=t`, {
      body: 'apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: w1\n',
      contentType: APPLY,
    });
    expect(cr.body.message).toBe(
      'failed to create typed patch object (/w1; example.com/v1, Kind=Foo): no corresponding type for example.com/v1, Kind=Foo',
    );
  });

  it('a configuration that is not a map is refused by the YAML decoder', async () => {
    const r = await call(server.url, 'PATCH', `${CM}/p1?fieldManager=t`, {
      body: '- a\n',
      contentType: APPLY,
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
  });
});
