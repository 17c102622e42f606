/**
 * Issue 18 §9 over HTTP: a leader that loses its Lease stops by default (controller-runtime's
 * behaviour): one error line, `finished` resolves with `leaderLost`, `run()` resolves 1.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { Action } from '@rxkube/core';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { step, VirtualClock } from '../leader/virtual-clock.test.helper.js';
import { createLogger } from '../ops/logging.js';
import { Manager } from './manager.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

describeEachBackend(
  'Manager: losing the leader Lease (over HTTP)',
  (b) => {
    let client: KubeClient;

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lost' } });
    });
    afterAll(() => {
      client.close();
    });

    it('a leader that loses its Lease stops, says so once, and run() resolves 1', async () => {
      const lines: Record<string, unknown>[] = [];
      const log = createLogger({
        level: 'info',
        destination: new Writable({
          write: (chunk: Buffer, _e, cb) => {
            for (const l of chunk.toString().split('\n'))
              if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
            cb();
          },
        }),
      });
      const clockA = new VirtualClock();
      const clockB = new VirtualClock();
      const election = (identity: string, clock: VirtualClock) => ({
        leaseName: 'lost-test',
        leaseNamespace: 'lost',
        identity,
        random: () => 0,
        scheduler: clock.scheduler,
      });
      const a = new Manager({ client, name: 'lost-test', log, leaderElection: election('a', clockA) });
      const b = new Manager({
        client,
        name: 'lost-test',
        logLevel: 'silent',
        leaderElection: election('b', clockB),
      });
      a.add('cms', { for: CM, namespace: 'lost' }, () => [Action.awaitChange()]);
      b.add('cms', { for: CM, namespace: 'lost' }, () => [Action.awaitChange()]);
      const proc = new EventEmitter();
      const code = a.run({ process: proc, exit: () => undefined });
      await b.start();
      await new Promise<void>((resolve) => setImmediate(resolve)); // a.run() started its elector
      await step(clockA, a.elector!, 0);
      expect(a.elector!.isLeader).toBe(true);
      await step(clockB, b.elector!, 0);
      // a freezes; b takes over after the lease duration; a wakes and finds b holding the Lease
      for (let t = 0; t < 8; t++) await step(clockB, b.elector!, 2_000);
      expect(b.elector!.isLeader).toBe(true);
      await step(clockA, a.elector!, 2_000);
      expect(await a.finished).toMatchObject({ leaderLost: true });
      expect(await code).toBe(1);
      expect(lines.filter((l) => String(l['msg']).startsWith('leader election lost'))).toHaveLength(1);
      expect(lines.find((l) => String(l['msg']).startsWith('leader election lost'))).toMatchObject({
        level: 50,
        lease: 'lost/lost-test',
        identity: 'a',
      });
      expect(proc.listenerCount('SIGTERM')).toBe(0);
      await b.stop();
    });

    // 'campaign' itself is followed by manager.integration.test.ts (a frozen leader is replaced …)
    it("onLeaderLoss accepts 'stop' or 'campaign' only", async () => {
      const mgr = new Manager({
        client,
        name: 'keep-test',
        logLevel: 'silent',
        leaderElection: { leaseNamespace: 'lost' },
        onLeaderLoss: 'campaign',
      });
      expect(() => new Manager({ client, name: 'x', onLeaderLoss: 'exit' as never })).toThrow(
        /options\.onLeaderLoss/,
      );
      await mgr.stop();
    });
  },
  { controllerManager: false },
);
