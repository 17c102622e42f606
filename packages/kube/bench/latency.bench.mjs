// Event → reconcile latency: how long after the API server commits a change the operator's
// reconcile sees it, at a steady rate over many keys, concurrency 1, a no-I/O reconcile —
// rxkube's Manager beside client-node 2.0.1's informer + a 30-line work queue
// (bench/latency-child.mjs), each in its own child process against the same @rxkube/testing
// server, which runs here.
//
// The parent writes BENCH_KEYS ConfigMaps, lets the side list them, then modifies them
// round-robin at each rate of BENCH_RATES events/s for BENCH_SECONDS, straight into the server's
// object store (the watch path — event log, watch sessions, JSON, sockets — is the real one);
// each version carries data.t, the time it was committed (server-side timestamp). The side's
// reconcile records now − data.t. Reported: p50/p99/p99.9 of those, and the side's CPU per event
// handled (main thread + GC, from the first write until its reconcile reads the last write, or a
// time limit: divided by the writes up to the newest its reconcile read, not by those written),
// with client-node's as the ratio's denominator, and how long after the last write it caught up.
//
//   pnpm --filter @rxkube/kube bench                                   # every bench
//   node bench/latency.bench.mjs                                       # this one (after tsc -b)
//   BENCH_RATES=1000,10000 BENCH_KEYS=10000 BENCH_SECONDS=10 BENCH_RUNS=3 node bench/latency.bench.mjs
//   BENCH_SIDES=rxkube BENCH_CPU_PROF=/tmp/prof …                      # a CPU profile of the side
import { fork } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { startApiServer } from '@rxkube/testing';

import { envInt, median, sidesFromEnv } from './common.mjs';
import { engineOf } from './seed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const KEYS = envInt('BENCH_KEYS', 10_000);
const SECONDS = envInt('BENCH_SECONDS', 10);
const RUNS = envInt('BENCH_RUNS', 1);
const RATES = (process.env.BENCH_RATES || '1000,10000').split(',').map(Number);
// BENCH_BASE_DIST=../some-other-build adds a side running that build of rxkube (its dist folder,
// relative to bench/), for an A/B of a change in one run: BENCH_SIDES=rxkube-base,rxkube
const SIDES = sidesFromEnv([
  'client-node',
  'rxkube',
  ...(process.env.BENCH_BASE_DIST ? ['rxkube-base'] : []),
]);
const NS = 'bench';
const now = () => performance.timeOrigin + performance.now();

const server = await startApiServer({
  maxQueuedWatchEvents: 1_000_000,
  watchHistory: 1_000_000,
  bookmarkIntervalMs: 60_000,
});
const { engine, type } = engineOf(server);
const nsType = server.registry.lookup('', 'v1', 'namespaces');
engine.create(
  nsType,
  undefined,
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  { manager: 'bench' },
);
const name = (i) => `cm-${String(i).padStart(5, '0')}`;
for (let i = 0; i < KEYS; i++) {
  engine.create(
    type,
    NS,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: name(i), namespace: NS, labels: { app: `a${i % 50}` } },
      data: { t: '0', v: '0' },
    },
    { manager: 'bench' },
    true,
  );
}

/** Writes `rate` modifications per second for `seconds`, round-robin from key `from`; returns the next key. */
async function drive(rate, seconds, from) {
  const store = engine.store;
  const total = rate * seconds;
  const t0 = performance.now();
  let k = 0;
  while (k < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) * rate) / 1000) + 1);
    for (; k < due; k++) {
      const key = `${NS}/${name((from + k) % KEYS)}`;
      const old = store.get(type.storageKey, key);
      store.update(type.storageKey, key, { ...old, data: { t: String(now()), v: String(from + k) } });
    }
    await sleep(1);
  }
  return from + total;
}

