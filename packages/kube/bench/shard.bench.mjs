// Shard benchmark (issue 22): what one replica of 1, 2 and 4 (the one of median share) pays to cache and follow the same
// BENCH_OBJECTS ConfigMaps through BENCH_EVENTS modifications, its primary watch filtered to its
// buckets server-side (KEP-5866 shardSelector, the embedded server) or client-side (the same
// hash after parsing: what kube-apiserver before 1.36 leaves to the client); beside one
// unsharded replica (rxkube's watcher + Store) and @kubernetes/client-node's informer, in the same
// run. Each side runs in its own child process (bench/child.mjs: fresh heap, its own CPU); the
// API server runs here, so its filtering is not charged to the replica.
//
//   pnpm --filter @rxkube/kube bench:shard                    # 100,000 objects, 200,000 events
//   BENCH_OBJECTS=20000 BENCH_EVENTS=40000 pnpm --filter @rxkube/kube bench:shard
//   BENCH_SIDES=rxkube,server-4 BENCH_RUNS=3 …                # subset / repetitions (median)
//   BENCH_CPU_PROF=1 …                                       # children write .cpuprofile files (to the temp dir)
//
// server-1 and client-1 are one sharded replica holding every bucket: the sharded watch's own
// cost beside the plain watcher + Store, with the same objects and events.
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { startApiServer } from '@rxkube/testing';

import { assignBuckets, bucketOf } from '../dist/shard/index.js';
import { envInt, f0, MB, median, sidesFromEnv } from './common.mjs';
import { modify, seed } from './seed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const OBJECTS = envInt('BENCH_OBJECTS', 100_000);
const EVENTS = envInt('BENCH_EVENTS', 200_000);
const RUNS = envInt('BENCH_RUNS', 1);
const BUCKETS = 64;
/** side → [script, replicas, filtering] */
const SIDE_DEFS = {
  'client-node': ['client-node.mjs', 1, undefined],
  rxkube: ['rxkube.mjs', 1, undefined],
  'server-1': ['shard.mjs', 1, 'server'],
  'client-1': ['shard.mjs', 1, 'client'],
  'server-2': ['shard.mjs', 2, 'server'],
  'server-4': ['shard.mjs', 4, 'server'],
  'client-2': ['shard.mjs', 2, 'client'],
  'client-4': ['shard.mjs', 4, 'client'],
};
const SIDES = sidesFromEnv(Object.keys(SIDE_DEFS));
const CPU_PROF = process.env.BENCH_CPU_PROF === '1';
const NAMESPACE = 'bench';
const TIMEOUT_MS = envInt('BENCH_TIMEOUT_MS', 15 * 60_000);

const server = await startApiServer({
  maxQueuedWatchEvents: EVENTS + 1000,
  watchHistory: 20_000,
  bookmarkIntervalMs: 60_000,
});
let revision = 1;

/** The names (index i of app-config-i) and the uid buckets of the seeded objects. */
function bucketsOfObjects() {
  const out = new Array(OBJECTS);
  for (const o of server.objects('configmaps', NAMESPACE)) {
    out[Number(o.metadata.name.slice('app-config-'.length))] = bucketOf(o.metadata.uid, BUCKETS);
  }
  return out;
}

/**
 * The replica measured among `replicas` members: the one whose bucket count (as the ring would
 * assign them) is the median, so its share is a typical one; its index and buckets.
 */
function typical(replicas) {
  const members = Array.from({ length: replicas }, (_, i) => `replica-${i}`);
  const owners = assignBuckets(BUCKETS, members);
  const counts = members.map((m, i) => ({ i, buckets: owners.flatMap((o, b) => (o === m ? [b] : [])) }));
  counts.sort((a, b) => a.buckets.length - b.buckets.length || a.i - b.i);
  const pick = counts[(counts.length - 1) >> 1];
  return { index: pick.i, buckets: new Set(pick.buckets) };
}

async function runSide(side, objectBuckets) {
  const [script, replicas, filtering] = SIDE_DEFS[side];
  const { index, buckets } = typical(replicas);
  const isMine = (i) => buckets.has(objectBuckets[i]);
  // modify() writes round-robin: event k touches object k % OBJECTS
  let expectedEvents = 0;
  for (let k = 0; k < EVENTS; k++) if (isMine(k % OBJECTS)) expectedEvents++;
  while (server.openWatches > 0) await sleep(5);
  const execArgv = ['--expose-gc'];
  if (CPU_PROF) {
    const dir = join(tmpdir(), 'rxkube-bench-profiles');
    mkdirSync(dir, { recursive: true });
    console.log(`${side}: CPU profile in ${dir}`);
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${side}-${Date.now()}.cpuprofile`);
  }
  const child = fork(join(here, 'sides', script), [], {
    execArgv,
    env: {
      ...process.env,
      BENCH_URL: server.url,
      BENCH_TOKEN: server.token,
      BENCH_KUBECONFIG: server.kubeconfigPath,
      BENCH_NAMESPACE: NAMESPACE,
      BENCH_EVENTS: String(expectedEvents),
      BENCH_SHARD_REPLICAS: String(replicas),
      BENCH_SHARD_MEMBER: String(index),
      BENCH_SHARD_FILTERING: filtering ?? '',
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let producer;
  const result = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${side}: no result within ${TIMEOUT_MS} ms`));
    }, TIMEOUT_MS);
    child.on('message', (m) => {
      if (m.type === 'synced') {
        producer = (async () => {
          while (server.openWatches < 1) await sleep(1);
          await modify(server, NAMESPACE, OBJECTS, EVENTS, revision);
          revision += EVENTS;
        })();
      } else if (m.type === 'result') {
        clearTimeout(timer);
        resolve(m);
      } else if (m.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${side} failed: ${m.error}`));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${side}: exited with ${String(code)} before reporting`));
    });
  });
  await producer;
  // The replica's cache is exactly its buckets' objects at their last version.
  let objects = 0;
  let rvSum = 0;
  for (const o of server.objects('configmaps', NAMESPACE)) {
    if (!buckets.has(bucketOf(o.metadata.uid, BUCKETS))) continue;
    objects++;
    rvSum += Number(o.metadata.resourceVersion);
  }
  if (result.size !== objects || result.rvSum !== rvSum) {
    throw new Error(
      `${side}: cache differs from its buckets on the server (objects ${result.size} vs ${objects}, rv sum ${result.rvSum} vs ${rvSum})`,
    );
  }
  return { ...result, share: objects / OBJECTS, expectedEvents };
}

