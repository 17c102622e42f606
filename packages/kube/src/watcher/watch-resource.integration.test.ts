/**
 * `watcher(client, …)` / `WatchRegistry` end to end over HTTP, on both backends: the embedded API
 * server through every fault it can inject, and a real kube-apiserver through what it does by
 * itself (restarts, 410 after a restart, RBAC). Each test waits for conditions on the event and
 * health streams with bounded timeouts; nothing sleeps.
 */
import type { TestBackend } from '@rxkube/testing';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  clientAs,
  expireWatches,
  limitedUsers,
  metricSum,
  openWatches,
  permit,
  restartApiServer,
} from '../client/backends.test.helper.js';
import { KubeClient } from '../client/kube-client.js';
import { KubeTransportError } from '../errors.js';
import type { KubeObject } from '../types.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
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
import type { WatcherOptions } from './watcher.js';
import { watcher } from './watcher.js';

const users = limitedUsers({ limited: 'limited' });

/**
 * Every test runs with the default initial list (streamed on the embedded server, which serves
 * WatchList as 1.34; the fallback to pages on the real 1.24 tier) and with paged lists forced.
 */
const LIST_MODES = [
  { name: 'default (streaming, paged on 1.24)', streamingLists: undefined, suffix: '' },
  { name: 'paged', streamingLists: false, suffix: '-p' },
] as const;
let listMode: (typeof LIST_MODES)[number] = LIST_MODES[0];
let cluster: TestBackend;
let client: KubeClient;
const runs: Run[] = [];

const cm = (namespace: string, name: string, data: Record<string, string> = { k: 'v' }): KubeObject => ({
  ...CM,
  metadata: { name, namespace },
  data,
});

