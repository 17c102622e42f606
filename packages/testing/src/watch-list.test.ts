/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- response bodies are untyped JSON */
// Streaming lists (WatchList, KEP-3157) as Kubernetes 1.34 serves them, and as 1.24 refuses them.
// The facts and their sources: fixtures/watch-list/README.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
let old: ApiServer;
const NS = 'wl';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const STREAM = 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true';

beforeAll(async () => {
  [server, old] = await Promise.all([
    startApiServer({ logger: { error: () => undefined } }),
    startApiServer({ watchList: false, logger: { error: () => undefined } }),
  ]);
  for (const s of [server, old]) {
    expect(
      (await call(s.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
    ).toBe(201);
    for (const name of ['b', 'a']) {
      expect((await call(s.url, 'POST', CM, { body: { metadata: { name } } })).status).toBe(201);
    }
  }
});
afterAll(async () => {
  await Promise.all([server.stop(), old.stop()]);
});

const cause = (message: string, reason = 'FieldValueForbidden', field = 'resourceVersionMatch'): unknown => ({
  reason,
  message,
  field,
});
const causesOf = async (s: ApiServer, query: string): Promise<unknown> => {
  const r = await call(s.url, 'GET', `${CM}?${query}`);
  expect(r.status).toBe(422);
  expect(r.body.reason).toBe('Invalid');
  return r.body.details.causes;
};

async function open(s: ApiServer, query: string): Promise<WatchReader> {
  const w = new WatchReader(s.url, `${CM}?${query}&timeoutSeconds=30`);
  await w.ready;
  expect(w.status).toBe(200);
  return w;
}

describe('WatchList on (Kubernetes 1.34)', () => {
  it('validates the parameter combinations with the real texts', async () => {
    expect(await causesOf(server, 'watch=true&sendInitialEvents=true')).toEqual([
      cause('Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
    ]);
    expect(await causesOf(server, 'watch=true&sendInitialEvents=true&resourceVersionMatch=Exact')).toEqual([
      cause('Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
      cause('Unsupported value: "Exact": supported values: "NotOlderThan"', 'FieldValueNotSupported'),
    ]);
    expect(await causesOf(server, 'watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1')).toEqual([
      cause('Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
    ]);
    expect(
      await causesOf(
        server,
        'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&continue=x',
      ),
    ).toEqual([cause('Forbidden: resourceVersionMatch is forbidden when continue is provided')]);
    const list = await call(server.url, 'GET', `${CM}?sendInitialEvents=true`);
    expect(list.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    );
    expect(list.body.details.causes).toEqual([
      cause('Forbidden: sendInitialEvents is forbidden for list', 'FieldValueForbidden', 'sendInitialEvents'),
    ]);
  });

  it('streams every current object, then the end bookmark at the snapshot revision, then live events', async () => {
    const snapshot = server.resourceVersion;
    const w = await open(server, STREAM);
    const initial = await w.count(3);
    expect(initial.map((l) => [l.type, l.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['BOOKMARK', undefined],
    ]);
    expect(initial[2]?.object).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {
        resourceVersion: String(snapshot),
        creationTimestamp: null,
        annotations: { 'k8s.io/initial-events-end': 'true' },
      },
    });
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'live' } } });
    const [, , , live] = await w.count(4);
    expect([live?.type, live?.object.metadata.name]).toEqual(['ADDED', 'live']);
    expect(Number(live?.object.metadata.resourceVersion)).toBeGreaterThan(snapshot);
    w.close();
    await call(server.url, 'DELETE', `${CM}/live`);
  });

  it('serves the current state for an older resourceVersion (NotOlderThan), never 410', async () => {
    const w = await open(server, `${STREAM}&resourceVersion=1`);
    const lines = await w.count(3);
    expect(lines.map((l) => l.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK']);
    expect(lines[2]?.object.metadata.resourceVersion).toBe(String(server.resourceVersion));
    w.close();
  });

  it('answers a resourceVersion it has not reached with one ERROR line (504, too large)', async () => {
    const ahead = server.resourceVersion + 1000;
    const w = await open(server, `${STREAM}&resourceVersion=${ahead}`);
    const [error] = await w.count(1);
    expect(error?.type).toBe('ERROR');
    expect(error?.object).toMatchObject({
      code: 504,
      reason: 'Timeout',
      message: `Timeout: Too large resource version: ${ahead}, current: ${server.resourceVersion}`,
      details: { causes: [{ reason: 'ResourceVersionTooLarge' }] },
    });
    expect(await w.end()).toBe('end');
  });

  it('sends no end bookmark without allowWatchBookmarks, and no initial events with sendInitialEvents=false', async () => {
    const noMarks = await open(server, 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan');
    const quiet = await open(server, 'watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan');
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'later' } } });
    expect((await noMarks.count(3)).map((l) => [l.type, l.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
      ['ADDED', 'later'],
    ]);
    expect((await quiet.count(1)).map((l) => [l.type, l.object.metadata.name])).toEqual([['ADDED', 'later']]);
    noMarks.close();
    quiet.close();
    await call(server.url, 'DELETE', `${CM}/later`);
  });
});

describe('WatchList off (Kubernetes 1.24, as the real tier answers)', () => {
  it('refuses resourceVersionMatch on a watch with 422 and ignores sendInitialEvents', async () => {
    const r = await call(old.url, 'GET', `${CM}?${STREAM}`);
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided]',
    );
    const list = await call(old.url, 'GET', `${CM}?sendInitialEvents=true`);
    expect(list.status).toBe(200);
    // without resourceVersionMatch the watch is a legacy one: initial ADDED, no end bookmark
    const w = await open(old, 'watch=true&sendInitialEvents=true&allowWatchBookmarks=true');
    expect((await w.count(2)).map((l) => l.type)).toEqual(['ADDED', 'ADDED']);
    w.close();
  });
});
