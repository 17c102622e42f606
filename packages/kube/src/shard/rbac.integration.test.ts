import { Action } from '@rxkube/core';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { clientAs, limitedUsers, permit } from '../client/backends.test.helper.js';
import { KubeClient } from '../client/kube-client.js';
import { VirtualClock } from '../leader/virtual-clock.test.helper.js';
import { Manager } from '../manager/manager.js';
import { managerRbac, rbacManifests } from '../manager/rbac.js';
import { resolveShardingOptions } from './options.js';
import { ShardRing } from './shard-ring.js';

const NS = 'shard-rbac';
const users = limitedUsers({ 'ring-op': 'ring-operator' });

// `rxkube rbac` for a sharded Manager grants the ring's Lease verbs and nothing more, and those
// are enough: a ring run as a user holding only them joins, takes, hands back and leaves.
describeEachBackend(
  'shard ring RBAC (least privilege, over HTTP)',
  (b) => {
    let admin: KubeClient;
    beforeAll(async () => {
      admin = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    });
    afterAll(() => admin.close());

    it('grants get, list, create and update on Leases in the ring namespace, and a ring runs on exactly that', async () => {
      const mgr = new Manager({
        client: admin,
        name: 'ring-operator',
        logLevel: 'silent',
        sharding: { ring: 'rbac', namespace: NS },
      });
      mgr.add('cm', { for: { apiVersion: 'v1', kind: 'ConfigMap' } }, () => [Action.awaitChange()]);
      const rbac = await managerRbac(mgr);
      expect(rbac.shardNamespace).toBe(NS);
      expect(rbac.shardRules).toEqual([
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get', 'list', 'create', 'update'],
        },
      ]);
      const manifests = rbacManifests(rbac, {
        name: 'ring-operator',
        namespace: 'operators',
        serviceAccount: 'op',
      });
      expect(manifests).toContainEqual(
        expect.objectContaining({
          kind: 'Role',
          metadata: { name: 'ring-operator-shard-ring', namespace: NS },
        }),
      );

      const rule = rbac.shardRules![0]!;
      await permit(admin, {
        user: 'ring-operator',
        verbs: rule.verbs,
        group: 'coordination.k8s.io',
        resources: ['leases'],
        namespace: NS,
      });
      const client = clientAs(b.cluster, 'ring-op');
      const clock = new VirtualClock();
      const ring = new ShardRing(
        client,
        resolveShardingOptions({ ring: 'rbac', namespace: NS, buckets: 4 }, 'one'),
        clock.scheduler,
      );
      try {
        const errors: unknown[] = [];
        ring.ticks$.subscribe((t) => t.error !== undefined && errors.push(t.error));
        const joined = ring.join();
        const first = firstValueFrom(ring.ticks$);
        clock.advance(0);
        await joined;
        await first;
        expect([...ring.gate.opened]).toHaveLength(4); // created 4 fences, listed, read
        await ring.leave(); // updates: fences and membership released
        expect(ring.gate.opened.size).toBe(0);
        expect(errors).toEqual([]);
        // Nothing more: no watch, no delete.
        await expect(
          client.delete({
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            namespace: NS,
            name: 'rbac-fence-0',
          }),
        ).rejects.toMatchObject({ code: 403 });
      } finally {
        ring.stop();
        client.close();
      }
    });
  },
  { ...users.options, controllerManager: false },
);