async function namespace(base: string): Promise<string> {
  const name = `${base}${listMode.suffix}`;
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/** The watcher config of the current list mode. */
const fast = (): WatcherOptions =>
  listMode.streamingLists === undefined ? FAST : { ...FAST, streamingLists: listMode.streamingLists };

function watch(ns: string, options: WatcherOptions = {}): Run {
  const run = runWatch((health) => watcher(client, CM, { ...fast(), ...options, namespace: ns, health }));
  runs.push(run);
  return run;
}

/**
 * Waits until the Store holds exactly the server's objects of `ns`, at their latest RVs (read once:
 * call it when the writes are done).
 */
async function converged(run: Run, ns: string, what = 'the Store to equal the server'): Promise<void> {
  const want = await serverState(cluster, 'configmaps', ns);
  return run.until(what, () => run.store.ready && sameState(storeState(run.store, ns), want));
}

/**
 * Counts LIST requests of ConfigMaps in `ns` from now on: a zero-delay rule on the embedded server
 * (which counts delays), `apiserver_request_total{verb="LIST"}` on a real one (read it before
 * anything else lists ConfigMaps: the admin's reads count there too).
 */
async function countLists(ns: string): Promise<() => Promise<number>> {
  if (cluster.apiServer !== undefined) {
    const server = cluster.apiServer;
    const before = server.faults.counts.requestsDelayed;
    server.faults.delay({
      ms: 0,
      method: 'GET',
      path: new RegExp(`/namespaces/${ns}/configmaps\\?.*limit=`),
    });
    return () => Promise.resolve(server.faults.counts.requestsDelayed - before);
  }
  const lists = () =>
    metricSum(cluster, 'apiserver_request_total', {
      verb: 'LIST',
      resource: 'configmaps',
      scope: 'namespace',
    });
  const before = await lists();
  return async () => (await lists()) - before;
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

describeEachBackend(
  'watcher over HTTP',
  (b) => {
    beforeAll(() => {
      cluster = b.cluster;
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterEach(() => {
      for (const r of runs.splice(0)) r.stop();
      if (b.name === 'embedded') b.apiServer.faults.reset();
    });
    afterAll(() => {
      client.close();
    });

    for (const mode of LIST_MODES) {
      describe(`initial lists: ${mode.name}`, () => {
        beforeAll(() => {
          listMode = mode;
        });
        /** Whether this watcher's lists are streamed here (1.24, the real tier, refuses them). */
        const streams = (): boolean => b.name === 'embedded' && mode.streamingLists !== false;

        it('lists more than one page (limit 500, continue), then watches: one Init…InitDone', async () => {
          const ns = await namespace('w-paged');
          const names = Array.from({ length: 1_203 }, (_, i) => `cm-${String(i).padStart(4, '0')}`);
          for (let i = 0; i < names.length; i += 50) {
            await Promise.all(names.slice(i, i + 50).map((n) => client.create(cm(ns, n))));
          }
          const lists = await countLists(ns);
          const run = watch(ns);
          await run.until('InitDone', () => run.store.ready);
          expect(await lists()).toBe(streams() ? 0 : 3); // 500 + 500 + 203, or one stream
          expect(run.events.filter((e) => e.type === 'InitApply')).toHaveLength(1_203);
          // the first watcher of this client on 1.24: the refused stream's Init, then the pages'
          const fellBack = b.name === 'real' && mode.streamingLists === undefined;
          expect(describeEvents(run.events).filter((e) => !e.startsWith('InitApply'))).toEqual(
            fellBack ? ['Init', 'Init', 'InitDone'] : ['Init', 'InitDone'],
          );
          expect(run.health().initialList).toBe(streams() ? 'streaming' : 'paged');
          expect(sameState(storeState(run.store, ns), await serverState(cluster, 'configmaps', ns))).toBe(
            true,
          );
          await client.create(cm(ns, 'after'));
          await run.until('the live Apply', () => run.store.get(`${ns}/after`) !== undefined);
          expect(run.health().relists).toBe(0);
          run.stop();
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
          const rvs = run.events
            .filter((e) => e.type === 'Apply')
            .map((e) => e.object.metadata.resourceVersion);
          expect(rvs).toEqual([created.metadata?.resourceVersion, updated.metadata?.resourceVersion]);
          expect(run.store.get(`${ns}/a`)?.metadata.resourceVersion).toBe(updated.metadata?.resourceVersion);
          run.stop();
        });

        b.itOn('embedded', 'needs fault injection: dropped watch connections')(
          'resumes after dropped connections from the last RV: no relist, nothing lost, nothing twice',
          async () => {
            const ns = await namespace('w-drop');
            const run = watch(ns);
            await run.until('InitDone', () => run.store.ready);
            for (let round = 0; round < 3; round++) {
              await watchIsOpen(run, ns);
              expect(b.apiServer.faults.dropWatches()).toBeGreaterThan(0);
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
          },
        );

        for (const via of ['expireNextWatch', 'compact'] as const) {
          b.itOn('embedded', 'needs fault injection: a stalled watch that misses deletes, then an expiry')(
            `relists on 410 (${via}) and emits Delete for objects deleted while disconnected`,
            async () => {
              const ns = await namespace(`w-gone-${via.toLowerCase()}`);
              for (const n of ['keep', 'gone1', 'gone2', 'changed']) await client.create(cm(ns, n));
              const run = watch(ns);
              await run.until('InitDone', () => run.store.ready);
              await watchIsOpen(run, ns);
              // Stall the open watch so that it misses what follows, then make its resume impossible.
              expect(b.apiServer.faults.stallWatches()).toBeGreaterThan(0);
              await client.delete({ ...CM, namespace: ns, name: 'gone1' });
              await client.delete({ ...CM, namespace: ns, name: 'gone2' });
              await client.patch(
                { ...CM, namespace: ns, name: 'changed' },
                { type: 'merge', body: { data: { k: 'v2' } } },
              );
              await client.create(cm(ns, 'new'));
              const gone410Before = b.apiServer.faults.counts.watchesExpired;
              if (via === 'expireNextWatch') b.apiServer.faults.expireNextWatch();
              else b.apiServer.faults.compact();
              b.apiServer.faults.dropWatches();
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
              if (via === 'expireNextWatch')
                expect(b.apiServer.faults.counts.watchesExpired - gone410Before).toBe(1);
              run.stop();
            },
          );
        }

        b.itOn('embedded', 'needs fault injection: a stalled watch')(
          'detects a stalled watch with the idle timer and resumes from the last RV',
          async () => {
            const ns = await namespace('w-stall');
            const run = watch(ns, { idleTimeoutMs: 400 });
            await run.until('InitDone', () => run.store.ready);
            await client.create(cm(ns, 'before'));
            await run.until('the first Apply', () => run.store.get(`${ns}/before`) !== undefined);
            expect(b.apiServer.faults.stallWatches()).toBeGreaterThan(0);
            await client.create(cm(ns, 'during')); // the stalled stream never sends it
            await run.until('the stall', () => run.health().stalls >= 1);
            await converged(run, ns);
            expect(applies(run, 'during')).toBe(1);
            expect(run.health().relists).toBe(0);
            expect(run.healths.some((h) => h.lastError?.kind === 'stall')).toBe(true);
            run.stop();
          },
        );

        b.itOn('embedded', 'needs fault injection: a watch line cut in the middle')(
          'resumes from the last good RV after a line cut in the middle',
          async () => {
            const ns = await namespace('w-cut');
            const run = watch(ns);
            await run.until('InitDone', () => run.store.ready);
            await watchIsOpen(run, ns);
            const cutBefore = b.apiServer.faults.counts.streamsCut;
            expect(b.apiServer.faults.cutWatchesMidLine()).toBeGreaterThan(0);
            await client.create(cm(ns, 'half')); // its line is cut in half, then the connection dies
            await client.create(cm(ns, 'next'));
            await converged(run, ns);
            expect(b.apiServer.faults.counts.streamsCut - cutBefore).toBeGreaterThan(0);
            expect(applies(run, 'half')).toBe(1);
            expect(applies(run, 'next')).toBe(1);
            expect(run.health().relists).toBe(0);
            expect(run.healths.some((h) => h.lastError !== undefined)).toBe(true);
            run.stop();
          },
        );

        b.itOn('embedded', 'needs fault injection: a whole malformed watch line')(
          'reports a whole malformed line, resumes from the last good RV, and loses nothing',
          async () => {
            const ns = await namespace('w-malformed');
            const run = watch(ns);
            await run.until('InitDone', () => run.store.ready);
            await watchIsOpen(run, ns);
            await client.create(cm(ns, 'before'));
            await run.until('before', () => applies(run, 'before') === 1);
            const linesBefore = b.apiServer.faults.counts.malformedLines;
            expect(b.apiServer.faults.sendMalformedWatchLines()).toBeGreaterThan(0);
            await client.create(cm(ns, 'after'));
            await converged(run, ns);
            expect(b.apiServer.faults.counts.malformedLines - linesBefore).toBeGreaterThan(0);
            expect(run.healths.some((h) => h.malformedLines > 0)).toBe(true);
            expect(applies(run, 'before')).toBe(1);
            expect(applies(run, 'after')).toBe(1);
            expect(run.health().relists).toBe(0);
            run.stop();
          },
        );

        b.itOn('embedded', 'needs fault injection: 429, 500 and 503 answers')(
          'backs off and recovers from 429, 500 and 503 on lists and watches',
          async () => {
            const ns = await namespace('w-5xx');
            // two failed lists, or two streams refused with 429 (retried; a 500 would fall back)
            b.apiServer.faults.failNext({
              status: streams() ? 429 : 500,
              count: 2,
              method: 'GET',
              path: new RegExp(
                `/namespaces/${ns}/configmaps\\?.*${streams() ? 'sendInitialEvents=true' : 'limit='}`,
              ),
              ...(streams() ? { retryAfterSeconds: 0 } : {}),
            });
            const run = watch(ns);
            await run.until('InitDone after two failed lists', () => run.store.ready);
            expect(run.events.filter((e) => e.type === 'Init').length).toBeGreaterThanOrEqual(1);
            await watchIsOpen(run, ns);
            const watchPath = new RegExp(`/namespaces/${ns}/configmaps\\?.*watch=true`);
            b.apiServer.faults.failNext({
              status: 429,
              count: 1,
              method: 'GET',
              path: watchPath,
              retryAfterSeconds: 0,
            });
            b.apiServer.faults.failNext({
              status: 503,
              count: 1,
              method: 'GET',
              path: watchPath,
              retryAfterSeconds: 0,
            });
            b.apiServer.faults.failNext({ status: 500, count: 1, method: 'GET', path: watchPath });
            b.apiServer.faults.dropWatches();
            await client.create(cm(ns, 'late'));
            await converged(run, ns);
            const codes = new Set(run.healths.map((h) => h.lastError?.code).filter((c) => c !== undefined));
            expect([...codes].sort()).toEqual([429, 500, 503]);
            expect(run.health().errors).toBeGreaterThanOrEqual(5); // 2 lists + 3 watches (+ the drop)
            expect(run.healths.some((h) => h.phase === 'backoff' && h.backoffMs > 0)).toBe(true);
            expect(applies(run, 'late')).toBe(1);
            expect(run.health().relists).toBe(0);
            run.stop();
          },
        );

        it('resumes after a server restart; relists only if the server answered 410', async () => {
          const ns = await namespace('w-restart');
          await client.create(cm(ns, 'pre'));
          const run = watch(ns);
          await run.until('InitDone', () => run.store.ready);
          await watchIsOpen(run, ns);
          await restartApiServer(cluster);
          await write(() => client.create(cm(ns, 'post')));
          await write(() => client.delete({ ...CM, namespace: ns, name: 'pre' }));
          await converged(run, ns);
          await watchIsOpen(run, ns);
          expect(run.health().relists).toBe(run.health().gone410s);
          expect(run.health().reconnects + run.health().relists).toBeGreaterThanOrEqual(1);
          expect(run.store.get(`${ns}/pre`)).toBeUndefined();
          run.stop();
        });

        it('relists once on the 410 of a restarted server whose history starts after the watch', async () => {
          const ns = await namespace('w-expired');
          for (const n of ['keep', 'gone', 'changed']) await client.create(cm(ns, n));
          const run = watch(ns);
          await run.until('InitDone', () => run.store.ready);
          await watchIsOpen(run, ns);
          // a write the watch does not see (another namespace): the server's resourceVersion moves past
          // the watcher's, so a real kube-apiserver's new watch cache (from the current revision) no
          // longer holds where the watcher resumes
          await client.create(cm('default', `elsewhere-${ns}`));
          await expireWatches(cluster);
          await write(() => client.delete({ ...CM, namespace: ns, name: 'gone' }));
          await write(() =>
            client.patch(
              { ...CM, namespace: ns, name: 'changed' },
              { type: 'merge', body: { data: { k: 'v2' } } },
            ),
          );
          await write(() => client.create(cm(ns, 'new')));
          await run.until('the relist', () => run.health().relists === 1);
          await converged(run, ns);
          expect(run.health().gone410s).toBe(1);
          expect(run.health().relists).toBe(1);
          expect(run.events.filter((e) => e.type === 'InitDone')).toHaveLength(2);
          expect([...storeState(run.store, ns).keys()].sort()).toEqual(
            ['changed', 'keep', 'new', `probe-${probes}`].map((n) => `${ns}/${n}`).sort(),
          );
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
          const lists = await countLists(ns);
          const watches = (): Promise<number> => openWatches(cluster, 'configmaps', 'namespace');
          const watchesBefore = await watches();
          const phases: string[] = [];
          const registry = new WatchRegistry(client, {
            watcher: fast(),
            health: (t, h) => {
              expect(t.namespace).toBe(ns);
              phases.push(h.phase);
            },
          });
          const target = { resource: CM, namespace: ns };
          const a = runWatch(() => registry.watch(target).events$);
          const b2 = runWatch(() => registry.watch({ resource: CM, namespace: ns }).events$);
          runs.push(a, b2);
          await a.until('InitDone (a)', () => a.store.ready);
          await b2.until('InitDone (b)', () => b2.store.ready);
          await client.create(cm(ns, 's2'));
          await a.until('s2 (a)', () => a.store.get(`${ns}/s2`) !== undefined);
          await b2.until('s2 (b)', () => b2.store.get(`${ns}/s2`) !== undefined);
          // one list page and one watch, for both subscribers
          expect(await lists()).toBe(streams() ? 0 : 1);
          // waited for, not sampled once: the real servers' own kube-system watches re-open now and then
          await waitFor('one upstream watch', async () => (await watches()) - watchesBefore === 1);
          // one upstream watcher: a paged list reports 'listing' once; a stream twice (started, connected)
          expect(phases.filter((p) => p === 'listing')).toHaveLength(streams() ? 2 : 1);
          await converged(a, ns);
          await converged(b2, ns);
          expect(registry.watch(target).store.size).toBe(2);
          expect(describeEvents(b2.events)).toEqual(['Init', 'InitApply s1', 'InitDone', 'Apply s2']);
          a.stop();
          b2.stop();
        });

        it('reports 403 on the health stream and keeps retrying; never an Observable error', async () => {
          await permit(client, {
            user: 'limited',
            verbs: ['list'],
            group: '',
            resources: ['configmaps'],
            namespace: 'default',
          });
          const c = clientAs(cluster, 'limited');
          const run = runWatch((health) => watcher(c, CM, { ...fast(), namespace: 'default', health }));
          try {
            // a streaming list is a watch: refused like the watch, and retried (RBAC says nothing
            // about streaming lists); paged, the list is allowed
            if (mode.streamingLists === false) {
              await run.until('InitDone (list is allowed)', () => run.store.ready);
            }
            await run.until('three forbidden watches', () => run.health().errors >= 3);
            const failure = run.health().lastError;
            expect(failure?.code).toBe(403);
            expect(failure?.reason).toBe('Forbidden');
            expect(failure?.message).toContain('"watch" "configmaps" in namespace "default"');
            expect(run.health().phase).toBe('backoff');
          } finally {
            run.stop();
            c.close();
          }
        });
      });
    }
  },
  {
    // kube-controller-manager would add a kube-root-ca.crt ConfigMap to each new namespace at a
    // moment of its choosing; these tests compare a namespace's ConfigMaps exactly
    controllerManager: false,
    ...users.options,
  },
);
