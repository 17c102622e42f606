import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { isAlreadyExists } from '../errors.js';
import { VirtualClock } from '../leader/virtual-clock.test.helper.js';
import { Manager } from '../manager/manager.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import { bucketOf } from './assignment.js';

const NS = 'sharded-owned';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const OBJECTS = 40;
const BUCKETS = 16;
const RETRY = 2_000;

// A sharded controller's owned kind is filtered too: a child is in the bucket of its controller
// owner's uid, computed client-side (no server can select on an owner reference).
describeEachBackend(
  'sharded Managers: owned children filtered to the owners’ buckets (over HTTP)',
  (b) => {
    let client: KubeClient;
    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    });
    afterAll(() => client.close());

    it("each replica's owned Store holds only the children of its buckets' primaries; an unowned object is in none", async () => {
      // One child Secret per ConfigMap, created by the reconcile of its owner.
      const reconcile = async (request: ObjectRef, ctx: { readonly object: KubeObject }): Promise<Action> => {
        const owner = ctx.object;
        try {
          await client.create({
            ...SECRET,
            metadata: {
              name: `child-of-${request.name}`,
              namespace: NS,
              ownerReferences: [
                {
                  ...CM,
                  name: owner.metadata.name ?? '',
                  uid: owner.metadata.uid ?? '',
                  controller: true,
                  blockOwnerDeletion: true,
                },
              ],
            },
            stringData: { v: '1' },
          });
        } catch (error) {
          if (!isAlreadyExists(error)) throw error;
        }
        return Action.awaitChange();
      };
      const replicas = ['replica-a', 'replica-b'].map((id) => {
        const clock = new VirtualClock();
        const mgr = new Manager({
          client,
          name: 'sharded-owned',
          logLevel: 'silent',
          sharding: {
            ring: `owned-${b.name}`,
            identity: id,
            namespace: NS,
            buckets: BUCKETS,
            scheduler: clock.scheduler,
          },
        });
        mgr.add('cm', { for: CM, namespace: NS, owns: [SECRET] }, reconcile);
        return { id, mgr, clock, ring: mgr.sharding!.ring };
      });
      // Not a child of any ConfigMap: no replica needs it.
      await client.create({
        ...SECRET,
        metadata: { name: 'unowned', namespace: NS },
        stringData: { v: '1' },
      });
      for (let i = 0; i < OBJECTS; i++) {
        await client.create({ ...CM, metadata: { name: `cm-${i}`, namespace: NS }, data: { v: '0' } });
      }
      try {
        for (const r of replicas) {
          const started = r.mgr.start();
          let done = false;
          void started.then(
            () => (done = true),
            () => (done = true),
          );
          while (!done) {
            r.clock.advance(0);
            await new Promise((resolve) => setImmediate(resolve));
          }
          await started;
        }
        // Two looks each: the first joiner hands the second its buckets.
        for (let i = 0; i < 3; i++) {
          for (const r of replicas) {
            const next = firstValueFrom(r.ring.ticks$);
            r.clock.advance(RETRY);
            await next;
            await r.ring.settled();
          }
        }
        const [a, bb] = replicas;
        if (a === undefined || bb === undefined) throw new Error('unreachable');
        expect(a.ring.gate.opened.size).toBeGreaterThan(0);
        expect(bb.ring.gate.opened.size).toBeGreaterThan(0);
        expect(a.ring.gate.opened.size + bb.ring.gate.opened.size).toBe(BUCKETS);

        await waitFor(
          'every ConfigMap has its child',
          async () => (await client.list(SECRET, { namespace: NS })).items.length === OBJECTS + 1,
          { timeoutMs: 30_000 },
        );
        const owners = new Map(
          (await client.list(CM, { namespace: NS })).items.map((o) => [
            o.metadata.name,
            o.metadata.uid ?? '',
          ]),
        );
        const children = (await client.list(SECRET, { namespace: NS })).items.filter(
          (s) => s.metadata.name !== 'unowned',
        );
        const childrenOf = (r: (typeof replicas)[number]): string[] =>
          children
            .filter((s) =>
              r.ring.gate.opened.has(
                bucketOf(owners.get(s.metadata.name?.slice('child-of-'.length)) ?? '', BUCKETS),
              ),
            )
            .map(objectKey)
            .sort();
        const owned = (r: (typeof replicas)[number]): string[] =>
          [...(r.mgr.controller('cm')?.stores.of(SECRET).keys() ?? [])].sort();
        await waitFor(
          "each replica's owned Store holds exactly its primaries' children",
          () => replicas.every((r) => JSON.stringify(owned(r)) === JSON.stringify(childrenOf(r))),
          { timeoutMs: 30_000 },
        );
        for (const r of replicas) {
          expect(owned(r), r.id).toEqual(childrenOf(r));
          expect(owned(r).length, r.id).toBeLessThan(OBJECTS);
          expect(owned(r), r.id).not.toContain(`${NS}/unowned`);
        }
        expect(owned(a).length + owned(bb).length).toBe(OBJECTS);

        // A child orphaned (its owner reference removed) leaves the owned Store that held it.
        const orphan = owned(a)[0] ?? '';
        await client.patch(
          { ...SECRET, namespace: NS, name: orphan.slice(`${NS}/`.length) },
          { type: 'merge', body: { metadata: { ownerReferences: null } } },
        );
        await waitFor(
          'the orphan out of every owned Store',
          () => replicas.every((r) => !owned(r).includes(orphan)),
          {
            timeoutMs: 30_000,
          },
        );
        expect(owned(a).length + owned(bb).length).toBe(OBJECTS - 1);
      } finally {
        for (const r of replicas) await r.mgr.stop();
      }
    }, 120_000);
  },
  { controllerManager: false, realTimeoutMs: 180_000 },
);
