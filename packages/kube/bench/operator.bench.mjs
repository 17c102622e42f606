// Operator benchmark: what an operator author gets end to end. The job is a level-triggered
// ConfigMap hasher — keep annotation bench.rxkube.io/hash equal to a hash of `data` (a merge
// patch when it differs, nothing when equal) — written (a) with rxkube's Manager and (b) with
// @kubernetes/client-node's makeInformer and an event handler, each in its own child process
// (bench/operator-child.mjs) against the same @rxkube/testing API server, which runs here and is
// reset between sides.
//
//   Phase 1: BENCH_OBJECTS labelled ConfigMaps in BENCH_NAMESPACES namespaces, none annotated;
//            time until every one carries the right hash.
//   Phase 2: a burst — each object's data written BENCH_BURST times in a row, through the
//            server's merge-patch path, BENCH_BATCH writes per event-loop turn (as fast as the
//            server takes them while it also serves the side); time until every annotation
//            equals the hash of the final data.
//
// Converged means: the server's objects all carry the right hash, the side has received every
// watch event up to the newest of them and has nothing queued or in flight (so nothing can undo
// it), checked every BENCH_POLL_MS; the time is when that state was first seen.
//
//   pnpm --filter @rxkube/kube bench                          # both benches
//   node bench/operator.bench.mjs                             # this one (after tsc -b)
//   BENCH_OBJECTS=2000 BENCH_BURST=10 BENCH_RUNS=3 node bench/operator.bench.mjs
//   BENCH_SIDES=rxkube BENCH_CONCURRENCY=8 BENCH_ORDER=interleaved …
import { Buffer } from 'node:buffer';
import { fork } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { startApiServer } from '@rxkube/testing';

import { envInt, f0, MB, median, sidesFromEnv } from './common.mjs';

import { ANNOTATION, dataHash } from './operator-child.mjs';
import { engineOf } from './seed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const OBJECTS = envInt('BENCH_OBJECTS', 2_000);
const BURST = envInt('BENCH_BURST', 10);
const NAMESPACES = envInt('BENCH_NAMESPACES', 4);
const CONCURRENCY = envInt('BENCH_CONCURRENCY', 8);
const RUNS = envInt('BENCH_RUNS', 1);
const BATCH = envInt('BENCH_BATCH', 100);
const POLL_MS = envInt('BENCH_POLL_MS', 10);
const TIMEOUT_MS = envInt('BENCH_TIMEOUT_MS', 10 * 60_000);
const ORDER = process.env.BENCH_ORDER || 'sequential';
if (ORDER !== 'sequential' && ORDER !== 'interleaved')
  throw new Error(`BENCH_ORDER must be sequential or interleaved, got ${ORDER}`);
const ALL_SIDES = ['client-node', 'rxkube'];
const SIDES = sidesFromEnv(ALL_SIDES);

const writes = OBJECTS * BURST;
const server = await startApiServer({
  // a side that falls behind the burst must not lose its watch: that would measure a relist
  maxQueuedWatchEvents: 4 * writes + 10_000,
  watchHistory: 4 * writes + 10_000,
  bookmarkIntervalMs: 60_000,
});
// The server's idle keep-alive (Node's default, 5 s; @rxkube/testing sets 60 s). client-node 2.0.1
// makes a new undici Agent — a new connection — for every request whenever the kubeconfig has a
// TLS setting (a CA, or insecure-skip-tls-verify as here), and keeps each one open as long as the
// server's Keep-Alive header allows: with 60 s its thousands of PATCHes per burst exhaust the
// server's file descriptors. A real kube-apiserver (Go) sends no Keep-Alive header, so undici
// closes them after its own 4 s; 5 s here is the closest the Node server gets to that.
const KEEPALIVE_MS = envInt('BENCH_KEEPALIVE_MS', 5_000);
const http = server.server;
if (typeof http?.keepAliveTimeout !== 'number')
  throw new Error('bench: @rxkube/testing no longer exposes its http.Server as server.server at runtime');
http.keepAliveTimeout = KEEPALIVE_MS;
const { engine, type } = engineOf(server);
const nsType = server.registry.lookup('', 'v1', 'namespaces');

