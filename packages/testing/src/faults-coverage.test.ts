/* eslint-disable @typescript-eslint/no-unsafe-member-access -- watch objects are untyped JSON */
// Fault injection that covers what it claims: a whole malformed watch line, counters that count each
// hit once, pending rules that can be listed, injected errors by status and path. Each test has its
// own server, so the counters start at zero.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { MALFORMED_WATCH_LINE } from './handlers/watch.js';
import { call, WatchReader } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/default/configmaps';
const watchFromNow = (path = CM): WatchReader =>
  new WatchReader(server.url, `${path}?watch=1&resourceVersion=${String(server.resourceVersion)}`);

beforeEach(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
});
afterEach(async () => {
  await server.stop();
});

describe('sendMalformedWatchLines', () => {
  it('writes one whole line that is not JSON, after what was queued, and the watch goes on', async () => {
    const w = watchFromNow();
    await w.ready;
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'before' } } });
    await w.count(1);
    expect(server.faults.sendMalformedWatchLines()).toBe(1);
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'after' } } });
    const lines = await w.count(3);
    expect(w.ended).toBeUndefined();
    w.close();
    expect(lines.map((l) => l.type)).toEqual(['ADDED', '<malformed>', 'ADDED']);
    expect(`${String(lines[1]?.object)}\n`).toBe(MALFORMED_WATCH_LINE);
    expect(() => JSON.parse(MALFORMED_WATCH_LINE) as unknown).toThrow();
    expect(lines[2]?.object.metadata.name).toBe('after');
    expect(server.faults.counts.malformedLines).toBe(1);
  });

  it('skips stalled watches and counts only lines written', async () => {
    const stalled = watchFromNow();
    const live = watchFromNow('/api/v1/namespaces');
    await Promise.all([stalled.ready, live.ready]);
    expect(server.faults.stallWatches()).toBe(2);
    expect(server.faults.sendMalformedWatchLines()).toBe(0);
    expect(server.faults.counts.malformedLines).toBe(0);
    stalled.close();
    live.close();
  });
});

describe('each hit is counted once', () => {
  it('stalling an already stalled watch is not a second stall', async () => {
    const w = watchFromNow();
    await w.ready;
    expect(server.faults.stallWatches()).toBe(1);
    expect(server.faults.stallWatches()).toBe(0);
    expect(server.faults.counts.watchesStalled).toBe(1);
    w.close();
  });

  it('arming a cut twice cuts once; a stalled watch cannot be cut', async () => {
    const w = watchFromNow();
    await w.ready;
    expect(server.faults.cutWatchesMidLine()).toBe(1);
    expect(server.faults.cutWatchesMidLine()).toBe(0);
    expect(server.faults.counts.streamsCut).toBe(0);
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'cut' } } });
    expect(await w.end()).toBe('error');
    expect(server.faults.counts.streamsCut).toBe(1);
    const s = watchFromNow();
    await s.ready;
    server.faults.stallWatches();
    expect(server.faults.cutWatchesMidLine()).toBe(0);
    s.close();
  });

  it('compacting an already compacted history is not a second compaction', async () => {
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'c1' } } });
    const rv = server.faults.compact();
    expect(server.faults.compact()).toBe(rv);
    expect(server.faults.counts.compactions).toBe(1);
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'c2' } } });
    server.faults.compact();
    expect(server.faults.counts.compactions).toBe(2);
  });
});

describe('pending()', () => {
  it('lists the rules not used up, then fewer as requests and watches hit them', async () => {
    const w = watchFromNow();
    await w.ready;
    server.faults.failNext({ status: 503, count: 2, method: 'GET', path: /configmaps/ });
    server.faults.delay({ ms: 1, path: /\/version/, count: 1 });
    server.faults.expireNextWatch(2);
    server.faults.cutWatchesMidLine();
    expect(server.faults.pending()).toEqual([
      { kind: 'failNext', rule: { status: 503, count: 2, method: 'GET', path: /configmaps/ }, remaining: 2 },
      { kind: 'delay', rule: { ms: 1, path: /\/version/, count: 1 }, remaining: 1 },
      { kind: 'expireNextWatch', remaining: 2 },
      { kind: 'cutWatchesMidLine', remaining: 1 },
    ]);
    expect((await call(server.url, 'GET', CM)).status).toBe(503);
    await call(server.url, 'GET', '/version');
    expect(server.faults.pending().map((p) => [p.kind, p.remaining])).toEqual([
      ['failNext', 1],
      ['expireNextWatch', 2],
      ['cutWatchesMidLine', 1],
    ]);
    server.faults.reset();
    // reset clears the rules; an armed cut stays on its watch
    expect(server.faults.pending().map((p) => p.kind)).toEqual(['cutWatchesMidLine']);
    w.close();
  });

  it('an unlimited delay stays pending with remaining Infinity', () => {
    server.faults.delay({ ms: 5 });
    expect(server.faults.pending()).toEqual([
      { kind: 'delay', rule: { ms: 5 }, remaining: Number.POSITIVE_INFINITY },
    ]);
  });
});

describe('injectedErrors()', () => {
  it('counts injected answers by status, method and path (query left out)', async () => {
    server.faults.failNext({ status: 429, count: 2, path: /configmaps/ });
    server.faults.failNext({ status: 503, path: /namespaces$/ });
    await call(server.url, 'GET', `${CM}?limit=1`);
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'x' } } });
    await call(server.url, 'GET', '/api/v1/namespaces');
    expect(server.faults.injectedErrors()).toEqual([
      { status: 429, method: 'GET', path: CM, count: 1 },
      { status: 429, method: 'POST', path: CM, count: 1 },
      { status: 503, method: 'GET', path: '/api/v1/namespaces', count: 1 },
    ]);
    expect(server.faults.counts.injectedErrors).toBe(3);
  });
});
