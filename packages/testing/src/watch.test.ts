/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/wire/configmaps';

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined }, bookmarkIntervalMs: 50 });
  await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'wire' } } });
});
afterAll(async () => {
  await server.stop();
});

describe('watch basics (file 06)', () => {
  it('streams ADDED/MODIFIED/DELETED from a list RV with the real framing', async () => {
    const list = await call(server.url, 'GET', CM);
    const rv = list.body.metadata.resourceVersion as string;
    const w = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=30`);
    await w.ready;
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    expect(w.headers['transfer-encoding']).toBe('chunked');
    expect(w.headers['cache-control']).toBe('no-cache, private');
    const c = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 's06-a', labels: { step: 'created' } }, data: { v: '1' } },
    });
    await call(server.url, 'PUT', `${CM}/s06-a`, {
      body: {
        metadata: {
          name: 's06-a',
          resourceVersion: c.body.metadata.resourceVersion,
          labels: { step: 'replaced' },
        },
        data: { v: '2' },
      },
    });
    await call(server.url, 'PATCH', `${CM}/s06-a`, {
      body: { data: { v: '3' } },
      contentType: 'application/merge-patch+json',
    });
    const del = await call(server.url, 'DELETE', `${CM}/s06-a`);
    expect(del.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 's06-a', kind: 'configmaps', uid: c.body.metadata.uid },
    });
    const lines = await w.count(4);
    expect(lines.map((l) => l.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    expect(Object.keys(lines[0]?.object)).toEqual(['kind', 'apiVersion', 'metadata', 'data']);
    expect(lines[3]?.object.data).toEqual({ v: '3' });
    expect(Number(lines[3]?.object.metadata.resourceVersion)).toBe(server.resourceVersion);
    expect(w.raw.split('\n').filter(Boolean)[0]).toMatch(
      /^\{"type":"ADDED","object":\{"kind":"ConfigMap","apiVersion":"v1","metadata":/,
    );
    w.close();
  });

  it('no-op writes produce no event', async () => {
    const c = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 's06-noop' }, data: { v: '1' } },
    });
    const rv = c.body.metadata.resourceVersion as string;
    const w = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${rv}`);
    await w.ready;
    await call(server.url, 'PUT', `${CM}/s06-noop`, {
      body: { metadata: { name: 's06-noop' }, data: { v: '1' } },
    });
    await call(server.url, 'PATCH', `${CM}/s06-noop`, {
      body: { data: { v: '1' } },
      contentType: 'application/merge-patch+json',
    });
    await call(server.url, 'PATCH', `${CM}/s06-noop`, {
      body: { data: { v: '2' } },
      contentType: 'application/merge-patch+json',
    });
    const lines = await w.count(1);
    expect(lines[0]?.object.data).toEqual({ v: '2' });
    expect(Number(lines[0]?.object.metadata.resourceVersion)).toBe(Number(rv) + 1);
    w.close();
  });

  it('ends cleanly at timeoutSeconds; BOOKMARK only after the type RV moved', async () => {
    const idle = new WatchReader(
      server.url,
      `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}&allowWatchBookmarks=true&timeoutSeconds=1`,
    );
    expect(await idle.end()).toBe('end');
    expect(idle.lines).toEqual([]);
    const rv = server.resourceVersion;
    const w = new WatchReader(
      server.url,
      `${CM}?watch=1&resourceVersion=${String(rv)}&allowWatchBookmarks=true&timeoutSeconds=30`,
    );
    await w.ready;
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's06-bm', labels: { x: 'y' } } } });
    await w.until(() => w.lines.some((l) => l.type === 'BOOKMARK'), 'a BOOKMARK');
    const bm = w.lines.find((l) => l.type === 'BOOKMARK');
    expect(bm?.object).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(rv + 1), creationTimestamp: null },
    });
    w.close();
  });
});

