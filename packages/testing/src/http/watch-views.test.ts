/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-assignment -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { WatchReader } from '../internal/test-client.js';
import { decodeProtobufObject } from '../protobuf/codec.js';
import { messages } from '../protobuf/messages.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import type { KObj } from '../store/object.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/default/configmaps';
// what kubectl get -w sends
const KUBECTL_WATCH_ACCEPT =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

const write = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'Content-Type': contentType },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status).toBeLessThan(300);
};

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
});
afterAll(async () => {
  await server.stop();
});

// apiserver/pkg/endpoints/handlers/watch.go serveWatch: Fixup turns every event into a Table and sets
// NoHeaders after the first; recorded the same way from kube-apiserver v1.24 (kubectl get -w)
describe('watches that ask for Tables stream one-row Tables', () => {
  it('column definitions on the first event only, null on the next ones', async () => {
    await write('POST', CM, { metadata: { name: 'before' }, data: { x: 'y' } });
    const w = new WatchReader(
      server.url,
      `${CM}?watch=1&fieldSelector=metadata.name%3Dt1`,
      KUBECTL_WATCH_ACCEPT,
    );
    const all = new WatchReader(server.url, `${CM}?watch=1&resourceVersion=0`, KUBECTL_WATCH_ACCEPT);
    await w.ready;
    expect(w.status).toBe(200);
    expect(w.headers['content-type']).toBe('application/json');
    await write('POST', CM, { metadata: { name: 't1' }, data: { x: 'y' } });
    await write('PATCH', `${CM}/t1`, { metadata: { labels: { l: '1' } } }, 'application/merge-patch+json');
    await write('DELETE', `${CM}/t1`);
    const [added, modified, deleted] = await w.count(3);
    expect([added?.type, modified?.type, deleted?.type]).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(added?.object).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(added?.object.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
      'Name',
      'Data',
      'Age',
    ]);
    expect(modified?.object.columnDefinitions).toBeNull();
    expect(deleted?.object.columnDefinitions).toBeNull();
    for (const e of [added, modified, deleted]) {
      expect(e?.object.rows).toHaveLength(1);
      expect(e?.object.rows[0].cells.slice(0, 2)).toEqual(['t1', 1]);
      expect(e?.object.rows[0].object).toMatchObject({
        kind: 'PartialObjectMetadata',
        metadata: { name: 't1' },
      });
      expect(e?.object.metadata.resourceVersion).toBe(e?.object.rows[0].object.metadata.resourceVersion);
    }
    expect(modified?.object.rows[0].object.metadata.labels).toEqual({ l: '1' });
    // the synthetic ADDED events of a watch from 0 are Tables too, the first with the columns
    const initial = await all.count(4);
    expect(initial[0]?.object.columnDefinitions).toHaveLength(3);
    expect(initial.slice(1).every((e) => e.object.columnDefinitions === null)).toBe(true);
    w.close();
    all.close();
  });

  it('includeObject=Object rows hold the object; v1beta1 when asked first', async () => {
    const w = new WatchReader(
      server.url,
      `${CM}?watch=1&includeObject=Object&fieldSelector=metadata.name%3Dt2`,
      'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
    );
    await w.ready;
    await write('POST', CM, { metadata: { name: 't2' }, data: { a: 'b' } });
    const [added] = await w.count(1);
    expect(added?.object.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(added?.object.rows[0].object).toMatchObject({ kind: 'ConfigMap', data: { a: 'b' } });
    w.close();
  });
});

/** Reads length-prefixed protobuf watch frames. */
async function readFrames(
  path: string,
  accept: string,
  n: number,
): Promise<{ type: string; events: { type: string; object: KObj }[] }> {
  const controller = new AbortController();
  const res = await fetch(`${server.url}${path}`, { headers: { Accept: accept }, signal: controller.signal });
  const reader = res.body?.getReader();
  if (!reader) throw new Error('no body');
  let buf = Buffer.alloc(0);
  const events: { type: string; object: KObj }[] = [];
  const watchEvent = messages().message('meta.v1.WatchEvent')?.type;
  if (!watchEvent) throw new Error('meta.v1.WatchEvent is not declared');
  const deadline = Date.now() + 5000;
  while (events.length < n && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buf = Buffer.concat([buf, value]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
      const len = buf.readUInt32BE(0);
      const e = watchEvent.toObject(watchEvent.decode(buf.subarray(4, 4 + len)), { bytes: Buffer });
      events.push({
        type: String(e['type']),
        object: decodeProtobufObject((e['object'] as { raw: Buffer }).raw),
      });
      buf = buf.subarray(4 + len);
    }
  }
  controller.abort();
  return { type: res.headers.get('content-type') ?? '', events };
}

describe('protobuf watch streams (watch.go: length-prefixed metav1.WatchEvent frames)', () => {
  it('frames each event with its enveloped object', async () => {
    await write('POST', CM, { metadata: { name: 'p1' }, data: { k: 'v' } });
    const { type, events } = await readFrames(
      `${CM}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dp1`,
      'application/vnd.kubernetes.protobuf',
      1,
    );
    expect(type).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    expect(events[0]).toMatchObject({
      type: 'ADDED',
      object: { kind: 'ConfigMap', metadata: { name: 'p1' }, data: { k: 'v' } },
    });
  });

  it('an expired resourceVersion is an ERROR frame holding a Status', async () => {
    server.faults.expireNextWatch();
    const { events } = await readFrames(
      `${CM}?watch=1&resourceVersion=1`,
      'application/vnd.kubernetes.protobuf',
      1,
    );
    expect(events[0]).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired' },
    });
  });

  it('metadata-only watches send PartialObjectMetadata frames', async () => {
    const { events } = await readFrames(
      `${CM}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dp1`,
      'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
      1,
    );
    expect(events[0]?.object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'p1' } });
    expect(events[0]?.object['data']).toBeUndefined();
  });
});
