/**
 * The acceptance test of issue 4 (docs/promises.md promises 1, 2, 6): churn 2,000 ConfigMaps across four
 * namespaces with concurrent writers while the server drops, stalls, expires (410), compacts,
 * rejects (429/500), cuts lines and restarts (embedded server), or while a real kube-apiserver
 * restarts (both backends). At quiescence the Store must equal the server exactly (same keys,
 * latest resourceVersion each), and every relist must be explained by a 410 the server sent. The
 * outcome is asserted, not the timing: faults land wherever the watcher happens to be.
 */
import type { ApiServer } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { tap } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { restartApiServer } from '../client/backends.test.helper.js';
import { KubeClient } from '../client/kube-client.js';
import { listWatchSource } from './list-watch-source.js';
import { isConflict, isGone, isNotFound, KubeApiError, KubeTransportError } from '../errors.js';
import type { KubeObject } from '../types.js';
import type { ListWatchSource } from './source.js';
import { watcher } from './watcher.js';
import type { Run } from './watch-harness.test.helper.js';
import { CM, FAST, runWatch, sameState, serverState, storeState } from './watch-harness.test.helper.js';

const OBJECTS = 2_000;
const NAMESPACES = ['rel-a', 'rel-b', 'rel-c', 'rel-d'];
const WRITERS = 16;

let client: KubeClient;

/** Deterministic PRNG (mulberry32), so every run churns the same operations. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Op =
  | { readonly type: 'create'; readonly ns: string; readonly name: string }
  | { readonly type: 'update'; readonly ns: string; readonly name: string; readonly value: string }
  | { readonly type: 'delete'; readonly ns: string; readonly name: string };

/** 2,000 creates interleaved with updates and deletes of live objects (some names recreated). */
function churn(): Op[] {
  const random = prng(4);
  const ops: Op[] = [];
  const live: { ns: string; name: string }[] = [];
  const deleted: { ns: string; name: string }[] = [];
  let created = 0;
  while (created < OBJECTS || ops.length < 5_000) {
    const r = random();
    if (created < OBJECTS && (r < 0.5 || live.length === 0)) {
      const reuse = deleted.length > 0 && random() < 0.1;
      const o = reuse
        ? deleted.splice(Math.floor(random() * deleted.length), 1)[0]!
        : { ns: NAMESPACES[created % NAMESPACES.length]!, name: `obj-${created}` };
      created++;
      live.push(o);
      ops.push({ type: 'create', ...o });
    } else if (live.length > 0 && r < 0.85) {
      const o = live[Math.floor(random() * live.length)]!;
      ops.push({ type: 'update', ...o, value: String(ops.length) });
    } else if (live.length > 0) {
      const o = live.splice(Math.floor(random() * live.length), 1)[0]!;
      deleted.push(o);
      ops.push({ type: 'delete', ...o });
    } else {
      break;
    }
  }
  return ops;
}

/**
 * One write; a stale keep-alive socket after the restart is retried at once. Races between
 * concurrent writers on one key (update of a key being deleted, a create whose first attempt did
 * land) are part of the churn: 404 and 409 are accepted — the assertion is against the server.
 */
async function perform(op: Op): Promise<void> {
  const ref = { ...CM, namespace: op.ns, name: op.name };
  for (let attempt = 1; ; attempt++) {
    try {
      if (op.type === 'create') {
        await client.create({ ...CM, metadata: { namespace: op.ns, name: op.name }, data: { v: '0' } });
      } else if (op.type === 'update') {
        await client.patch(ref, { type: 'merge', body: { data: { v: op.value } } });
      } else {
        await client.delete(ref);
      }
      return;
    } catch (e) {
      if (isNotFound(e) || isConflict(e) || (e instanceof KubeApiError && e.code === 409)) return;
      if (!(e instanceof KubeTransportError) || attempt >= 5) throw e;
    }
  }
}

async function writeAll(ops: readonly Op[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < ops.length) await perform(ops[next++]!);
  };
  await Promise.all(Array.from({ length: WRITERS }, worker));
}

