// Side (a): rxkube — watcher(client, ConfigMap) → reflector(Store), defaults (pages of 500,
// managedFields dropped, objects deep-frozen).
import { KubeConfig } from '@kubernetes/client-node';

import { KubeClient, Store, reflector, watcher } from '../../dist/index.js';
import { runSide } from '../child.mjs';

await runSide(async ({ kubeconfigPath, namespace, synced, modified, fail }) => {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const client = KubeClient.fromKubeConfig(kc);
  const store = new Store();
  let live = false;
  let health;
  // health is reported on phase changes only (not per event), so this costs nothing measurable
  watcher(client, { apiVersion: 'v1', kind: 'ConfigMap' }, { namespace, health: (h) => (health = h) })
    .pipe(reflector(store))
    .subscribe({
      next: (e) => {
        if (e.type === 'InitDone') {
          live = true;
          synced();
        } else if (e.type === 'Apply' && live) modified();
      },
      error: fail,
    });
  return {
    size: () => store.size,
    rvSum: () => {
      let sum = 0;
      for (const o of store.list()) sum += Number(o.metadata.resourceVersion);
      return sum;
    },
    extra: () => ({
      reconnects: health?.reconnects,
      relists: health?.relists,
      errors: health?.errors,
      lastError: health?.lastError?.message,
    }),
  };
});