const pad = (i) => String(i).padStart(6, '0');
const objects = Array.from({ length: OBJECTS }, (_, i) => ({
  namespace: `bench-${i % NAMESPACES}`,
  name: `cm-${pad(i)}`,
  i,
}));
for (const o of objects) o.key = `${o.namespace}/${o.name}`;

function configMap({ namespace, name, i }) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace,
      labels: { bench: 'true', app: `app-${i % 50}`, 'app.kubernetes.io/managed-by': 'kubectl' },
      annotations: { owner: `team-${i % 40}@example.com` },
    },
    data: {
      'application.properties': `server.port=8080\nfeature.flags=a,b,c\ncache.size=${i % 1000}\nlog.level=info\n`,
      endpoint: `https://svc-${i % 500}.${namespace}.svc.cluster.local:8443/api/v1`,
      revision: '0',
    },
  };
}

/** Fresh objects for a side: the previous side's are deleted, then all created again, unannotated. */
async function reset() {
  for (let n = 0; n < NAMESPACES; n++) {
    const name = `bench-${n}`;
    if (!engine.store.get(nsType.storageKey, name)) {
      engine.create(
        nsType,
        undefined,
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        {
          manager: 'kubectl-create',
        },
      );
    }
  }
  for (const o of objects) {
    if (engine.store.get(type.storageKey, o.key)) engine.delete(type, o.namespace, o.name, {}, false);
    engine.create(type, o.namespace, configMap(o), { manager: 'kubectl-client-side-apply' });
    o.revision = '0';
    if (o.i % 1000 === 999) await nextTurn();
  }
}

/**
 * The burst: BURST merge patches of `data.revision` per object, through the server's patch path
 * (validation, managedFields), BATCH per event-loop turn so the server also answers the side.
 */
async function burst(startRevision) {
  let rev = startRevision;
  let n = 0;
  const write = async (o) => {
    rev++;
    o.revision = String(rev);
    const body = Buffer.from(JSON.stringify({ data: { revision: o.revision } }));
    engine.patch(type, o.namespace, o.name, 'application/merge-patch+json', body, {
      manager: 'bench-writer',
      fieldManagerGiven: true,
    });
    if (++n % BATCH === 0) await nextTurn();
  };
  if (ORDER === 'sequential') {
    for (const o of objects) for (let k = 0; k < BURST; k++) await write(o);
  } else {
    for (let k = 0; k < BURST; k++) for (const o of objects) await write(o);
  }
  return rev;
}

/**
 * Whether every object carries the hash of its data, straight from the server's store (no
 * copies; the hash is recomputed only for objects whose resourceVersion moved), and the newest
 * resourceVersion among them.
 */
const seen = new Map();
function scan() {
  let ok = true;
  let maxRv = 0;
  for (const o of objects) {
    const stored = engine.store.get(type.storageKey, o.key);
    const rv = stored.metadata.resourceVersion;
    maxRv = Math.max(maxRv, Number(rv));
    let s = seen.get(o.key);
    if (s?.rv !== rv) {
      s = { rv, ok: stored.metadata.annotations?.[ANNOTATION] === dataHash(stored.data) };
      seen.set(o.key, s);
    }
    if (!s.ok) ok = false;
  }
  return { ok, maxRv };
}

/** Checks the end state through the server's public API: right hash, and the writer's data kept. */
function verify() {
  const byKey = new Map();
  for (let n = 0; n < NAMESPACES; n++) {
    for (const cm of server.objects('configmaps', `bench-${n}`))
      byKey.set(`bench-${n}/${cm.metadata.name}`, cm);
  }
  let wrong = 0;
  for (const o of objects) {
    const cm = byKey.get(o.key);
    if (
      !cm ||
      cm.data?.revision !== o.revision ||
      cm.metadata.annotations?.[ANNOTATION] !== dataHash(cm.data)
    )
      wrong++;
  }
  return wrong;
}