describe('initial events and resume (files 07, 08)', () => {
  it('without RV and with RV=0: synthetic ADDED for matching objects, then live events', async () => {
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's07-a', labels: { set: 's07' } } } });
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's07-b', labels: { set: 's07' } } } });
    for (const q of ['', '&resourceVersion=0']) {
      const w = new WatchReader(server.url, `${CM}?watch=1&labelSelector=set%3Ds07${q}`);
      await w.count(2);
      expect(w.lines.map((l) => l.object.metadata.name).sort()).toEqual(['s07-a', 's07-b']);
      expect(w.lines.every((l) => l.type === 'ADDED')).toBe(true);
      w.close();
    }
    const w = new WatchReader(server.url, `${CM}?watch=1&labelSelector=set%3Ds07`);
    await w.count(2);
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's07-c', labels: { set: 's07' } } } });
    await call(server.url, 'PATCH', `${CM}/s07-a`, {
      body: { metadata: { labels: { set: 'other' } } },
      contentType: 'application/merge-patch+json',
    });
    const lines = await w.count(4);
    expect(lines.slice(2).map((l) => [l.type, l.object.metadata.name])).toEqual([
      ['ADDED', 's07-c'],
      ['DELETED', 's07-a'],
    ]);
    w.close();
  });

  it('resumes from an RV in the history; too old → 200 with one ERROR line and a clean end', async () => {
    const rv = server.resourceVersion;
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's08-a' } } });
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's08-b' } } });
    const w = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(rv)}`);
    const lines = await w.count(2);
    expect(lines.map((l) => l.object.metadata.name)).toEqual(['s08-a', 's08-b']);
    w.close();
    server.faults.compact();
    const old = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=${String(rv)}`);
    expect(await old.end()).toBe('end');
    expect(old.status).toBe(200);
    expect(old.lines).toEqual([
      {
        type: 'ERROR',
        object: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${String(rv)} (${String(server.resourceVersion + 1)})`,
          reason: 'Expired',
          code: 410,
        },
      },
    ]);
  });

  it('works on the legacy /watch/ path and as PartialObjectMetadata', async () => {
    const rv = server.resourceVersion;
    const legacy = new WatchReader(
      server.url,
      `/api/v1/watch/namespaces/wire/configmaps?resourceVersion=${String(rv)}`,
    );
    const meta = new WatchReader(
      server.url,
      `${CM}?watch=1&resourceVersion=${String(rv)}`,
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    );
    await Promise.all([legacy.ready, meta.ready]);
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's16-c' }, data: { v: '1' } } });
    const [l] = await legacy.count(1);
    expect(l?.object.kind).toBe('ConfigMap');
    const [m] = await meta.count(1);
    expect(m?.object.kind).toBe('PartialObjectMetadata');
    expect(m?.object.data).toBeUndefined();
    legacy.close();
    meta.close();
  });

  it('a slow reader does not block other watches and is closed when its queue overflows', async () => {
    const small = await startApiServer({ logger: { error: () => undefined }, maxQueuedWatchEvents: 5 });
    try {
      const rv = small.resourceVersion;
      const fast = new WatchReader(
        small.url,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${String(rv)}`,
      );
      await fast.ready;
      const big = 'x'.repeat(256 * 1024);
      // a watch whose client never reads: the socket fills up, events queue, then the watch is closed
      const stuck = new WatchReader(
        small.url,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${String(rv)}`,
      );
      await stuck.ready;
      stuck['res']?.pause();
      for (let i = 0; i < 40; i++) {
        await call(small.url, 'POST', '/api/v1/namespaces/default/configmaps', {
          body: { metadata: { name: `big-${String(i)}` }, data: { big } },
        });
      }
      await fast.count(40, 10_000);
      await fast.until(() => small.openWatches === 1, 'the stuck watch to be closed', 10_000);
      fast.close();
      stuck.close();
    } finally {
      await small.stop();
    }
  });
});
