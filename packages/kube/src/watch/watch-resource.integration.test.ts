/**
 * `watchResource` / `createWatchRegistry` end to end over HTTP against `@rxkube/testing`'s API
 * server, through every fault it can inject. Each test waits for conditions on the event and health
 * streams with bounded timeouts; nothing sleeps.
 */
import type { ApiServer } from '@rxkube/testing';
import { rbacGrant, startApiServer } from '@rxkube/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { KubeTransportError } from '../errors.js';
import type { KubeObject } from '../types.js';
import { createWatchRegistry } from './create-watch-registry.js';
import type { Run } from './watch-harness.test.helper.js';
import {
  CM,
  describeEvents,
  FAST,
  runWatch,
  sameState,
  serverState,
  storeState,
} from './watch-harness.test.helper.js';
import type { WatchResourceOptions } from './watch-resource.js';
import { watchResource } from './watch-resource.js';

let server: ApiServer;
let client: KubeClient;
const runs: Run[] = [];

beforeAll(async () => {
  server = await startApiServer();
  client = KubeClient.fromKubeConfig(server.kubeConfig);
});
afterEach(() => {
  for (const r of runs.splice(0)) r.stop();
  server.faults.reset();
});
afterAll(async () => {
  client.close();
  await server.stop();
});

const cm = (namespace: string, name: string, data: Record<string, string> = { k: 'v' }): KubeObject => ({
  ...CM,
  metadata: { name, namespace },
  data,
});

async function namespace(name: string): Promise<string> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

function watch(ns: string, options: WatchResourceOptions = {}): Run {
  const run = runWatch((health) => watchResource(client, CM, { ...FAST, ...options, namespace: ns, health }));
  runs.push(run);
  return run;
}

/** Waits until the Store holds exactly the server's objects of `ns`, at their latest RVs. */
function converged(run: Run, ns: string, what = 'the Store to equal the server'): Promise<void> {
  return run.until(
    what,
    () => run.store.ready && sameState(storeState(run.store, ns), serverState(server, 'configmaps', ns)),
  );
}

/** Counts requests matching `path` from now on (a zero-delay rule; the server counts delays). */
function countRequests(path: RegExp): () => number {
  const before = server.faults.counts.requestsDelayed;
  server.faults.delay({ ms: 0, method: 'GET', path });
  return () => server.faults.counts.requestsDelayed - before;
}

/**
 * A write that survives the stale keep-alive socket a server restart leaves behind (the client
 * itself never retries): immediately retried on a transport error, at most 3 times.
 */
async function write<R>(op: () => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!(e instanceof KubeTransportError) || attempt >= 3) throw e;
    }
  }
}

let probes = 0;
/**
 * Writes a probe object and waits for its live `Apply`: afterwards this watcher's watch request is
 * certainly open on the server (so a fault injected now hits it).
 */
async function watchIsOpen(run: Run, ns: string): Promise<void> {
  const name = `probe-${++probes}`;
  await write(() => client.create(cm(ns, name)));
  await run.until(`the live Apply of ${name}`, () =>
    run.events.some((e) => e.type === 'Apply' && e.object.metadata.name === name),
  );
}

const applies = (run: Run, name: string): number =>
  run.events.filter((e) => e.type === 'Apply' && e.object.metadata.name === name).length;

