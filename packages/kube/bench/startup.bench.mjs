// Import + start to the first request: a fresh process imports an entry point, reads the
// kubeconfig and sends its first request (list one namespace's ConfigMaps, limit 1) to an
// @rxkube/testing server running here; reported are that process's CPU (Node's own start
// included) and RSS once the answer is in, medians of BENCH_RUNS processes per entry, entries
// interleaved, as ratios to client-node 2.0.1 (CoreV1Api) in the same run. A bare `node` that
// does nothing is measured too, so the libraries' own share can be read off. `rxkube Manager`
// imports the root entry and also constructs a Manager (its logger and metrics load pino and
// prom-client, which the root entry alone no longer loads).
//
//   node bench/startup.bench.mjs            # after tsc -b
//   BENCH_RUNS=15 node bench/startup.bench.mjs
import { fork, spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { startApiServer } from '@rxkube/testing';

import { envInt, MB, median } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const RUNS = envInt('BENCH_RUNS', 9);
const ENTRIES = ['client-node', 'root', 'watch', 'manager', 'node'];
const server = await startApiServer();

function measure(entry) {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'startup-child.mjs'), [], {
      env: { ...process.env, BENCH_STARTUP_ENTRY: entry, BENCH_KUBECONFIG: server.kubeconfigPath },
    });
    child.once('message', resolve);
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${entry} exited with ${code}`));
    });
  });
}

/** A process that only starts Node and reports: the floor every entry pays. */
function bare() {
  const code =
    "import { readFileSync } from 'node:fs'; const c = process.cpuUsage(); " +
    "const hwm = Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024; " +
    'process.send({ cpuMs: (c.user + c.system) / 1000, rss: process.memoryUsage.rss(), peakRss: hwm }, () => process.exit(0));';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', resolve);
    child.once('error', reject);
  });
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
console.log(
  `startup bench: ${RUNS} processes per entry, interleaved; ${cpus().length} cores, Node ${process.version}; load before: ${load()}`,
);
const results = Object.fromEntries(ENTRIES.map((e) => [e, []]));
for (let run = 0; run < RUNS; run++) {
  for (const entry of ENTRIES) results[entry].push(entry === 'node' ? await bare() : await measure(entry));
}
await server.stop();
const m = (entry, k) => median(results[entry].map((r) => r[k]));
const base = (k) => m('client-node', k);
console.log('entry          CPU ms  (÷ client-node)   RSS MB  (÷ client-node)   peak RSS MB');
for (const entry of ENTRIES) {
  const name =
    entry === 'node'
      ? 'bare node'
      : entry === 'client-node'
        ? 'client-node'
        : entry === 'manager'
          ? 'rxkube Manager'
          : `rxkube ${entry === 'root' ? '.' : './watch'}`;
  console.log(
    `${name.padEnd(14)} ${m(entry, 'cpuMs').toFixed(0).padStart(6)}  (${(m(entry, 'cpuMs') / base('cpuMs')).toFixed(2)}×)` +
      `          ${(m(entry, 'rss') / MB).toFixed(0).padStart(4)}    (${(m(entry, 'rss') / base('rss')).toFixed(2)}×)` +
      `           ${(m(entry, 'peakRss') / MB).toFixed(0).padStart(4)}`,
  );
}
console.log(`load after: ${load()}`);
