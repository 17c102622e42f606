/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from './internal/test-client.js';
import { rbacGrant } from './rbac/grant.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
});
afterAll(async () => {
  await server.stop();
});

describe('fault injection', () => {
  it('answers the next N matching requests with 429 + Retry-After, 500, 503', async () => {
    server.faults.failNext({
      status: 429,
      method: 'GET',
      path: /configmaps/,
      count: 2,
      retryAfterSeconds: 3,
    });
    const a = await call(server.url, 'GET', CM);
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('3');
    expect(a.body.reason).toBe('TooManyRequests');
    const other = await call(server.url, 'GET', '/api/v1/namespaces');
    expect(other.status).toBe(200);
    expect((await call(server.url, 'GET', CM)).status).toBe(429);
    expect((await call(server.url, 'GET', CM)).status).toBe(200);
    server.faults.failNext({ status: 500 });
    expect((await call(server.url, 'GET', CM)).status).toBe(500);
    server.faults.failNext({ status: 503 });
    expect((await call(server.url, 'GET', CM)).status).toBe(503);
    expect(server.faults.counts.injectedErrors).toBe(4);
    expect(() => server.faults.failNext({ status: 404 as 500 })).toThrow(/status must be 429, 500 or 503/);
  });

  it('drops watches, expires the next watch, cuts mid-line', async () => {
    const w = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}`);
    await w.ready;
    expect(server.faults.dropWatches()).toBe(1);
    expect(await w.end()).toBe('error');
    server.faults.expireNextWatch();
    const e = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}`);
    expect(await e.end()).toBe('end');
    expect(e.lines[0]?.type).toBe('ERROR');
    expect(e.lines[0]?.object.code).toBe(410);
    expect(server.faults.counts.watchesExpired).toBe(1);
    const c = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}`);
    await c.ready;
    server.faults.cutWatchesMidLine();
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'cut' }, data: { v: 'x'.repeat(100) } } });
    expect(await c.end()).toBe('error');
    expect(c.lines).toEqual([]);
    expect(c.partial.length).toBeGreaterThan(0);
    expect(server.faults.counts.streamsCut).toBe(1);
  });

  it('expires open watches: what they queued, one ERROR 410, then a clean end', async () => {
    const before = server.faults.counts.watchesExpired;
    const w = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}`);
    await w.ready;
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'queued' } } });
    await w.count(1);
    expect(server.faults.expireOpenWatches()).toBe(1);
    expect(await w.end()).toBe('end');
    expect(w.lines.map((l) => l.type)).toEqual(['ADDED', 'ERROR']);
    expect(w.lines[1]?.object).toMatchObject({ code: 410, reason: 'Expired' });
    expect(server.faults.counts.watchesExpired).toBe(before + 1);
    expect(server.faults.expireOpenWatches()).toBe(0);
  });

  it('stalls watches: connection open, no bytes', async () => {
    const w = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}`);
    await w.ready;
    const other = new WatchReader(
      server.url,
      `/api/v1/namespaces?watch=1&resourceVersion=${String(server.resourceVersion)}`,
    );
    await other.ready;
    expect(server.faults.stallWatches()).toBe(2);
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'stalled' } } });
    const fresh = new WatchReader(
      server.url,
      `${CM}?watch=1&resourceVersion=${String(server.resourceVersion - 1)}`,
    );
    await fresh.count(1);
    expect(w.lines).toEqual([]);
    expect(w.ended).toBeUndefined();
    for (const x of [w, other, fresh]) x.close();
  });

  it('delays matching responses and counts them', async () => {
    server.faults.delay({ ms: 20, path: /\/version/, count: 1 });
    expect((await call(server.url, 'GET', '/version')).status).toBe(200);
    expect(server.faults.counts.requestsDelayed).toBe(1);
  });

  it('restart: connections dropped, state kept, resourceVersions continue, old RVs expire', async () => {
    const rv = server.resourceVersion;
    const w = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(rv)}`);
    await w.ready;
    await server.faults.restart();
    expect(await w.end()).toBe('error');
    expect(server.faults.counts.restarts).toBe(1);
    const c = await call(server.url, 'POST', CM, { body: { metadata: { name: 'after-restart' } } });
    expect(Number(c.body.metadata.resourceVersion)).toBe(rv + 1);
    expect(server.objects('configmaps', 'default').map((o) => o.metadata.name)).toContain('stalled');
    const old = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(rv - 1)}`);
    await old.end();
    expect(old.lines[0]?.object.reason).toBe('Expired');
  });
});

describe('auth (file 15) and TLS', () => {
  it('401 for unknown tokens, 403 with the real message, RBAC objects decide', async () => {
    const s = await startApiServer({
      auth: {
        tokens: {
          admin: { name: 'admin', groups: ['system:masters'] },
          limited: 'realk8s:limited',
          reader: 'reader',
        },
      },
      objects: rbacGrant(
        'reader',
        [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
        {
          namespace: 'default',
        },
      ),
    });
    try {
      const h = (t: string): Record<string, string> => ({ Authorization: `Bearer ${t}` });
      const un = await call(s.url, 'GET', CM, { headers: h('nope') });
      expect(un.status).toBe(401);
      expect(un.body).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Unauthorized',
        reason: 'Unauthorized',
        code: 401,
      });
      const f = await call(s.url, 'GET', CM, { headers: h('limited') });
      expect(f.status).toBe(403);
      expect(f.body.message).toBe(
        'configmaps is forbidden: User "realk8s:limited" cannot list resource "configmaps" in API group "" in the namespace "default"',
      );
      expect(f.body.details).toEqual({ kind: 'configmaps' });
      const g = await call(s.url, 'GET', `${CM}/x`, { headers: h('limited') });
      expect(g.body.details).toEqual({ name: 'x', kind: 'configmaps' });
      const cluster = await call(s.url, 'GET', '/api/v1/namespaces', { headers: h('limited') });
      expect(cluster.body.message).toBe(
        'namespaces is forbidden: User "realk8s:limited" cannot list resource "namespaces" in API group "" at the cluster scope',
      );
      const anon = await call(s.url, 'GET', CM);
      expect(anon.body.message).toContain('User "system:anonymous"');
      expect((await call(s.url, 'GET', '/version')).status).toBe(200);
      expect((await call(s.url, 'GET', CM, { headers: h('reader') })).status).toBe(200);
      expect(
        (await call(s.url, 'POST', CM, { headers: h('reader'), body: { metadata: { name: 'x' } } })).status,
      ).toBe(403);
      expect((await call(s.url, 'GET', CM, { headers: h(s.token) })).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('serves HTTPS with the test CA; the kubeconfig verifies it', async () => {
    const s = await startApiServer({ tls: true });
    try {
      expect(s.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const { CoreV1Api } = await import('@kubernetes/client-node');
      const api = s.kubeConfig.makeApiClient(CoreV1Api);
      const list = await api.listNamespacedConfigMap({ namespace: 'default' });
      expect(list.items).toEqual([]);
      await expect(call(s.url, 'GET', '/version')).rejects.toThrow();
    } finally {
      await s.stop();
    }
  });
});