const f1 = (x) => x.toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const f2 = (x) => x.toFixed(2);

try {
  const load0 = loadavg();
  let t = performance.now();
  await seed(server, NAMESPACE, OBJECTS);
  console.log(
    `seeded ${f0(OBJECTS)} ConfigMaps in ${f0(performance.now() - t)} ms; ${f0(EVENTS)} modifications per side; ` +
      `Node ${process.version}; load average ${load0.map(f2).join(', ')}`,
  );
  const objectBuckets = bucketsOfObjects();
  const runs = Object.fromEntries(SIDES.map((s) => [s, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const side of SIDES) {
      t = performance.now();
      const res = await runSide(side, objectBuckets);
      runs[side].push(res);
      console.log(
        `run ${r + 1} ${side}: share ${f2(res.share)}, sync ${f0(res.syncMs)} ms, CPU ${f0(res.cpuMs)} ms ` +
          `(sync ${f0(res.cpuSyncMs)}), ${f0(res.events)} events, peak RSS ${f1(res.peakRss / MB)} MB ` +
          `(baseline ${f1(res.baselineRss / MB)}), retained heap ${f1(res.retainedHeap / MB)} MB` +
          (res.extra?.waitsEvents !== undefined
            ? `, waits for input ${f0(res.extra.waitsSync)} in sync, ${f2(res.extra.waitsEvents / res.events)} per event`
            : '') +
          `; load ${loadavg().map(f2).join(', ')}`,
      );
    }
  }
  const rows = SIDES.map((side) => {
    const rs = runs[side];
    const m = (k) => median(rs.map((x) => x[k]));
    return {
      side,
      share: m('share'),
      syncMs: m('syncMs'),
      cpuMs: m('cpuMs'),
      cpuSyncMs: m('cpuSyncMs'),
      peakRss: m('peakRss') - m('baselineRss'),
      heap: m('retainedHeap'),
      events: m('events'),
    };
  });
  const base = rows.find((r) => r.side === 'rxkube');
  const cn = rows.find((r) => r.side === 'client-node');
  const ratio = (x, b) => (b === undefined ? '—' : f2(x / b));
  const lines = [
    '| side | share of objects | time to synced | ingest CPU (sync + events) | peak RSS above baseline | retained cache heap | events handled |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const rel = (k) => (r.side === 'rxkube' || base === undefined ? '' : ` (${ratio(r[k], base[k])}×)`);
    lines.push(
      `| ${r.side} | ${f2(r.share)} | ${f0(r.syncMs)} ms${rel('syncMs')} | ${f0(r.cpuMs)} ms${rel('cpuMs')} | ` +
        `${f1(r.peakRss / MB)} MB${rel('peakRss')} | ${f1(r.heap / MB)} MB${rel('heap')} | ${f0(r.events)} |`,
    );
  }
  const load1 = loadavg();
  console.log(
    `\n${f0(OBJECTS)} ConfigMaps, ${f0(EVENTS)} modifications, the replica of median share among N, median of ${RUNS} run(s); ` +
      `ratios to the unsharded rxkube replica; load average ${load0.map(f2).join(', ')} → ${load1.map(f2).join(', ')}:\n\n${lines.join('\n')}`,
  );
  const check = (ok, what) => console.log(`${ok ? 'met    ' : 'MISSED '} ${what}`);
  const s4 = rows.find((r) => r.side === 'server-4');
  const c4 = rows.find((r) => r.side === 'client-4');
  if (base && s4) {
    console.log('');
    check(
      s4.heap <= 0.3 * base.heap,
      `N = 4 server-side: cache heap ≤ 0.3× one replica's (${ratio(s4.heap, base.heap)}×)`,
    );
    check(
      s4.cpuMs <= 0.3 * base.cpuMs,
      `N = 4 server-side: ingest CPU ≤ 0.3× (${ratio(s4.cpuMs, base.cpuMs)}×)`,
    );
  }
  if (base && c4) {
    check(c4.heap <= 0.3 * base.heap, `N = 4 client-side: cache heap ≤ 0.3× (${ratio(c4.heap, base.heap)}×)`);
    console.log(
      `        N = 4 client-side: ingest CPU ${ratio(c4.cpuMs, base.cpuMs)}× (parses every object)`,
    );
  }
  if (cn && base)
    console.log(
      `        unsharded rxkube vs client-node: CPU ${ratio(base.cpuMs, cn.cpuMs)}×, heap ${ratio(base.heap, cn.heap)}×`,
    );
} finally {
  await server.stop();
}
