// The controller's own per-event cost, without the API server, HTTP or JSON: a scripted watch
// (@rxkube/testing's ScriptedWatchRegistry) feeds Apply events of BENCH_KEYS ConfigMaps round-robin,
// BENCH_BATCH per macrotask, through controller() → its Store, triggers, debounce, applier, a
// no-I/O reconcile at concurrency 1, the workqueue metrics observer and tapMetrics (what the Manager
// adds). Reported: CPU (main thread + GC) per event until the last event's reconcile ran.
//
// It is an A/B tool for the event path: BENCH_BASE_DIST=../other-build (a copy of dist/ built
// from another commit, relative to bench/) runs that build alternately with this one, in one
// process each, and prints the ratio. The latency bench (bench/latency.bench.mjs) is the
// end-to-end figure beside client-node.
//
//   node bench/event-path.bench.mjs                                  # after tsc -b
//   BENCH_EVENTS=200000 BENCH_RUNS=5 BENCH_BASE_DIST=../dist-main node bench/event-path.bench.mjs
//   BENCH_CPU_PROF=/tmp/prof BENCH_RUNS=1 node bench/event-path.bench.mjs   # a CPU profile per side
import { fork } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setImmediate, setTimeout } from 'node:timers';

import { envInt, median } from './common.mjs';

const KEYS = envInt('BENCH_KEYS', 10_000);
const EVENTS = envInt('BENCH_EVENTS', 100_000);
const BATCH = envInt('BENCH_BATCH', 50);
const RUNS = envInt('BENCH_RUNS', 3);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function side(dist) {
  const { controller } = await import(`${dist}/index.js`);
  const { ControllerMetrics } = await import(`${dist}/ops/index.js`);
  const { Action } = await import('@rxkube/core');
  const { ScriptedWatchRegistry } = await import('@rxkube/testing/controller');
  const { Subject } = await import('rxjs');
  const events = new Subject();
  const registry = new ScriptedWatchRegistry({ ConfigMap: events });
  const metrics = new ControllerMetrics();
  const cm = (i, rv) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'bench', name: `cm-${i}`, uid: `u-${i}`, resourceVersion: String(rv) },
    data: { v: String(rv) },
  });
  const awaitChange = [Action.awaitChange()];
  let last = -1;
  let done;
  const ctrl = controller({
    for: { apiVersion: 'v1', kind: 'ConfigMap' },
    name: 'bench',
    registry,
    concurrency: 1,
    log: {},
    observer: metrics.observer('bench', { maxConcurrentReconciles: 1 }),
  });
  ctrl
    .run((_request, ctx) => {
      last = Number(ctx.object.data.v);
      if (last === EVENTS + KEYS - 1) done?.();
      return awaitChange;
    })
    .pipe(metrics.tapMetrics('bench'))
    .subscribe();
  events.next({ type: 'Init' });
  for (let i = 0; i < KEYS; i++) events.next({ type: 'InitApply', object: cm(i, i) });
  events.next({ type: 'InitDone' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const finished = new Promise((resolve) => (done = resolve));
  const cpu0 = process.cpuUsage();
  let rv = KEYS;
  const feed = () => {
    for (let n = 0; n < BATCH && rv < EVENTS + KEYS; n++, rv++) {
      events.next({ type: 'Apply', object: cm(rv % KEYS, rv) });
    }
    if (rv < EVENTS + KEYS) setImmediate(feed);
  };
  feed();
  await finished;
  const cpu = process.cpuUsage(cpu0);
  return ((cpu.user + cpu.system) / EVENTS).toFixed(3);
}

if (process.env.BENCH_EVENT_PATH_DIST) {
  const us = await side(process.env.BENCH_EVENT_PATH_DIST);
  if (process.send) process.send(us);
  else console.log(`${us} µs/event`);
  process.exit(0);
} else {
  const builds = {
    rxkube: '../dist',
    ...(process.env.BENCH_BASE_DIST ? { 'rxkube-base': process.env.BENCH_BASE_DIST } : {}),
  };
  console.log(
    `event-path bench: ${EVENTS} events over ${KEYS} keys, ${BATCH} per macrotask; ${cpus().length} cores, ` +
      `Node ${process.version}; load before: ${load()}`,
  );
  const results = {};
  for (let run = 0; run < RUNS; run++) {
    const names = Object.keys(builds);
    for (const name of run % 2 === 0 ? names : names.reverse()) {
      const child = fork(fileURLToPath(import.meta.url), [], {
        env: { ...process.env, BENCH_EVENT_PATH_DIST: builds[name] },
        execArgv: process.env.BENCH_CPU_PROF
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
          : [],
      });
      const us = Number(
        await new Promise((resolve, reject) => {
          child.once('message', resolve);
          child.once('exit', (code) => code !== 0 && reject(new Error(`${name} exited with ${code}`)));
        }),
      );
      (results[name] ??= []).push(us);
      console.log(`  run ${run + 1} ${name.padEnd(11)} CPU ${us.toFixed(2)} µs/event   (load ${load()})`);
    }
  }
  const m = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)]));
  console.log(
    `median: ${Object.entries(m)
      .map(([k, v]) => `${k} ${v.toFixed(2)} µs/event`)
      .join(' · ')}` + (m['rxkube-base'] ? `  (${(m.rxkube / m['rxkube-base']).toFixed(2)}×)` : ''),
  );
  console.log(`load after: ${load()}`);
}
