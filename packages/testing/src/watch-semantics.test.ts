/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- watch objects are untyped JSON */
// Watch behaviour measured on a real kube-apiserver v1.24:
// - an object leaving a watch's selector is sent as DELETED carrying the previous object at the
//   event's resourceVersion (apiserver/pkg/storage/cacher/cacher.go, cacheWatcher.convertToWatchEvent);
// - deleting a CRD, or changing its spec or accepted names, tears down the custom resources' storage
//   and ends open watches on them cleanly (apiextensions-apiserver/pkg/apiserver/customresource_handler.go,
//   updateCustomResourceDefinition / removeStorage_locked / tearDown); metadata changes do not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'wsem';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const MERGE = 'application/merge-patch+json';

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  expect(
    (await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
  ).toBe(201);
});
afterAll(async () => {
  await server.stop();
});

describe('selector transitions', () => {
  it('leaving the selector: DELETED with the previous object at the new resourceVersion; entering: ADDED', async () => {
    const w = new WatchReader(server.url, `${CM}?watch=1&labelSelector=a%3D1`);
    await w.ready;
    await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'c1', labels: { a: '1' } }, data: { v: '1' } },
    });
    const left = await call(server.url, 'PATCH', `${CM}/c1`, {
      body: { metadata: { labels: { a: '2' } }, data: { v: '2' } },
      contentType: MERGE,
    });
    await call(server.url, 'PATCH', `${CM}/c1`, { body: { data: { v: '3' } }, contentType: MERGE });
    const back = await call(server.url, 'PATCH', `${CM}/c1`, {
      body: { metadata: { labels: { a: '1' } }, data: { v: '4' } },
      contentType: MERGE,
    });
    const lines = await w.count(3);
    w.close();
    expect(lines.map((l) => [l.type, l.object.metadata.labels.a, l.object.data.v])).toEqual([
      ['ADDED', '1', '1'],
      ['DELETED', '1', '1'],
      ['ADDED', '1', '4'],
    ]);
    expect(lines[1]?.object.metadata.resourceVersion).toBe(left.body.metadata.resourceVersion);
    expect(lines[2]?.object.metadata.resourceVersion).toBe(back.body.metadata.resourceVersion);
  });

  it('a watch resumed from history applies the same rule', async () => {
    const start = String(server.resourceVersion);
    await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'c2', labels: { b: '1' } }, data: { v: '1' } },
    });
    await call(server.url, 'PATCH', `${CM}/c2`, {
      body: { metadata: { labels: { b: '2' } }, data: { v: '2' } },
      contentType: MERGE,
    });
    const w = new WatchReader(server.url, `${CM}?watch=1&labelSelector=b%3D1&resourceVersion=${start}`);
    const lines = await w.count(2);
    w.close();
    expect(lines.map((l) => [l.type, l.object.metadata.labels.b, l.object.data.v])).toEqual([
      ['ADDED', '1', '1'],
      ['DELETED', '1', '1'],
    ]);
  });
});

function crd(group: string, printerColumn = false): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          ...(printerColumn
            ? {
                additionalPrinterColumns: [
                  { name: 'Age2', type: 'date', jsonPath: '.metadata.creationTimestamp' },
                ],
              }
            : {}),
        },
      ],
    },
  };
}

async function installCrd(group: string): Promise<string> {
  expect((await call(server.url, 'POST', CRDS, { body: crd(group) })).status).toBe(201);
  const path = `/apis/${group}/v1/namespaces/${NS}/widgets`;
  for (let i = 0; i < 100 && (await call(server.url, 'GET', path)).status !== 200; i++) {
    await new Promise((r) => setImmediate(r));
  }
  return path;
}

describe('CRD changes end the watches of its resources', () => {
  it('deleting the CRD: the watch gets every DELETED, then ends cleanly once the CRD is gone', async () => {
    const W = await installCrd('del.example.com');
    const widget = (name: string, finalizers?: string[]): unknown => ({
      apiVersion: 'del.example.com/v1',
      kind: 'Widget',
      metadata: { name, ...(finalizers ? { finalizers } : {}) },
    });
    await call(server.url, 'POST', W, { body: widget('w1') });
    await call(server.url, 'POST', W, { body: widget('w2', ['example.com/hold']) });
    const w = new WatchReader(server.url, `${W}?watch=1`);
    await w.count(2);
    await call(server.url, 'DELETE', `${CRDS}/widgets.del.example.com`);
    await w.until(() => w.lines.some((l) => l.type === 'MODIFIED'), 'w2 marked for deletion');
    expect(w.ended).toBeUndefined();
    await call(server.url, 'PATCH', `${W}/w2`, {
      body: { metadata: { finalizers: null } },
      contentType: MERGE,
    });
    expect(await w.end()).toBe('end');
    expect(w.lines.map((l) => `${l.type}:${String(l.object.metadata.name)}`)).toEqual([
      'ADDED:w1',
      'ADDED:w2',
      'DELETED:w1',
      'MODIFIED:w2',
      'DELETED:w2',
    ]);
  });

  it('a CRD spec change ends the watch; a metadata change does not', async () => {
    const W = await installCrd('upd.example.com');
    const w = new WatchReader(server.url, `${W}?watch=1`);
    await w.ready;
    await call(server.url, 'PATCH', `${CRDS}/widgets.upd.example.com`, {
      body: { metadata: { labels: { x: 'y' } } },
      contentType: MERGE,
    });
    await call(server.url, 'POST', W, {
      body: { apiVersion: 'upd.example.com/v1', kind: 'Widget', metadata: { name: 'w1' } },
    });
    await w.count(1);
    expect(w.ended).toBeUndefined();
    const spec = (crd('upd.example.com', true) as { spec: unknown }).spec;
    expect(
      (
        await call(server.url, 'PATCH', `${CRDS}/widgets.upd.example.com`, {
          body: { spec },
          contentType: MERGE,
        })
      ).status,
    ).toBe(200);
    expect(await w.end()).toBe('end');
  });
});