/** The port, counting every 410 the server sent (HTTP 410 on a list/watch, or an ERROR 410 line). */
function counting<T extends KubeObject>(
  source: ListWatchSource<T>,
  gone: { count: number },
): ListWatchSource<T> {
  return {
    list: (params) =>
      source.list(params).pipe(tap({ error: (e: unknown) => void (isGone(e) && gone.count++) })),
    watch: (params) =>
      source.watch(params).pipe(
        tap({
          next: (e) => void (e.type === 'ERROR' && e.object.code === 410 && gone.count++),
          error: (e: unknown) => void (isGone(e) && gone.count++),
        }),
      ),
  };
}

let probes = 0;
/**
 * Writes probes until one arrives as a live `Apply` (one that lands in a relist arrives as
 * `InitApply` instead): the watch request is then open on the server and caught up.
 */
async function watchIsOpen(run: Run): Promise<void> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const name = `probe-${++probes}`;
    await perform({ type: 'create', ns: 'rel-probe', name });
    await run.until(`${name} in the Store`, () => run.store.get(`rel-probe/${name}`) !== undefined);
    if (run.events.some((e) => e.type === 'Apply' && e.object.metadata.name === name)) return;
  }
  throw new Error('no probe arrived as a live Apply in 5 attempts');
}

let gaps = 0;
/** Stalls the open watch and writes past it, so that its resourceVersion falls behind. */
async function behind(server: ApiServer): Promise<void> {
  server.faults.stallWatches();
  for (let i = 0; i < 5; i++) await perform({ type: 'create', ns: 'rel-probe', name: `gap-${++gaps}` });
}

