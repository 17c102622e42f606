/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/wire/configmaps';

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  const r = await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'wire' } } });
  expect(r.status).toBe(201);
});
afterAll(async () => {
  await server.stop();
});

describe('create and get (file 02)', () => {
  it('creates with 201 and the stored object shape', async () => {
    const r = await call(server.url, 'POST', CM, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 's02-cm', labels: { app: 'wire' } },
        data: { greeting: 'hello' },
      },
    });
    expect(r.status).toBe(201);
    expect(r.headers['cache-control']).toBe('no-cache, private');
    expect(r.headers['content-length']).toBeDefined();
    expect(Object.keys(r.body)).toEqual(['kind', 'apiVersion', 'metadata', 'data']);
    expect(Object.keys(r.body.metadata)).toEqual([
      'name',
      'namespace',
      'uid',
      'resourceVersion',
      'creationTimestamp',
      'labels',
      'managedFields',
    ]);
    expect(r.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r.body.metadata.generation).toBeUndefined();
    expect(r.body.metadata.managedFields[0]).toMatchObject({
      manager: 'rxkube-test',
      operation: 'Update',
      apiVersion: 'v1',
    });
    const g = await call(server.url, 'GET', `${CM}/s02-cm`);
    expect(g.status).toBe(200);
    expect(g.body).toEqual(r.body);
  });

  it('answers 409 AlreadyExists and 404 NotFound with the real Status bodies', async () => {
    const again = await call(server.url, 'POST', CM, { body: { metadata: { name: 's02-cm' } } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "s02-cm" already exists',
      reason: 'AlreadyExists',
      details: { name: 's02-cm', kind: 'configmaps' },
      code: 409,
    });
    const missing = await call(server.url, 'GET', `${CM}/s02-missing`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('configmaps "s02-missing" not found');
    expect(missing.body.details).toEqual({ name: 's02-missing', kind: 'configmaps' });
  });

  it('accepts a body without TypeMeta and generates names', async () => {
    const r = await call(server.url, 'POST', CM, { body: { metadata: { generateName: 's02-gen-' } } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^s02-gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(r.body.metadata.generateName).toBe('s02-gen-');
    expect(r.body.kind).toBe('ConfigMap');
  });

  it('404s for a missing namespace: GET names the object, POST names the namespace', async () => {
    const g = await call(server.url, 'GET', '/api/v1/namespaces/nope/configmaps/x');
    expect(g.body.message).toBe('configmaps "x" not found');
    const p = await call(server.url, 'POST', '/api/v1/namespaces/nope/configmaps', {
      body: { metadata: { name: 'x' } },
    });
    expect(p.status).toBe(404);
    expect(p.body.message).toBe('namespaces "nope" not found');
    expect(p.body.details).toEqual({ name: 'nope', kind: 'namespaces' });
  });
});

describe('invalid objects (file 03)', () => {
  it('422 for a bad name with causes', async () => {
    const r = await call(server.url, 'POST', CM, { body: { metadata: { name: 'Bad_Name!' }, data: {} } });
    expect(r.status).toBe(422);
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.message).toMatch(
      /^ConfigMap "Bad_Name!" is invalid: metadata.name: Invalid value: "Bad_Name!": a lowercase RFC 1123 subdomain/,
    );
    expect(r.body.details.kind).toBe('ConfigMap');
    expect(r.body.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
  });

  it('422 without name or generateName, and for a bad data key', async () => {
    const r = await call(server.url, 'POST', CM, { body: { metadata: {}, data: {} } });
    expect(r.body.message).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
    expect(r.body.details).toEqual({
      kind: 'ConfigMap',
      causes: [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: name or generateName is required',
          field: 'metadata.name',
        },
      ],
    });
    const k = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 's03-badkey' }, data: { 'bad key!': 'x' } },
    });
    expect(k.status).toBe(422);
    expect(k.body.details.causes[0].field).toBe('data[bad key!]');
  });

  it('422 with several causes for a Deployment with an empty spec', async () => {
    const r = await call(server.url, 'POST', '/apis/apps/v1/namespaces/wire/deployments', {
      body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 's03-deploy' }, spec: {} },
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'Deployment.apps "s03-deploy" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`, spec.template.spec.containers: Required value]',
    );
    expect(r.body.details.group).toBe('apps');
  });

  it('400 for kind, apiVersion, namespace and name mismatches', async () => {
    const kind = await call(server.url, 'POST', CM, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } },
    });
    expect(kind.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
      reason: 'BadRequest',
      code: 400,
    });
    const av = await call(server.url, 'POST', CM, {
      body: { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'a' } },
    });
    expect(av.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:100"',
    );
    const ns = await call(server.url, 'POST', CM, { body: { metadata: { name: 'a', namespace: 'other' } } });
    expect(ns.body.message).toBe(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
    const put = await call(server.url, 'PUT', `${CM}/s03-url-name`, {
      body: { metadata: { name: 's03-body-name' } },
    });
    expect(put.body.message).toBe(
      'the name of the object (s03-body-name) does not match the name on the URL (s03-url-name)',
    );
  });

  it('400 for malformed JSON, wrong value types and an empty body', async () => {
    const bad = await call(server.url, 'POST', CM, {
      body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s03-bad"',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)',
    );
    const type = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 's03-type' }, data: { n: 1 } },
    });
    expect(type.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
    const empty = await call(server.url, 'POST', CM, { body: '' });
    expect(empty.body.message).toBe(
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)",
    );
  });

  it('drops unknown fields silently', async () => {
    const r = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 's03-unknown', bogus: 1 }, data: { a: 'b' }, spec: { x: 1 } },
    });
    expect(r.status).toBe(201);
    expect(r.body.spec).toBeUndefined();
    expect(r.body.metadata.bogus).toBeUndefined();
  });
});

