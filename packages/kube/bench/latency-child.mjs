// One side of the latency benchmark (bench/latency.bench.mjs), in its own process: a no-I/O
// reconcile of ConfigMaps at concurrency 1, written the way each library's users would write it.
//
//   rxkube       Manager + mgr.add('touch', { for: ConfigMap }, reconcile): the reconcile reads
//                ctx.object (the Store's latest) and returns Action.awaitChange().
//   client-node  makeInformer + on('add' | 'update') → a 30-line work queue (dedup set, FIFO,
//                one worker, as client-go's workqueue does) → a reconcile that reads the
//                informer's cache.
//
// Each reconcile records now − data.t, the time the server committed that version (written by the
// parent on the same machine: performance.timeOrigin + performance.now() is one clock for both),
// and data.v, the version's write number. The watch is ordered, so a reconcile that reads write v
// proves every write up to v was handled: the measured window ends when the reconcile reads the
// last write (or at a time limit), and CPU is divided by the writes handled up to then — a side
// that falls behind is not credited with events it never handled.
// The side only runs when BENCH_LATENCY_SIDE is set.
import { performance } from 'node:perf_hooks';
import { clearTimeout, setImmediate, setTimeout } from 'node:timers';

const now = () => performance.timeOrigin + performance.now();
const cpuMs = (u) => (u.user + u.system) / 1000;

function recorder() {
  let samples = new Float64Array(1 << 16);
  let n = 0;
  let recording = false;
  /** The newest write number a reconcile read; `onLast` runs once it reaches `last`. */
  let newest = -1;
  let last = Infinity;
  let onLast;
  return {
    begin() {
      n = 0;
      newest = -1;
      recording = true;
    },
    /** Resolves once a reconcile read write `lastV`, or after `limitMs`; then stops recording. */
    end(lastV, limitMs) {
      return new Promise((resolve) => {
        const finish = (caughtUp) => {
          clearTimeout(timer);
          onLast = undefined;
          last = Infinity;
          recording = false;
          resolve({ caughtUp, newest, samples: Array.from(samples.subarray(0, n)) });
        };
        const timer = setTimeout(() => finish(false), limitMs);
        if (newest >= lastV) return finish(true);
        last = lastV;
        onLast = () => finish(true);
      });
    },
    record(obj) {
      const t = Number(obj?.data?.t);
      if (!recording || !Number.isFinite(t)) return;
      const v = Number(obj.data.v);
      if (v > newest) newest = v;
      if (n === samples.length) {
        const bigger = new Float64Array(samples.length * 2);
        bigger.set(samples);
        samples = bigger;
      }
      samples[n++] = now() - t;
      if (newest >= last) onLast?.();
    },
  };
}

async function rxkubeSide({ kubeconfigPath, rec, dist = '../dist' }) {
  const { KubeClient, Manager, loadKubeConfigFile } = await import(`${dist}/index.js`);
  const { Action } = await import('@rxkube/core');
  const awaitChange = Action.awaitChange();
  const client = KubeClient.fromKubeConfig(loadKubeConfigFile(kubeconfigPath));
  const mgr = new Manager({ client, name: 'bench-latency', concurrency: 1, logLevel: 'silent' });
  let store;
  mgr.add('touch', { for: { apiVersion: 'v1', kind: 'ConfigMap' } }, (_request, ctx) => {
    store = ctx.store;
    rec.record(ctx.object);
    return [awaitChange];
  });
  await mgr.start();
  return {
    cached: () => store?.list().length ?? 0,
    stop: () => mgr.stop(),
  };
}

async function clientNodeSide({ kubeconfigPath, rec }) {
  const { CoreV1Api, KubeConfig, makeInformer } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer(kc, '/api/v1/namespaces/bench/configmaps', () =>
    api.listNamespacedConfigMap({ namespace: 'bench' }),
  );
  // the 30-line queue: a key is queued once until a worker takes it (client-go's dirty set),
  // one worker, FIFO
  const queued = new Set();
  const fifo = [];
  let head = 0;
  let working = false;
  const reconcile = (key) => {
    const slash = key.indexOf('/');
    rec.record(informer.get(key.slice(slash + 1), key.slice(0, slash)));
  };
  const work = () => {
    while (head < fifo.length) {
      const key = fifo[head++];
      queued.delete(key);
      reconcile(key);
    }
    fifo.length = 0;
    head = 0;
    working = false;
  };
  const enqueue = (obj) => {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    if (queued.has(key)) return;
    queued.add(key);
    fifo.push(key);
    if (!working) {
      working = true;
      setImmediate(work);
    }
  };
  informer.on('add', enqueue);
  informer.on('update', enqueue);
  informer.on('error', (e) => {
    throw e;
  });
  await informer.start();
  return {
    cached: () => informer.list('bench').length,
    stop: () => informer.stop(),
  };
}

const SIDES = {
  rxkube: rxkubeSide,
  'client-node': clientNodeSide,
  // another build of rxkube (BENCH_BASE_DIST, relative to bench/): an A/B of a change in one run
  'rxkube-base': (deps) => rxkubeSide({ ...deps, dist: process.env.BENCH_BASE_DIST }),
};

async function main(side) {
  const make = SIDES[side];
  if (!make) throw new Error(`bench/latency-child.mjs: unknown side "${side}"`);
  process.on('disconnect', () => process.exit(2));
  const rec = recorder();
  const impl = await make({ kubeconfigPath: process.env.BENCH_KUBECONFIG, rec });
  let cpu0;
  process.on('message', (m) => {
    if (m.type === 'cached') process.send({ type: 'cached', n: impl.cached() });
    else if (m.type === 'begin') {
      rec.begin();
      cpu0 = process.cpuUsage();
      process.send({ type: 'begun' });
    } else if (m.type === 'end') {
      void rec.end(m.last, m.limitMs).then(({ caughtUp, newest, samples }) => {
        const cpu = cpuMs(process.cpuUsage(cpu0));
        process.send({ type: 'result', cpuMs: cpu, caughtUp, newest, samples });
      });
    } else if (m.type === 'stop') {
      void Promise.resolve(impl.stop()).then(() => process.exit(0));
    }
  });
  process.send({ type: 'ready' });
}

if (process.env.BENCH_LATENCY_SIDE) await main(process.env.BENCH_LATENCY_SIDE);
