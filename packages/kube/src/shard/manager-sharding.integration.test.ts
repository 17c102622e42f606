import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, expect } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { VirtualClock } from '../leader/virtual-clock.test.helper.js';
import { Manager } from '../manager/manager.js';
import type { ObjectRef } from '../types.js';
import { objectKey } from '../types.js';

const NS = 'shard-ops';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const RETRY = 2_000;

async function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

// A sharded Manager's operations: /readyz waits for the owned buckets, /metrics counts members,
// buckets and hand-offs, and a `single` controller runs on the holder of bucket 0 only.
describeEachBackend(
  'sharded Manager operations (over HTTP)',
  (b) => {
    let client: KubeClient;
    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      for (let i = 0; i < 20; i++) {
        await client.create({ ...CM, metadata: { name: `cm-${i}`, namespace: NS } });
      }
    });
    afterAll(() => client.close());

    b.itOn('embedded', 'one backend is enough for probes and metrics')(
      '/readyz is not ready until the owned buckets are held; /metrics counts the ring; single runs on bucket 0’s holder',
      async () => {
        const singles: { replica: string; key: string }[] = [];
        const replica = (id: string) => {
          const clock = new VirtualClock();
          const mgr = new Manager({
            client,
            name: 'ops-operator',
            logLevel: 'silent',
            healthPort: 0,
            host: '127.0.0.1',
            sharding: { ring: 'ops', identity: id, namespace: NS, buckets: 8, scheduler: clock.scheduler },
          });
          mgr.add('cm', { for: CM, namespace: NS }, () => [Action.awaitChange()]);
          mgr.add('aggregate', { for: CM, namespace: NS, single: true }, (request: ObjectRef) => {
            singles.push({ replica: id, key: objectKey(request) });
            return [Action.awaitChange()];
          });
          return { id, mgr, clock, ring: mgr.sharding!.ring };
        };
        const start = async (r: ReturnType<typeof replica>): Promise<void> => {
          const started = r.mgr.start();
          let done = false;
          started.then(
            () => (done = true),
            () => (done = true),
          );
          while (!done) {
            r.clock.advance(0);
            await new Promise((resolve) => setImmediate(resolve));
          }
          await started;
          await r.ring.settled();
        };
        const look = async (r: ReturnType<typeof replica>): Promise<void> => {
          const next = firstValueFrom(r.ring.ticks$);
          r.clock.advance(RETRY);
          await next;
          await r.ring.settled();
        };
        const a = replica('ops-a');
        const c = replica('ops-c');
        try {
          await start(a);
          await start(c); // c is a member; every fence is still a's
          const [health] = c.mgr.ports as [number];
          const unready = await httpGet(health, '/readyz?verbose');
          expect(unready.status).toBe(500);
          expect(unready.body).toMatch(/\[-\]shard failed: .*not all acquired/);
          await look(a); // a hands c's buckets back
          await look(c); // c takes them
          await waitFor('c ready', async () => (await httpGet(health, '/readyz')).status === 200);

          const metrics = (await httpGet(a.mgr.ports[0]!, '/metrics')).body;
          expect(metrics).toMatch(/rxkube_shard_members\{ring="ops"\} 2/);
          expect(metrics).toMatch(
            new RegExp(`rxkube_shard_buckets_owned\\{ring="ops"\\} ${a.ring.gate.opened.size}`),
          );
          expect(metrics).toMatch(/rxkube_shard_handoffs_total\{ring="ops",direction="acquired"\} 8/);
          expect(metrics).toMatch(/rxkube_shard_handoffs_total\{ring="ops",direction="released"\} [1-8]/);
          expect(metrics).toMatch(
            /rxkube_shard_handoff_duration_seconds_bucket\{le="0.005",ring="ops",direction="released"\}/,
          );

          // The single controller reconciled every ConfigMap, each time on bucket 0's holder.
          const holder = a.ring.gate.isOpen(0) ? 'ops-a' : 'ops-c';
          await waitFor(
            'the single controller reconciled every ConfigMap',
            () => new Set(singles.filter((s) => s.replica === holder).map((s) => s.key)).size >= 20,
          );
          const before = singles.length;
          await client.create({ ...CM, metadata: { name: 'late', namespace: NS } });
          await waitFor('late reconciled', () => singles.slice(before).some((s) => s.key === `${NS}/late`));
          expect(singles.filter((s) => s.replica !== holder && s.key === `${NS}/late`)).toEqual([]);
        } finally {
          await a.mgr.stop();
          await c.mgr.stop();
        }
      },
    );
  },
  { controllerManager: false },
);
