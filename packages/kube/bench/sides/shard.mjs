// Side of the shard benchmark: replica BENCH_SHARD_MEMBER of BENCH_SHARD_REPLICAS, its primary watch filtered to
// the buckets rendezvous hashing gives it (64 buckets) — by the server (KEP-5866 shardSelector) or
// here (the same hash, after parsing), as BENCH_SHARD_FILTERING says.
import { KubeConfig } from '@kubernetes/client-node';
import { BehaviorSubject } from 'rxjs';

import { KubeClient } from '../../dist/index.js';
import { assignBuckets, shardedWatch } from '../../dist/shard/index.js';
import { runSide } from '../child.mjs';

const REPLICAS = Number(process.env.BENCH_SHARD_REPLICAS);
const MEMBER = `replica-${process.env.BENCH_SHARD_MEMBER ?? '0'}`;
const FILTERING = process.env.BENCH_SHARD_FILTERING;
const BUCKETS = 64;

await runSide(async ({ kubeconfigPath, namespace, synced, modified, fail }) => {
  // Times the process slept waiting for input: a sparse stream wakes it once per few events.
  const waits0 = process.resourceUsage().voluntaryContextSwitches;
  let waitsSynced;
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const client = KubeClient.fromKubeConfig(kc);
  const members = Array.from({ length: REPLICAS }, (_, i) => `replica-${i}`);
  const mine = assignBuckets(BUCKETS, members).flatMap((owner, b) => (owner === MEMBER ? [b] : []));
  const watch = shardedWatch({
    client,
    target: { resource: { apiVersion: 'v1', kind: 'ConfigMap' }, namespace },
    buckets: BUCKETS,
    key: 'uid',
    watched$: new BehaviorSubject(mine),
    filtering: FILTERING,
  });
  let live = false;
  watch.events$.subscribe({
    next: (e) => {
      if (e.type === 'InitDone') {
        live = true;
        waitsSynced = process.resourceUsage().voluntaryContextSwitches - waits0;
        synced();
      } else if (e.type === 'Apply' && live) modified();
    },
    error: fail,
  });
  return {
    size: () => watch.store.size,
    rvSum: () => {
      let sum = 0;
      for (const o of watch.store.list()) sum += Number(o.metadata.resourceVersion);
      return sum;
    },
    extra: () => ({
      buckets: mine.length,
      filtering: watch.filtering,
      waitsSync: waitsSynced,
      waitsEvents: process.resourceUsage().voluntaryContextSwitches - waits0 - (waitsSynced ?? 0),
    }),
  };
});
