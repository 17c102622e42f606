// One side of the relist benchmark, in its own process: syncs BENCH_OBJECTS ConfigMaps, reports
// its steady RSS, resets the kernel's peak-RSS mark, waits for the relist a 410 causes, and reports
// the peak RSS of that relist and the RSS after it. BENCH_SIDE: client-node | rxkube-streaming |
// rxkube-paged.
import { readFileSync, writeFileSync } from 'node:fs';
import { setImmediate } from 'node:timers';

import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';

import { KubeClient, Store, reflector, watcher } from '../../dist/index.js';

const side = process.env.BENCH_SIDE;
const namespace = process.env.BENCH_NAMESPACE;
const kc = new KubeConfig();
kc.loadFromFile(process.env.BENCH_KUBECONFIG);

const kB = (field) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const settle = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage.rss();
};
const fail = (e) =>
  process.send({ type: 'failed', error: e instanceof Error ? (e.stack ?? e.message) : String(e) }, () =>
    process.exit(1),
  );

let steadyRss;
let size;
const synced = () => {
  steadyRss = settle();
  // reset VmHWM to the current RSS: what follows measures the relist alone (Linux: clear_refs 5)
  writeFileSync('/proc/self/clear_refs', '5');
  process.send({ type: 'synced', steadyRss, hwmAfterReset: kB('VmHWM') });
};
const relisted = () => {
  const peakRss = kB('VmHWM');
  const afterRss = settle();
  process.send({ type: 'result', steadyRss, peakRss, afterRss, size: size() }, () => process.exit(0));
};

if (side === 'client-node') {
  const api = kc.makeApiClient(CoreV1Api);
  let lists = 0;
  const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, async () => {
    const list = await api.listNamespacedConfigMap({ namespace });
    // the informer stores the list right after this resolves; measure once that ran
    if (++lists === 2) setImmediate(relisted);
    return list;
  });
  informer.on('error', fail);
  size = () => informer.list(namespace).length;
  await informer.start();
  synced();
} else {
  const client = KubeClient.fromKubeConfig(kc);
  const store = new Store();
  let done = 0;
  size = () => store.size;
  watcher(
    client,
    { apiVersion: 'v1', kind: 'ConfigMap' },
    { namespace, streamingLists: side === 'rxkube-streaming' },
  )
    .pipe(reflector(store))
    .subscribe({
      next: (e) => {
        if (e.type !== 'InitDone') return;
        if (++done === 1) synced();
        else setImmediate(relisted); // after the Deletes that follow InitDone
      },
      error: fail,
    });
}