describe('watchResource over HTTP', () => {
  it('lists more than one page (limit 500, continue), then watches: one Init…InitDone', async () => {
    const ns = await namespace('w-paged');
    const names = Array.from({ length: 1_203 }, (_, i) => `cm-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(names.slice(i, i + 50).map((n) => client.create(cm(ns, n))));
    }
    const lists = countRequests(new RegExp(`/namespaces/${ns}/configmaps\\?.*limit=500`));
    try {
      const run = watch(ns);
      await run.until('InitDone', () => run.store.ready);
      expect(lists()).toBe(3); // 500 + 500 + 203
      expect(run.events.filter((e) => e.type === 'InitApply')).toHaveLength(1_203);
      expect(describeEvents(run.events).filter((e) => !e.startsWith('InitApply'))).toEqual([
        'Init',
        'InitDone',
      ]);
      expect(sameState(storeState(run.store, ns), serverState(server, 'configmaps', ns))).toBe(true);
      await client.create(cm(ns, 'after'));
      await run.until('the live Apply', () => run.store.get(`${ns}/after`) !== undefined);
      expect(run.health().relists).toBe(0);
      run.stop();
    } finally {
      server.faults.reset();
    }
  });

  it('delivers live Apply (create, update) and Delete in order, with the server RVs', async () => {
    const ns = await namespace('w-live');
    await client.create(cm(ns, 'pre'));
    const run = watch(ns);
    await run.until('InitDone', () => run.store.ready);
    const created = await client.create(cm(ns, 'a'));
    const updated = await client.patch<KubeObject>(
      { ...CM, namespace: ns, name: 'a' },
      { type: 'merge', body: { data: { k: 'v2' } } },
    );
    await client.delete({ ...CM, namespace: ns, name: 'pre' });
    await converged(run, ns);
    expect(describeEvents(run.events)).toEqual([
      'Init',
      'InitApply pre',
      'InitDone',
      'Apply a',
      'Apply a',
      'Delete pre',
    ]);
    const rvs = run.events.filter((e) => e.type === 'Apply').map((e) => e.object.metadata.resourceVersion);
    expect(rvs).toEqual([created.metadata?.resourceVersion, updated.metadata?.resourceVersion]);
    expect(run.store.get(`${ns}/a`)?.metadata.resourceVersion).toBe(updated.metadata?.resourceVersion);
    run.stop();
  });

  it('resumes after dropped connections from the last RV: no relist, nothing lost, nothing twice', async () => {
    const ns = await namespace('w-drop');
    const run = watch(ns);
    await run.until('InitDone', () => run.store.ready);
    for (let round = 0; round < 3; round++) {
      await watchIsOpen(run, ns);
      expect(server.faults.dropWatches()).toBeGreaterThan(0);
      // written while the watcher is disconnected or reconnecting: the resumed watch replays them
      await Promise.all([0, 1, 2].map((i) => client.create(cm(ns, `r${round}-${i}`))));
    }
    await converged(run, ns);
    expect(run.store.list(ns).filter((o) => (o.metadata.name ?? '').startsWith('r'))).toHaveLength(9);
    for (let round = 0; round < 3; round++)
      for (const i of [0, 1, 2]) expect(applies(run, `r${round}-${i}`)).toBe(1);
    expect(run.events.filter((e) => e.type === 'Init')).toHaveLength(1);
    expect(run.health().relists).toBe(0);
    expect(run.health().reconnects).toBeGreaterThanOrEqual(3);
    expect(run.healths.some((h) => h.lastError?.kind === 'watch')).toBe(true);
    run.stop();
  });

  for (const via of ['expireNextWatch', 'compact'] as const) {
    it(`relists on 410 (${via}) and emits Delete for objects deleted while disconnected`, async () => {
      const ns = await namespace(`w-gone-${via.toLowerCase()}`);
      for (const n of ['keep', 'gone1', 'gone2', 'changed']) await client.create(cm(ns, n));
      const run = watch(ns);
      await run.until('InitDone', () => run.store.ready);
      await watchIsOpen(run, ns);
      // Stall the open watch so that it misses what follows, then make its resume impossible.
      expect(server.faults.stallWatches()).toBeGreaterThan(0);
      await client.delete({ ...CM, namespace: ns, name: 'gone1' });
      await client.delete({ ...CM, namespace: ns, name: 'gone2' });
      await client.patch(
        { ...CM, namespace: ns, name: 'changed' },
        { type: 'merge', body: { data: { k: 'v2' } } },
      );
      await client.create(cm(ns, 'new'));
      const gone410Before = server.faults.counts.watchesExpired;
      if (via === 'expireNextWatch') server.faults.expireNextWatch();
      else server.faults.compact();
      server.faults.dropWatches();
      await run.until('the relist', () => run.health().relists === 1);
      await converged(run, ns);
      const afterRelist = describeEvents(
        run.events.slice(run.events.findLastIndex((e) => e.type === 'Init')),
      );
      expect(afterRelist.slice(0, 1)).toEqual(['Init']);
      expect(afterRelist.filter((e) => e.startsWith('InitApply')).sort()).toEqual([
        'InitApply changed',
        'InitApply keep',
        'InitApply new',
        `InitApply probe-${probes}`,
      ]);
      expect(afterRelist.slice(afterRelist.indexOf('InitDone'))).toEqual([
        'InitDone',
        'Delete gone1',
        'Delete gone2',
      ]);
      expect(run.health().gone410s).toBe(1);
      if (via === 'expireNextWatch') expect(server.faults.counts.watchesExpired - gone410Before).toBe(1);
      run.stop();
    });
  }

  it('detects a stalled watch with the idle timer and resumes from the last RV', async () => {
    const ns = await namespace('w-stall');
    const run = watch(ns, { idleTimeoutMs: 400 });
    await run.until('InitDone', () => run.store.ready);
    await client.create(cm(ns, 'before'));
    await run.until('the first Apply', () => run.store.get(`${ns}/before`) !== undefined);
    expect(server.faults.stallWatches()).toBeGreaterThan(0);
    await client.create(cm(ns, 'during')); // the stalled stream never sends it
    await run.until('the stall', () => run.health().stalls >= 1);
    await converged(run, ns);
    expect(applies(run, 'during')).toBe(1);
    expect(run.health().relists).toBe(0);
    expect(run.healths.some((h) => h.lastError?.kind === 'stall')).toBe(true);
    run.stop();
  });

  it('resumes from the last good RV after a line cut in the middle', async () => {
    const ns = await namespace('w-cut');
    const run = watch(ns);
    await run.until('InitDone', () => run.store.ready);
    await watchIsOpen(run, ns);
    const cutBefore = server.faults.counts.streamsCut;
    expect(server.faults.cutWatchesMidLine()).toBeGreaterThan(0);
    await client.create(cm(ns, 'half')); // its line is cut in half, then the connection dies
    await client.create(cm(ns, 'next'));
    await converged(run, ns);
    expect(server.faults.counts.streamsCut - cutBefore).toBeGreaterThan(0);
    expect(applies(run, 'half')).toBe(1);
    expect(applies(run, 'next')).toBe(1);
    expect(run.health().relists).toBe(0);
    expect(run.healths.some((h) => h.lastError !== undefined)).toBe(true);
    run.stop();
  });

  it('backs off and recovers from 429, 500 and 503 on lists and watches', async () => {
    const ns = await namespace('w-5xx');
    server.faults.failNext({
      status: 500,
      count: 2,
      method: 'GET',
      path: new RegExp(`/namespaces/${ns}/configmaps\\?.*limit=`),
    });
    const run = watch(ns);
    await run.until('InitDone after two failed lists', () => run.store.ready);
    expect(run.events.filter((e) => e.type === 'Init').length).toBeGreaterThanOrEqual(1);
    await watchIsOpen(run, ns);
    const watchPath = new RegExp(`/namespaces/${ns}/configmaps\\?.*watch=true`);
    server.faults.failNext({ status: 429, count: 1, method: 'GET', path: watchPath, retryAfterSeconds: 0 });
    server.faults.failNext({ status: 503, count: 1, method: 'GET', path: watchPath, retryAfterSeconds: 0 });
    server.faults.failNext({ status: 500, count: 1, method: 'GET', path: watchPath });
    server.faults.dropWatches();
    await client.create(cm(ns, 'late'));
    await converged(run, ns);
    const codes = new Set(run.healths.map((h) => h.lastError?.code).filter((c) => c !== undefined));
    expect([...codes].sort()).toEqual([429, 500, 503]);
    expect(run.health().errors).toBeGreaterThanOrEqual(5); // 2 lists + 3 watches (+ the drop)
    expect(run.healths.some((h) => h.phase === 'backoff' && h.backoffMs > 0)).toBe(true);
    expect(applies(run, 'late')).toBe(1);
    expect(run.health().relists).toBe(0);
    run.stop();
  });

  it('resumes after a server restart; relists only if the server answered 410', async () => {
    const ns = await namespace('w-restart');
    await client.create(cm(ns, 'pre'));
    const run = watch(ns);
    await run.until('InitDone', () => run.store.ready);
    await watchIsOpen(run, ns);
    await server.restart();
    await write(() => client.create(cm(ns, 'post')));
    await write(() => client.delete({ ...CM, namespace: ns, name: 'pre' }));
    await converged(run, ns);
    await watchIsOpen(run, ns);
    expect(run.health().relists).toBe(run.health().gone410s);
    expect(run.health().reconnects + run.health().relists).toBeGreaterThanOrEqual(1);
    expect(run.store.get(`${ns}/pre`)).toBeUndefined();
    run.stop();
  });

  it('metadata-only: PartialObjectMetadata in the list and the watch, no data', async () => {
    const ns = await namespace('w-meta');
    await client.create(cm(ns, 'm1', { big: 'x'.repeat(1000) }));
    const run = watch(ns, { metadataOnly: true });
    await run.until('InitDone', () => run.store.ready);
    await client.create(cm(ns, 'm2', { big: 'y' }));
    await converged(run, ns);
    for (const name of ['m1', 'm2']) {
      const o = run.store.get(`${ns}/${name}`) as (KubeObject & { data?: unknown }) | undefined;
      expect(o?.kind).toBe('PartialObjectMetadata');
      expect(o?.data).toBeUndefined();
      expect(o?.metadata.managedFields).toBeUndefined(); // the Store's default transform
    }
    run.stop();
  });

  it('shares one upstream list and watch between two subscribers of the same target', async () => {
    const ns = await namespace('w-shared');
    await client.create(cm(ns, 's1'));
    // one zero-delay rule for every list or watch request of this namespace (the server counts them)
    const requests = countRequests(new RegExp(`/namespaces/${ns}/configmaps\\?`));
    try {
      const phases: string[] = [];
      const registry = createWatchRegistry(client, {
        watcher: FAST,
        health: (t, h) => {
          expect(t.namespace).toBe(ns);
          phases.push(h.phase);
        },
      });
      const target = { resource: CM, namespace: ns };
      const a = runWatch(() => registry.watch(target).events$);
      const b = runWatch(() => registry.watch({ resource: CM, namespace: ns }).events$);
      runs.push(a, b);
      await a.until('InitDone (a)', () => a.store.ready);
      await b.until('InitDone (b)', () => b.store.ready);
      await client.create(cm(ns, 's2'));
      await converged(a, ns);
      await converged(b, ns);
      expect(requests()).toBe(2); // one list page + one watch, for both subscribers
      expect(phases.filter((p) => p === 'listing')).toHaveLength(1); // one upstream watcher
      expect(registry.watch(target).store.size).toBe(2);
      expect(describeEvents(b.events)).toEqual(['Init', 'InitApply s1', 'InitDone', 'Apply s2']);
      a.stop();
      b.stop();
    } finally {
      server.faults.reset();
    }
  });
});

describe('watchResource with RBAC', () => {
  it('reports 403 on the health stream and keeps retrying; never an Observable error', async () => {
    const limited = await startApiServer({
      auth: {
        tokens: { limited: 'limited' },
        rbac: rbacGrant('limited', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }], {
          namespace: 'default',
        }),
      },
    });
    const kc = limited.kubeConfig;
    kc.users = kc.users.map((u) => ({ ...u, token: 'limited' }));
    const c = KubeClient.fromKubeConfig(kc);
    const run = runWatch((health) => watchResource(c, CM, { ...FAST, namespace: 'default', health }));
    try {
      await run.until('InitDone (list is allowed)', () => run.store.ready);
      await run.until('three forbidden watches', () => run.health().errors >= 3);
      const failure = run.health().lastError;
      expect(failure?.code).toBe(403);
      expect(failure?.reason).toBe('Forbidden');
      expect(failure?.message).toContain('"watch" "configmaps" in namespace "default"');
      expect(run.health().phase).toBe('backoff');
    } finally {
      run.stop();
      c.close();
      await limited.stop();
    }
  });
});
