// Watch-cache benchmark (issue 4): initial sync of BENCH_OBJECTS ConfigMaps, then BENCH_EVENTS
// watch events, for (a) rxkube's watcher + Store, (b) @kubernetes/client-node's makeInformer and
// (c) a raw floor (node:http, line split, JSON.parse, a Map). The API server (@rxkube/testing) runs
// in this process; each side runs in its own child process (fresh heap, its own CPU accounting).
//
//   pnpm --filter @rxkube/kube bench                         # 100,000 objects, 200,000 events
//   BENCH_OBJECTS=10000 BENCH_EVENTS=20000 pnpm --filter @rxkube/kube bench
//   BENCH_SIDES=rxkube,floor BENCH_RUNS=2 …                  # subset / repetitions (median reported)
//   BENCH_CPU_PROF=1 …                                       # children write .cpuprofile files (to the temp dir)
import { fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { startApiServer } from '@rxkube/testing';

import { envInt, f0, MB, median, sidesFromEnv } from './common.mjs';

import { digest, modify, seed } from './seed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const OBJECTS = envInt('BENCH_OBJECTS', 100_000);
const EVENTS = envInt('BENCH_EVENTS', 200_000);
const RUNS = envInt('BENCH_RUNS', 1);
const ALL_SIDES = ['floor', 'client-node', 'rxkube'];
const SIDES = sidesFromEnv(ALL_SIDES);
const CPU_PROF = process.env.BENCH_CPU_PROF === '1';
const NAMESPACE = 'bench';
const TIMEOUT_MS = envInt('BENCH_TIMEOUT_MS', 15 * 60_000);

const server = await startApiServer({
  maxQueuedWatchEvents: EVENTS + 1000,
  watchHistory: 20_000,
  bookmarkIntervalMs: 60_000,
});
let revision = 1;

async function runSide(side) {
  while (server.openWatches > 0) await sleep(5); // the previous side's watch is gone
  const execArgv = ['--expose-gc'];
  if (CPU_PROF) {
    const dir = join(tmpdir(), 'rxkube-bench-profiles');
    mkdirSync(dir, { recursive: true });
    console.log(`${side}: CPU profile in ${dir}`);
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${side}-${Date.now()}.cpuprofile`);
  }
  const child = fork(join(here, 'sides', `${side}.mjs`), [], {
    execArgv,
    env: {
      ...process.env,
      BENCH_URL: server.url,
      BENCH_TOKEN: server.token,
      BENCH_KUBECONFIG: server.kubeconfigPath,
      BENCH_NAMESPACE: NAMESPACE,
      BENCH_EVENTS: String(EVENTS),
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
          while (server.openWatches < 1) await sleep(1); // its watch is open: no event is replayed
          const t = performance.now();
          await modify(server, NAMESPACE, OBJECTS, EVENTS, revision);
          revision += EVENTS;
          const end = performance.now();
          return { writerMs: end - t, writerEndAt: performance.timeOrigin + end };
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
  const { writerMs, writerEndAt } = producer ? await producer : { writerMs: NaN, writerEndAt: NaN };
  const expected = digest(server, NAMESPACE);
  if (result.size !== expected.objects || result.rvSum !== expected.rvSum) {
    throw new Error(
      `${side}: cache differs from the server (objects ${result.size} vs ${expected.objects}, ` +
        `resourceVersion sum ${result.rvSum} vs ${expected.rvSum})`,
    );
  }
  // how far behind the writer the client was: its last event after the server's last write
  return { ...result, producerMs: writerMs, lagMs: Math.max(0, result.lastEventAt - writerEndAt) };
}

const f1 = (x) => x.toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const ratio = (x, base) => (base === undefined || !Number.isFinite(base) ? '—' : `${(x / base).toFixed(2)}×`);

try {
  let t = performance.now();
  await seed(server, NAMESPACE, OBJECTS);
  console.log(
    `seeded ${f0(OBJECTS)} ConfigMaps in ${f0(performance.now() - t)} ms; each ~${f0(
      JSON.stringify(server.object('configmaps', NAMESPACE, 'app-config-000000')).length,
    )} bytes of JSON; ${f0(EVENTS)} modifications per side; Node ${process.version}`,
  );
  const runs = Object.fromEntries(SIDES.map((s) => [s, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const side of SIDES) {
      t = performance.now();
      const res = await runSide(side);
      runs[side].push(res);
      console.log(
        `run ${r + 1} ${side}: sync ${f0(res.syncMs)} ms, last event ${f0(res.lastEventMs)} ms ` +
          `(events ${f0(res.eventsMs)} ms, writer ${f0(res.producerMs)} ms, lag ${f0(res.lagMs)} ms), CPU ${f0(res.cpuMs)} ms ` +
          `(sync ${f0(res.cpuSyncMs)}), peak RSS ${f1(res.peakRss / MB)} MB (baseline ${f1(res.baselineRss / MB)}), ` +
          `heap/object ${f0(res.retainedHeap / OBJECTS)} B${res.extra ? ` ${JSON.stringify(res.extra)}` : ''}`,
      );
    }
  }
  const rows = SIDES.map((side) => {
    const rs = runs[side];
    const m = (k) => median(rs.map((x) => x[k]));
    return {
      side,
      syncMs: m('syncMs'),
      lastEventMs: m('lastEventMs'),
      eventsMs: m('eventsMs'),
      lagMs: m('lagMs'),
      cpuMs: m('cpuMs'),
      cpuSyncMs: m('cpuSyncMs'),
      peakRss: m('peakRss'),
      heapPerObject: m('retainedHeap') / OBJECTS,
    };
  });
  const floor = rows.find((r) => r.side === 'floor');
  const cn = rows.find((r) => r.side === 'client-node');
  const metrics = [
    ['time to InitDone (synced)', 'syncMs', (x) => `${f0(x)} ms`],
    ['time to the last event', 'lastEventMs', (x) => `${f0(x)} ms`],
    ['  of which first→last event', 'eventsMs', (x) => `${f0(x)} ms`],
    ['  last event after the last write (lag)', 'lagMs', (x) => `${f0(x)} ms`],
    ['CPU time (user+system)', 'cpuMs', (x) => `${f0(x)} ms`],
    ['  of which initial sync', 'cpuSyncMs', (x) => `${f0(x)} ms`],
    ['peak RSS (VmHWM)', 'peakRss', (x) => `${f1(x / MB)} MB`],
    ['retained heap per cached object', 'heapPerObject', (x) => `${f0(x)} B`],
  ];
  const head = ['measurement', ...rows.map((r) => r.side)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`];
  for (const [label, key, fmt] of metrics) {
    lines.push(
      `| ${label} | ${rows
        .map((r) => {
          const parts = [fmt(r[key])];
          if (r.side !== 'floor' && floor) parts.push(`${ratio(r[key], floor[key])} floor`);
          if (r.side === 'rxkube' && cn) parts.push(`${ratio(r[key], cn[key])} client-node`);
          return parts.join(', ');
        })
        .join(' | ')} |`,
    );
  }
  console.log(
    `\n${f0(OBJECTS)} ConfigMaps, ${f0(EVENTS)} watch events, median of ${RUNS} run(s):\n\n${lines.join('\n')}`,
  );
  const rx = rows.find((r) => r.side === 'rxkube');
  if (rx && floor && cn) {
    const check = (ok, what) => console.log(`${ok ? 'met    ' : 'MISSED '} ${what}`);
    console.log('');
    check(rx.cpuMs <= 1.1 * floor.cpuMs, `CPU ≤ 1.1× floor (${ratio(rx.cpuMs, floor.cpuMs)})`);
    check(rx.cpuMs <= cn.cpuMs, `CPU ≤ client-node (${ratio(rx.cpuMs, cn.cpuMs)})`);
    check(rx.peakRss <= 0.75 * cn.peakRss, `peak RSS ≤ 0.75× client-node (${ratio(rx.peakRss, cn.peakRss)})`);
  }
} finally {
  await server.stop();
}
