// Leader failover in real time: two LeaderElectors with client-go's defaults (15 s lease, 10 s
// renew deadline, 2 s retry period, jitter ×1.2) campaign for one Lease; the leader dies (stops
// renewing, no release) at a random moment of its renew period; the time until the standby leads is
// measured on the wall clock, FAILOVER_ROUNDS times (default 5), against the bound that
// docs/guides/manager-and-operations.md (Leader election) states: [leaseDuration − retryPeriod,
// leaseDuration + 2 × retryPeriod × 2.2) = [13 s, 23.8 s) plus request latency. On a real control
// plane when KUBEBUILDER_ASSETS holds the binaries, else on the embedded server.
// Run: pnpm -F @rxkube/kube bench:failover (about 20 s per round).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { startApiServer, startControlPlane } from '@rxkube/testing';
import { controlPlaneAssetsAvailable } from '@rxkube/testing/control-plane';

import { envInt, median } from './common.mjs';

const {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RETRY_PERIOD_MS,
  KubeClient,
  LEADER_ELECTION_JITTER_FACTOR,
  LeaderElector,
} = await import('../dist/index.js');

const rounds = envInt('FAILOVER_ROUNDS', 5);
const minMs = DEFAULT_LEASE_DURATION_MS - DEFAULT_RETRY_PERIOD_MS;
const maxMs = DEFAULT_LEASE_DURATION_MS + 2 * DEFAULT_RETRY_PERIOD_MS * (1 + LEADER_ELECTION_JITTER_FACTOR);

const real = controlPlaneAssetsAvailable().available;
const cluster = real ? await startControlPlane() : await startApiServer();
const client = KubeClient.fromKubeConfig(cluster.kubeConfig);
console.log(
  `leader failover on ${real ? 'a real kube-apiserver v1.24 (KUBEBUILDER_ASSETS)' : 'the embedded API server'}: ` +
    `${rounds} rounds; bound [${minMs / 1000} s, ${maxMs / 1000} s) + request latency`,
);

const leading = (elector) =>
  new Promise((resolve) => {
    const sub = elector.leadership$.subscribe((l) => {
      if (l) {
        void Promise.resolve().then(() => sub.unsubscribe());
        resolve(performance.now());
      }
    });
  });

const results = [];
try {
  for (let round = 1; round <= rounds; round++) {
    const leaseName = `failover-${round}`;
    const a = new LeaderElector(client, { leaseName, identity: `a-${round}` });
    const b = new LeaderElector(client, { leaseName, identity: `b-${round}` });
    a.start();
    await leading(a);
    b.start();
    // the leader lives a few renewals, then dies at a random point of its renew period
    const renewals = [];
    const sub = a.attempts$.subscribe((t) => t.leading && renewals.push(performance.now()));
    await sleep(3 * DEFAULT_RETRY_PERIOD_MS + Math.random() * DEFAULT_RETRY_PERIOD_MS);
    const takeover = leading(b);
    a.stop(); // dies: no release, the Lease still names it
    const killedAt = performance.now();
    sub.unsubscribe();
    const at = await takeover;
    b.stop();
    const ms = at - killedAt;
    const sinceRenew = killedAt - (renewals[renewals.length - 1] ?? killedAt);
    results.push(ms);
    console.log(
      `  round ${round}: standby led ${(ms / 1000).toFixed(2)} s after the leader died ` +
        `(${(sinceRenew / 1000).toFixed(2)} s after its last renewal)${ms >= minMs && ms < maxMs ? '' : '  OUTSIDE THE BOUND'}`,
    );
  }
  console.log(
    `failover: min ${(Math.min(...results) / 1000).toFixed(2)} s, median ${(median(results) / 1000).toFixed(2)} s, ` +
      `max ${(Math.max(...results) / 1000).toFixed(2)} s`,
  );
} finally {
  client.close();
  await cluster.stop();
}
