// Side (b): @kubernetes/client-node's informer — makeInformer with CoreV1Api.listNamespacedConfigMap
// (one unpaged LIST, then a watch), cache in its ListWatch (ObjectCache).
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';

import { runSide } from '../child.mjs';

await runSide(async ({ kubeconfigPath, namespace, synced, modified, fail }) => {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/configmaps`, () =>
    api.listNamespacedConfigMap({ namespace }),
  );
  let errors = 0;
  let connects = 0;
  informer.on('update', () => modified());
  informer.on('connect', () => connects++);
  informer.on('error', (e) => {
    errors++;
    fail(e);
  });
  // start() resolves once the list is cached and the watch request is open
  await informer.start();
  synced();
  return {
    size: () => informer.list(namespace).length,
    rvSum: () => {
      let sum = 0;
      for (const o of informer.list(namespace)) sum += Number(o.metadata.resourceVersion);
      return sum;
    },
    extra: () => ({ reconnects: connects - 1, errors }),
  };
});
