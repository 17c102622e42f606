// Relist benchmark (issue 21): BENCH_OBJECTS ConfigMaps cached, then a 410 makes each side list
// everything again. Reported per side: the RSS once synced (steady), the peak RSS during the relist
// (the kernel's high-water mark, reset once synced) and the RSS after it — for @kubernetes/client-node's
// informer, rxkube's watcher + Store with a streaming relist (WatchList) and with a paged one. The
// API server (@rxkube/testing) runs in this process, each side in its own child (fresh heap).
//
//   pnpm --filter @rxkube/kube bench:relist                  # 100,000 objects
//   BENCH_OBJECTS=10000 BENCH_RUNS=3 BENCH_SIDES=client-node,rxkube-streaming pnpm --filter @rxkube/kube bench:relist
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { startApiServer } from '@rxkube/testing';

import { envInt, f0, MB, median, sidesFromEnv } from './common.mjs';
import { seed } from './seed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const OBJECTS = envInt('BENCH_OBJECTS', 100_000);
const RUNS = envInt('BENCH_RUNS', 1);
const SIDES = sidesFromEnv(['client-node', 'rxkube-streaming', 'rxkube-paged']);
const NAMESPACE = 'bench';

const server = await startApiServer({ bookmarkIntervalMs: 60_000, logger: { error: () => undefined } });

async function runSide(side) {
  while (server.openWatches > 0) await sleep(5);
  const child = fork(join(here, 'relist', 'child.mjs'), [], {
    execArgv: ['--expose-gc'],
    env: {
      ...process.env,
      BENCH_SIDE: side,
      BENCH_KUBECONFIG: server.kubeconfigPath,
      BENCH_NAMESPACE: NAMESPACE,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.on('message', (m) => {
      if (m.type === 'synced') {
        void (async () => {
          while (server.openWatches < 1) await sleep(1);
          // the open watch gets 410 Expired and ends cleanly (an etcd compaction): relist
          server.faults.expireOpenWatches();
        })();
      } else if (m.type === 'result') resolve(m);
      else if (m.type === 'failed') reject(new Error(`${side}: ${m.error}`));
    });
    child.on('exit', (code) => reject(new Error(`${side}: exited with ${String(code)} before reporting`)));
  });
}

const f1 = (x) => (x / MB).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
try {
  await seed(server, NAMESPACE, OBJECTS);
  const runs = Object.fromEntries(SIDES.map((s) => [s, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const side of SIDES) {
      const res = await runSide(side);
      if (res.size !== OBJECTS) throw new Error(`${side}: ${res.size} objects cached, want ${OBJECTS}`);
      runs[side].push(res);
      console.log(
        `run ${r + 1} ${side}: steady ${f1(res.steadyRss)} MB, relist peak ${f1(res.peakRss)} MB, after ${f1(res.afterRss)} MB`,
      );
    }
  }
  const rows = SIDES.map((side) => {
    const m = (k) => median(runs[side].map((x) => x[k]));
    return { side, steady: m('steadyRss'), peak: m('peakRss'), after: m('afterRss') };
  });
  const cn = rows.find((x) => x.side === 'client-node');
  const ratio = (x, k) => (cn ? ` (${(x[k] / cn[k]).toFixed(2)}×)` : '');
  console.log(
    `\n${f0(OBJECTS)} ConfigMaps, relist after a 410, median of ${RUNS} run(s), Node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}:\n`,
  );
  console.log('| side | steady RSS | relist peak RSS | RSS after |');
  console.log('| --- | --- | --- | --- |');
  for (const x of rows) {
    console.log(
      `| ${x.side} | ${f1(x.steady)} MB${ratio(x, 'steady')} | ${f1(x.peak)} MB${ratio(x, 'peak')} | ${f1(x.after)} MB${ratio(x, 'after')} |`,
    );
  }
} finally {
  await server.stop();
}