describeEachBackend(
  'a watcher under churn',
  (b) => {
    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      for (const name of [...NAMESPACES, 'rel-probe']) {
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      }
    });
    afterAll(() => {
      client.close();
    });

    b.itOn('embedded', 'needs fault injection: drops, stalls, 410s, 429/500s, cut lines, compaction')(
      'converges to the server state exactly through drops, stalls, 410s, 429/500s, cut lines and a restart',
      async () => {
        const server = b.apiServer;
        const gone = { count: 0 };
        const run = runWatch((health) =>
          // exactly watcher(client, CM, config): watcher over listWatchSource, with a 410 counter in between
          watcher(counting(listWatchSource(client, CM), gone), { ...FAST, idleTimeoutMs: 300, health }),
        );
        try {
          await run.until('InitDone', () => run.store.ready);
          const ops = churn();
          const faults: [string, () => void | Promise<void>][] = [
            ['drop', () => void server.faults.dropWatches()],
            ['stall', () => void server.faults.stallWatches()],
            [
              '410 (expired watch)',
              () => (server.faults.expireNextWatch(), void server.faults.dropWatches()),
            ],
            [
              '429 + 500 on watches, 500 on a list page',
              () => {
                const watch = /\/configmaps\?.*watch=true/;
                server.faults.failNext({
                  status: 429,
                  count: 2,
                  method: 'GET',
                  path: watch,
                  retryAfterSeconds: 0,
                });
                server.faults.failNext({ status: 500, count: 2, method: 'GET', path: watch });
                server.faults.failNext({
                  status: 500,
                  count: 1,
                  method: 'GET',
                  path: /\/configmaps\?.*limit=/,
                });
                server.faults.expireNextWatch();
                server.faults.dropWatches();
              },
            ],
            ['cut mid-line', () => void server.faults.cutWatchesMidLine()],
            // stall first and write, so that the watcher is behind when history goes: its resume gets 410
            [
              '410 (compaction)',
              async () => (await behind(server), server.faults.compact(), void server.faults.dropWatches()),
            ],
            ['restart', async () => (await behind(server), await server.restart())],
            ['drop again', () => void server.faults.dropWatches()],
          ];
          const phase = Math.ceil(ops.length / faults.length);
          for (let i = 0; i < faults.length; i++) {
            await watchIsOpen(run); // so that the fault hits an open watch
            await faults[i]![1]();
            await writeAll(ops.slice(i * phase, (i + 1) * phase));
            if (i === 1) await run.until('the stall to be detected', () => run.health().stalls >= 1);
          }
          server.faults.reset();

          const finalState = await serverState(b.cluster, 'configmaps');
          await run.until(
            'the Store to equal the server (quiescence)',
            () => sameState(storeState(run.store), finalState),
            30_000,
          );
          const h = run.health();
          expect(run.store.size).toBe(finalState.size);
          expect(storeState(run.store)).toEqual(await serverState(b.cluster, 'configmaps'));
          // every relist is explained by a 410 the server sent, and every 410 led to one relist
          expect(h.relists).toBe(gone.count);
          expect(h.gone410s).toBe(gone.count);
          // one completed list at start, one per relist (a list failing midway restarts with a new Init
          // but completes once)
          expect(run.events.filter((e) => e.type === 'InitDone')).toHaveLength(1 + h.relists);
          // the injected expiries were all consumed, and each is one of the counted 410s
          expect(server.faults.counts.watchesExpired).toBe(2);
          expect(gone.count).toBeGreaterThanOrEqual(2);
          // every fault kind actually happened
          const c = server.faults.counts;
          expect(c.watchesDropped).toBeGreaterThanOrEqual(4);
          expect(c.watchesStalled).toBeGreaterThanOrEqual(1);
          expect(c.injectedErrors).toBe(5);
          expect(c.streamsCut).toBeGreaterThanOrEqual(1);
          expect(c.compactions).toBe(1);
          expect(c.restarts).toBe(1);
          expect(h.stalls).toBeGreaterThanOrEqual(1);
          expect(h.errors).toBeGreaterThanOrEqual(5);
          console.info(
            `reliability: ${ops.length} writes, ${h.relists} relists (= ${gone.count} 410s), ${h.reconnects} reconnects, ` +
              `${h.errors} errors, ${h.stalls} stalls, ${h.malformedLines} malformed lines; ${run.store.size} objects`,
          );
        } finally {
          run.stop();
        }
      },
      60_000,
    );

    it('converges to the server state exactly through API server restarts', async () => {
      const gone = { count: 0 };
      const run = runWatch((health) =>
        watcher(counting(listWatchSource(client, CM), gone), { ...FAST, health }),
      );
      try {
        await run.until('InitDone', () => run.store.ready);
        const ops = churn();
        const phases = 4; // write, restart, write, restart, write, restart, write
        const phase = Math.ceil(ops.length / phases);
        for (let i = 0; i < phases; i++) {
          if (i > 0) {
            await watchIsOpen(run); // so that the restart ends an open watch
            // a write the watcher does not see (a Secret): on a real server the restarted watch
            // cache then starts after the watcher's resourceVersion, so its resume gets 410
            await client.create({
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { namespace: 'rel-probe', name: `restart-${i}` },
            });
            await restartApiServer(b.cluster);
          }
          await writeAll(ops.slice(i * phase, (i + 1) * phase));
        }
        const finalState = await serverState(b.cluster, 'configmaps');
        await run.until(
          'the Store to equal the server (quiescence)',
          () => sameState(storeState(run.store), finalState),
          60_000,
        );
        const h = run.health();
        expect(storeState(run.store)).toEqual(finalState);
        // every relist is explained by a 410 the server sent, and every 410 led to one relist
        expect(h.relists).toBe(gone.count);
        expect(h.gone410s).toBe(gone.count);
        expect(run.events.filter((e) => e.type === 'InitDone')).toHaveLength(1 + h.relists);
        expect(h.reconnects + h.relists).toBeGreaterThanOrEqual(phases - 1);
        console.info(
          `reliability [${b.name}]: ${ops.length} writes, ${phases - 1} restarts, ${h.relists} relists (= ${gone.count} 410s), ` +
            `${h.reconnects} reconnects, ${h.errors} errors; ${run.store.size} objects`,
        );
      } finally {
        run.stop();
      }
    }, 180_000);
  },
  // kube-controller-manager would write kube-root-ca.crt ConfigMaps while the churn runs
  { controllerManager: false },
);
