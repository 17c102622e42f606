/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import { selectorString } from '../table/printers/format.js';

let server: ApiServer;
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
const PODS = '/api/v1/namespaces/default/pods';

const deployment = (name: string): unknown => ({
  metadata: { name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
});
afterAll(async () => {
  await server.stop();
});

describe('discovery', () => {
  it('lists pods/log, deployments/scale (autoscaling/v1 Scale) and namespaces/finalize in name order', async () => {
    const core = await call(server.url, 'GET', '/api/v1');
    const names = (core.body.resources as { name: string }[]).map((r) => r.name);
    expect(names.filter((n) => n.startsWith('pods'))).toEqual(['pods', 'pods/log', 'pods/status']);
    expect(names.filter((n) => n.startsWith('namespaces'))).toEqual([
      'namespaces',
      'namespaces/finalize',
      'namespaces/status',
    ]);
    const apps = await call(server.url, 'GET', '/apis/apps/v1');
    expect((apps.body.resources as { name: string }[]).find((r) => r.name === 'deployments/scale')).toEqual({
      name: 'deployments/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  });
});

describe('deployments/scale', () => {
  it('GET answers the Scale: spec.replicas, status.replicas, status.selector', async () => {
    const created = await call(server.url, 'POST', DEPLOY, { body: deployment('web') });
    expect(created.status).toBe(201);
    const scale = await call(server.url, 'GET', `${DEPLOY}/web/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'web',
        namespace: 'default',
        uid: created.body.metadata.uid,
        resourceVersion: created.body.metadata.resourceVersion,
        creationTimestamp: created.body.metadata.creationTimestamp,
      },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=web' },
    });
  });

  it('PUT and merge PATCH change spec.replicas, bump generation and record a scale managedFields entry', async () => {
    await call(server.url, 'POST', DEPLOY, { body: deployment('api') });
    const put = await call(server.url, 'PUT', `${DEPLOY}/api/scale`, {
      body: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'api' }, spec: { replicas: 5 } },
    });
    expect(put.status).toBe(200);
    expect(put.body.spec).toEqual({ replicas: 5 });
    const patched = await call(server.url, 'PATCH', `${DEPLOY}/api/scale`, {
      body: { spec: { replicas: 3 } },
      contentType: 'application/merge-patch+json',
    });
    expect(patched.body.spec).toEqual({ replicas: 3 });
    const d = (await call(server.url, 'GET', `${DEPLOY}/api`)).body;
    expect(d.spec.replicas).toBe(3);
    expect(d.metadata.generation).toBe(3);
    expect(d.metadata.managedFields).toContainEqual(
      expect.objectContaining({
        manager: 'rxkube-test',
        operation: 'Update',
        subresource: 'scale',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      }),
    );
  });

  it('409 on a stale resourceVersion, 422 on negative replicas, 404 for a missing deployment', async () => {
    await call(server.url, 'POST', DEPLOY, { body: deployment('cfg') });
    const stale = await call(server.url, 'PUT', `${DEPLOY}/cfg/scale`, {
      body: { metadata: { name: 'cfg', resourceVersion: '1' }, spec: { replicas: 1 } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    const negative = await call(server.url, 'PUT', `${DEPLOY}/cfg/scale`, {
      body: { metadata: { name: 'cfg' }, spec: { replicas: -1 } },
    });
    expect(negative.status).toBe(422);
    expect(negative.body.message).toBe(
      'Scale.autoscaling "cfg" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    expect((await call(server.url, 'GET', `${DEPLOY}/nope/scale`)).status).toBe(404);
    expect((await call(server.url, 'DELETE', `${DEPLOY}/cfg/scale`)).status).toBe(405);
  });
});

describe('pods/log', () => {
  it('an unscheduled pod answers an empty text/plain log; bad container names are 400', async () => {
    await call(server.url, 'POST', PODS, {
      body: {
        metadata: { name: 'p' },
        spec: {
          containers: [
            { name: 'a', image: 'x' },
            { name: 'b', image: 'x' },
          ],
        },
      },
    });
    const ok = await call(server.url, 'GET', `${PODS}/p/log?container=a`);
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toBe('text/plain');
    expect(ok.text).toBe('');
    const which = await call(server.url, 'GET', `${PODS}/p/log`);
    expect(which.status).toBe(400);
    expect(which.body.message).toBe('a container name must be specified for pod p, choose one of: [a b]');
    const bad = await call(server.url, 'GET', `${PODS}/p/log?container=z`);
    expect(bad.body.message).toBe('container z is not valid for pod p');
  });

  it('a pod bound to a node answers 404 for the node (nodes are not emulated)', async () => {
    await call(server.url, 'POST', PODS, {
      body: { metadata: { name: 'q' }, spec: { nodeName: 'n1', containers: [{ name: 'a', image: 'x' }] } },
    });
    const r = await call(server.url, 'GET', `${PODS}/q/log`);
    expect(r.status).toBe(404);
    expect(r.body.message).toBe('nodes "n1" not found');
  });
});

describe('namespaces/finalize', () => {
  it('a custom spec finalizer keeps a deleted namespace Terminating until /finalize clears it', async () => {
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'fin' } } });
    const set = await call(server.url, 'PUT', '/api/v1/namespaces/fin/finalize', {
      body: { metadata: { name: 'fin' }, spec: { finalizers: ['kubernetes', 'example.com/hold'] } },
    });
    expect(set.status).toBe(200);
    expect(set.body.spec.finalizers).toEqual(['kubernetes', 'example.com/hold']);
    const w = new WatchReader(
      server.url,
      `/api/v1/namespaces?watch=1&resourceVersion=${String(server.resourceVersion)}&fieldSelector=metadata.name%3Dfin`,
    );
    await w.ready;
    await call(server.url, 'DELETE', '/api/v1/namespaces/fin');
    // the namespace controller finalizes its own `kubernetes` entry only
    await w.until(
      () => w.lines.some((l) => JSON.stringify(l.object.spec) === '{"finalizers":["example.com/hold"]}'),
      'the controller removing "kubernetes" from spec.finalizers',
    );
    const held = await call(server.url, 'GET', '/api/v1/namespaces/fin');
    expect(held.status).toBe(200);
    expect(held.body.status.phase).toBe('Terminating');
    const done = await call(server.url, 'PUT', '/api/v1/namespaces/fin/finalize', {
      body: { metadata: { name: 'fin' }, spec: { finalizers: [] } },
    });
    expect(done.status).toBe(200);
    expect((await call(server.url, 'GET', '/api/v1/namespaces/fin')).status).toBe(404);
    await w.until(() => w.lines.some((l) => l.type === 'DELETED'), 'namespace DELETED');
    w.close();
  });
});

describe('selectorString', () => {
  it('formats matchLabels and matchExpressions like labels.Selector.String()', () => {
    expect(
      selectorString({
        matchLabels: { app: 'x' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['b', 'a'] },
          { key: 'gone', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('!gone,app=x,tier in (a,b)');
  });
});