function child(side) {
  const prof = process.env.BENCH_CPU_PROF;
  const proc = fork(join(here, 'latency-child.mjs'), [], {
    env: { ...process.env, BENCH_LATENCY_SIDE: side, BENCH_KUBECONFIG: server.kubeconfigPath },
    execArgv: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
  });
  const waiters = [];
  proc.on('message', (m) => waiters.shift()?.(m));
  proc.on('exit', (code) => {
    if (code !== 0 && code !== null) for (const w of waiters.splice(0)) w({ type: 'exit', code });
  });
  const next = () => new Promise((resolve) => waiters.push(resolve));
  const ask = (type) => {
    const p = next();
    proc.send({ type });
    return p;
  };
  return { proc, next, ask };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

async function runSide(side, rate, from) {
  const c = child(side);
  if ((await c.next()).type !== 'ready') throw new Error(`${side} did not start`);
  for (let i = 0; ; i++) {
    const m = await c.ask('cached');
    if (m.n >= KEYS) break;
    if (i > 6000) throw new Error(`${side}: cache holds ${m.n} of ${KEYS} after 60 s`);
    await sleep(10);
  }
  await sleep(200); // the initial reconciles settle
  await c.ask('begin');
  const next = await drive(rate, SECONDS, from);
  const written = performance.now();
  const ended = c.next();
  // the window ends when the side's reconcile reads the last write (v = next − 1), or after 30 s
  c.proc.send({ type: 'end', last: next - 1, limitMs: 30_000 });
  const result = await ended;
  const lagMs = performance.now() - written;
  const exited = new Promise((resolve) => c.proc.once('exit', resolve));
  c.proc.send({ type: 'stop' });
  await exited;
  const sorted = Float64Array.from(result.samples).sort();
  const handled = Math.max(0, result.newest - from + 1);
  return {
    next,
    events: rate * SECONDS,
    handled,
    caughtUp: result.caughtUp,
    lagMs,
    reconciles: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    p999: quantile(sorted, 0.999),
    cpuUsPerEvent: (result.cpuMs * 1000) / handled,
  };
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
console.log(
  `latency bench: ${KEYS} keys, ${SECONDS} s per rate, concurrency 1, no-I/O reconcile; ` +
    `${cpus().length} cores, Node ${process.version}; load before: ${load()}`,
);
let from = 0;
const results = {};
for (let run = 0; run < RUNS; run++) {
  for (const rate of RATES) {
    // alternate which side goes first, so neither always meets the warmer (or busier) machine
    const order = run % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) {
      const r = await runSide(side, rate, from);
      from = r.next;
      (results[`${rate}`] ??= {})[side] ??= [];
      results[`${rate}`][side].push(r);
      console.log(
        `  run ${run + 1} ${String(rate).padStart(5)}/s ${side.padEnd(11)} handled ${r.handled}/${r.events}` +
          `${r.caughtUp ? '' : ' (fell behind)'}, reconciles ${r.reconciles}, caught up ${r.lagMs.toFixed(0)} ms after  ` +
          `p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  p99.9 ${r.p999.toFixed(2)} ms  ` +
          `CPU ${r.cpuUsPerEvent.toFixed(1)} µs/event   (load ${load()})`,
      );
    }
  }
}
console.log(
  `\nmedians over runs (rxkube ÷ ${SIDES.includes('client-node') ? 'client-node' : 'rxkube-base'}):`,
);
for (const rate of RATES) {
  const m = (side, k) => median((results[`${rate}`][side] ?? []).map((r) => r[k]));
  const row = (k, unit, digits) => {
    const parts = SIDES.map((s) => `${s} ${m(s, k).toFixed(digits)} ${unit}`);
    const base = SIDES.includes('client-node') ? 'client-node' : 'rxkube-base';
    const ratio =
      SIDES.includes('rxkube') && SIDES.includes(base)
        ? `  (${(m('rxkube', k) / m(base, k)).toFixed(2)}×)`
        : '';
    return `${parts.join(' · ')}${ratio}`;
  };
  console.log(`  ${rate}/s  p50: ${row('p50', 'ms', 2)}`);
  console.log(`  ${rate}/s  p99: ${row('p99', 'ms', 2)}`);
  console.log(`  ${rate}/s  p99.9: ${row('p999', 'ms', 2)}`);
  console.log(`  ${rate}/s  CPU per event: ${row('cpuUsPerEvent', 'µs', 1)}`);
}
console.log(`load after: ${load()}`);
await server.stop();