describe('optimistic concurrency (file 09)', () => {
  it('409 on a stale RV, no-op PUT keeps the RV, unconditional PUT works, missing → 404', async () => {
    const c = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 's09-cm' }, data: { v: '1' } },
    });
    const rv1 = c.body.metadata.resourceVersion as string;
    const u = await call(server.url, 'PUT', `${CM}/s09-cm`, {
      body: { metadata: { name: 's09-cm', resourceVersion: rv1 }, data: { v: '2' } },
    });
    expect(u.status).toBe(200);
    const rv2 = u.body.metadata.resourceVersion as string;
    expect(Number(rv2)).toBeGreaterThan(Number(rv1));
    const stale = await call(server.url, 'PUT', `${CM}/s09-cm`, {
      body: { metadata: { name: 's09-cm', resourceVersion: rv1 }, data: { v: '3' } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toBe(
      'Operation cannot be fulfilled on configmaps "s09-cm": the object has been modified; please apply your changes to the latest version and try again',
    );
    const noop = await call(server.url, 'PUT', `${CM}/s09-cm`, {
      body: { metadata: { name: 's09-cm', resourceVersion: rv2 }, data: { v: '2' } },
    });
    expect(noop.status).toBe(200);
    expect(noop.body.metadata.resourceVersion).toBe(rv2);
    const before = server.resourceVersion;
    const uncond = await call(server.url, 'PUT', `${CM}/s09-cm`, {
      body: { metadata: { name: 's09-cm' }, data: { v: '4' } },
    });
    expect(uncond.status).toBe(200);
    expect(Number(uncond.body.metadata.resourceVersion)).toBe(before + 1);
    const missing = await call(server.url, 'PUT', `${CM}/s09-missing`, {
      body: { metadata: { name: 's09-missing' } },
    });
    expect(missing.status).toBe(404);
    const abc = await call(server.url, 'PUT', `${CM}/s09-cm`, {
      body: { metadata: { name: 's09-cm', resourceVersion: 'abc' } },
    });
    expect(abc.status).toBe(500);
    expect(abc.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'strconv.ParseUint: parsing "abc": invalid syntax',
      code: 500,
    });
  });

  it('Leases: create-on-update (201), 422 without RV on update (file 17), MicroTime checks', async () => {
    const L = '/apis/coordination.k8s.io/v1/namespaces/wire/leases';
    const bad = await call(server.url, 'POST', L, {
      body: {
        metadata: { name: 'l1' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2026-11-22T06:23:43.899Z' },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('cannot parse ".899Z" as ".000000"');
    const created = await call(server.url, 'PUT', `${L}/l1`, {
      body: {
        metadata: { name: 'l1' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2026-11-22T06:23:43.899000Z' },
      },
    });
    expect(created.status).toBe(201);
    const noRv = await call(server.url, 'PUT', `${L}/l1`, {
      body: { metadata: { name: 'l1' }, spec: { holderIdentity: 'b', leaseDurationSeconds: 15 } },
    });
    expect(noRv.status).toBe(422);
    expect(noRv.body.message).toBe(
      'leases.coordination.k8s.io "l1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
    expect(noRv.body.details.kind).toBe('leases');
    const stale = await call(server.url, 'PUT', `${L}/l1`, {
      body: {
        metadata: { name: 'l1', resourceVersion: '1' },
        spec: { holderIdentity: 'b', leaseDurationSeconds: 15 },
      },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.details).toEqual({ name: 'l1', group: 'coordination.k8s.io', kind: 'leases' });
  });

  it('never crashes on odd input: unknown path, bad method, huge body', async () => {
    const r = await call(server.url, 'GET', '/nope');
    expect(r.status).toBe(404);
    expect(r.text).toBe('404 page not found\n');
    const m = await call(server.url, 'POST', `${CM}/x`, { body: {} });
    expect(m.status).toBe(405);
    const big = await call(server.url, 'POST', CM, { body: 'x'.repeat(3 * 1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    const after = await call(server.url, 'GET', '/healthz');
    expect(after.text).toBe('ok');
  });
});
