// One entry point of the startup benchmark (bench/startup.bench.mjs), in a fresh process: import
// it, read the kubeconfig, send the first request (list ConfigMaps of one namespace) and report
// the process's CPU (user + system since the process began, Node's own start included) and RSS
// once the answer is in. Runs only when BENCH_STARTUP_ENTRY is set.
import { readFileSync } from 'node:fs';

const entry = process.env.BENCH_STARTUP_ENTRY;
const kubeconfig = process.env.BENCH_KUBECONFIG;

async function rxkube(specifier) {
  const { KubeClient, loadKubeConfigFile } = await import(specifier);
  const client = KubeClient.fromKubeConfig(loadKubeConfigFile(kubeconfig));
  await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', limit: 1 });
  return () => client.close();
}

/** The root entry as an operator uses it: a Manager made (its logger and metrics load pino and prom-client). */
async function manager() {
  const { KubeClient, Manager, loadKubeConfigFile } = await import('../dist/index.js');
  const client = KubeClient.fromKubeConfig(loadKubeConfigFile(kubeconfig));
  const mgr = new Manager({ client, name: 'bench-startup', logLevel: 'silent' });
  await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', limit: 1 });
  return () => {
    void mgr.stop();
    client.close();
  };
}

async function clientNode() {
  const { CoreV1Api, KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const api = kc.makeApiClient(CoreV1Api);
  await api.listNamespacedConfigMap({ namespace: 'default', limit: 1 });
  return () => undefined;
}

const ENTRIES = {
  root: () => rxkube('../dist/index.js'),
  watch: () => rxkube('../dist/watch.js'),
  manager,
  'client-node': clientNode,
};

function vmHwm() {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : process.memoryUsage.rss();
}

if (entry) {
  const run = ENTRIES[entry];
  if (!run) throw new Error(`bench/startup-child.mjs: unknown entry "${entry}"`);
  const close = await run();
  const cpu = process.cpuUsage();
  const result = { cpuMs: (cpu.user + cpu.system) / 1000, rss: process.memoryUsage.rss(), peakRss: vmHwm() };
  close();
  process.send(result, () => process.exit(0));
}