function childOf(side) {
  const child = fork(join(here, 'operator-child.mjs'), [], {
    env: {
      ...process.env,
      BENCH_OPERATOR_SIDE: side,
      BENCH_KUBECONFIG: server.kubeconfigPath,
      BENCH_CONCURRENCY: String(CONCURRENCY),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiters = [];
  let failure;
  const settle = (m) => {
    for (let i = 0; i < waiters.length; i++) {
      const w = waiters[i];
      if (m === undefined || w.match(m)) {
        waiters.splice(i--, 1);
        if (m === undefined) w.reject(failure);
        else w.resolve(m);
      }
    }
  };
  child.on('message', (m) => {
    if (m.type === 'failed') {
      failure = new Error(`${side} failed: ${m.error}`);
      settle(undefined);
    } else settle(m);
  });
  child.on('exit', (code) => {
    failure ??= new Error(`${side}: exited with ${String(code)}`);
    settle(undefined);
  });
  const next = (match) =>
    failure
      ? Promise.reject(failure)
      : new Promise((resolve, reject) => waiters.push({ match, resolve, reject }));
  let ids = 0;
  return {
    next: (type) => next((m) => m.type === type),
    send: (m) => child.send(m),
    status: () => {
      const id = ++ids;
      const reply = next((m) => m.type === 'status' && m.id === id);
      child.send({ type: 'status', id });
      return reply;
    },
    kill: () => child.kill(),
  };
}

/** Resolves with the time the converged state was first seen (see the header). */
async function converge(child, deadline) {
  let okSince;
  for (;;) {
    const { ok, maxRv } = scan();
    if (performance.now() > deadline) {
      const st = await child.status();
      const wrong = objects.filter((o) => !seen.get(o.key)?.ok).length;
      throw new Error(
        `no convergence within ${TIMEOUT_MS} ms: ${wrong} object(s) without the right hash, newest ` +
          `resourceVersion ${maxRv}; the side has seen ${st.maxRv} and is ${st.idle ? 'idle' : 'busy'}; ` +
          `${st.errors} failed write(s)${st.lastError ? `, the last: ${st.lastError}` : ''}`,
      );
    }
    if (!ok) {
      okSince = undefined;
      await sleep(POLL_MS);
      continue;
    }
    okSince ??= performance.now();
    const st = await child.status();
    if (st.idle && st.maxRv >= maxRv) {
      const again = scan();
      if (again.ok && again.maxRv === maxRv) return okSince;
    }
    await sleep(POLL_MS);
  }
}

let revision = 0;
async function runSide(side) {
  while (server.openWatches > 0) await sleep(5); // the previous side's watch is gone
  await reset();
  seen.clear();
  const child = childOf(side);
  const deadline = performance.now() + TIMEOUT_MS;
  try {
    await child.next('ready');
    const t0 = performance.now();
    child.send({ type: 'start' });
    const phase1At = await converge(child, deadline);
    const wrong1 = verify();
    child.send({ type: 'mark' });
    await child.next('marked');
    const burstStart = performance.now();
    revision = await burst(revision);
    const burstEnd = performance.now();
    const phase2At = await converge(child, deadline);
    const wrong2 = verify();
    child.send({ type: 'finish' });
    const { baselineRss, phase1, total } = await child.next('result');
    return {
      phase1Ms: phase1At - t0,
      phase1Calls: phase1.calls,
      phase1Patches: phase1.patches,
      phase1CpuMs: phase1.cpuMs,
      writerMs: burstEnd - burstStart,
      phase2Ms: Math.max(0, phase2At - burstEnd),
      phase2FromStartMs: phase2At - burstStart,
      phase2Calls: total.calls - phase1.calls,
      phase2Patches: total.patches - phase1.patches,
      phase2CpuMs: total.cpuMs - phase1.cpuMs,
      cpuMs: total.cpuMs,
      peakRss: total.peakRss,
      baselineRss,
      errors: total.patchErrors,
      lastError: total.lastError,
      wrong1,
      wrong2,
    };
  } catch (e) {
    child.kill();
    throw e;
  }
}

const ms = (x) =>
  x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${f0(x)} ms`;
const r2 = (x) => x.toFixed(x < 0.1 ? 3 : 2); // ratios: small ones keep a digit that means something
const mb = (x) => `${f0(x / MB)} MB`;

try {
  const cpu = cpus();
  console.log(
    `operator bench: ${f0(OBJECTS)} ConfigMaps in ${NAMESPACES} namespaces, burst ${BURST} writes/object ` +
      `(${f0(writes)}, ${ORDER}, ${BATCH}/turn), concurrency ${CONCURRENCY}, ${RUNS} run(s); ` +
      `server keep-alive ${KEEPALIVE_MS} ms; Node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? '?'}; load ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  const runs = Object.fromEntries(SIDES.map((s) => [s, []]));
  for (let r = 0; r < RUNS; r++) {
    // alternate the order, so neither side always runs on a server that just served the other
    const order = r % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) {
      const x = await runSide(side);
      runs[side].push(x);
      console.log(
        `run ${r + 1} ${side}: phase 1 ${ms(x.phase1Ms)} (${f0(x.phase1Calls)} calls, ${f0(x.phase1Patches)} PATCH, ` +
          `CPU ${ms(x.phase1CpuMs)}); burst written in ${ms(x.writerMs)}; phase 2 ${ms(x.phase2Ms)} after it ` +
          `(${f0(x.phase2Calls)} calls, ${f0(x.phase2Patches)} PATCH, CPU ${ms(x.phase2CpuMs)}); ` +
          `CPU ${ms(x.cpuMs)}, peak RSS ${mb(x.peakRss)} (after imports ${mb(x.baselineRss)}); ` +
          `errors ${x.errors}${x.lastError ? ` (${x.lastError})` : ''}; wrong ${x.wrong1} / ${x.wrong2}`,
      );
    }
  }
  const metrics = [
    ['phase 1: time to convergence', 'phase1Ms', ms],
    ['phase 1: reconciles / handler calls', 'phase1Calls', f0],
    ['phase 1: PATCH requests', 'phase1Patches', f0],
    ['phase 1: CPU time', 'phase1CpuMs', ms],
    [`burst: writer time (${f0(writes)} writes)`, 'writerMs', ms],
    ['phase 2: convergence after the burst ended', 'phase2Ms', ms],
    ['phase 2: convergence from the burst start', 'phase2FromStartMs', ms],
    ['phase 2: reconciles / handler calls', 'phase2Calls', f0],
    ['phase 2: PATCH requests', 'phase2Patches', f0],
    ['phase 2: CPU time', 'phase2CpuMs', ms],
    ['CPU time, total', 'cpuMs', ms],
    ['peak RSS (VmHWM)', 'peakRss', mb],
    ['  RSS after imports', 'baselineRss', mb],
    ['PATCH errors', 'errors', f0],
    ['objects wrong at the end', 'wrong2', f0],
  ];
  const head = ['measurement', ...SIDES];
  const both = SIDES.includes('rxkube') && SIDES.includes('client-node');
  if (both) head.push('rxkube ÷ client-node');
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`];
  for (const [label, key, fmt] of metrics) {
    const cells = SIDES.map((side) => {
      const xs = runs[side].map((x) => x[key]);
      const lo = Math.min(...xs);
      const hi = Math.max(...xs);
      return RUNS > 1 && lo !== hi ? `${fmt(median(xs))} [${fmt(lo)}–${fmt(hi)}]` : fmt(median(xs));
    });
    if (both) {
      // ratio of the medians, and the range of the ratios within each run
      const rx = runs.rxkube.map((x) => x[key]);
      const cn = runs['client-node'].map((x) => x[key]);
      const per = rx.map((x, i) => x / cn[i]).filter(Number.isFinite);
      const m = median(rx) / median(cn);
      cells.push(
        !Number.isFinite(m)
          ? '—'
          : `${r2(m)}×${RUNS > 1 && per.length ? ` [${r2(Math.min(...per))}–${r2(Math.max(...per))}]` : ''}`,
      );
    }
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  console.log(
    `\nmedian of ${RUNS} run(s) [range]:\n\n${lines.join('\n')}\n\nload at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const wrong = SIDES.flatMap((s) => runs[s].filter((x) => x.wrong1 > 0 || x.wrong2 > 0).map(() => s));
  if (wrong.length) {
    console.log(`NOT CONVERGED CORRECTLY: ${wrong.join(', ')}`);
    process.exitCode = 1;
  }
} finally {
  await server.stop();
}
