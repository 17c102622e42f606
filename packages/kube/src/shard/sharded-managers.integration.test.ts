import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { firstValueFrom, Observable } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { VirtualClock } from '../leader/virtual-clock.test.helper.js';
import { Manager } from '../manager/manager.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import { assignBuckets, bucketOf } from './assignment.js';
import type { ShardRing } from './shard-ring.js';

const NS = 'sharded';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
/** Smaller than the 2,000 objects, to keep the suite bounded on a shared CI machine. */
const OBJECTS = 300;
const BUCKETS = 64;
const RETRY = 2_000;
const LEASE = 15_000;

type Cm = KubeObject & { data?: Record<string, string> };

/**
 * The test's own record of every reconcile (not the framework's): which replica runs which key
 * now, overlaps, and the last version of each key a reconcile read.
 */
class Recorder {
  readonly running = new Map<string, string>();
  readonly overlaps: string[] = [];
  readonly lastVersion = new Map<string, string>();
  readonly byReplica = new Map<string, Set<string>>();
  /** Keys each replica reconciled since the last `newPhase()`. */
  readonly inPhase = new Map<string, Set<string>>();

  newPhase(): void {
    this.inPhase.clear();
  }

  /** A reconcile that honours cancellation (unsubscribe ends it), taking a few ms of work. */
  reconcile(replica: string) {
    return (request: ObjectRef, ctx: { readonly object: Cm }): Observable<Action> =>
      new Observable<Action>((subscriber) => {
        const key = objectKey(request);
        const other = this.running.get(key);
        if (other !== undefined) this.overlaps.push(`${key}: ${other} and ${replica}`);
        this.running.set(key, replica);
        const version = ctx.object.data?.['v'] ?? '';
        const work = setTimeout(() => {
          this.running.delete(key);
          this.lastVersion.set(key, version);
          let keys = this.byReplica.get(replica);
          if (keys === undefined) this.byReplica.set(replica, (keys = new Set()));
          keys.add(key);
          let phase = this.inPhase.get(replica);
          if (phase === undefined) this.inPhase.set(replica, (phase = new Set()));
          phase.add(key);
          subscriber.next(Action.awaitChange());
          subscriber.complete();
        }, 2);
        return () => {
          clearTimeout(work);
          if (this.running.get(key) === replica) this.running.delete(key);
        };
      });
  }
}

interface Replica {
  readonly id: string;
  readonly mgr: Manager;
  readonly clock: VirtualClock;
  readonly ring: ShardRing;
}

// Several Managers in one process, each its own identity and ring clock, against one server.
describeEachBackend(
  'sharded Managers (multi-replica, over HTTP)',
  (b) => {
    let client: KubeClient;
    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    });
    afterAll(() => client.close());

    it('under writes, a kill, two joins and a graceful scale-down: no key twice at once, every last version reconciled', async () => {
      const recorder = new Recorder();
      const ring = `widgets-${b.name}`;
      let round = 0;
      /** Round at which a survivor acquired each bucket, after the kill. */
      const takenAt = new Map<number, number>();

      function replica(id: string): Replica {
        const clock = new VirtualClock();
        const mgr = new Manager({
          client,
          name: 'sharded-operator',
          logLevel: 'silent',
          sharding: {
            ring,
            identity: id,
            namespace: 'default',
            buckets: BUCKETS,
            scheduler: clock.scheduler,
          },
        });
        mgr.add<Cm>('cm', { for: CM, namespace: NS, concurrency: 4 }, recorder.reconcile(id));
        const r = mgr.sharding!.ring;
        r.handoffs$.subscribe((h) => {
          if (h.direction === 'acquired' && !takenAt.has(h.bucket)) takenAt.set(h.bucket, round);
        });
        return { id, mgr, clock, ring: r };
      }

      /** Runs the ring's timers due now until `p` settles (start() joins the ring on its clock). */
      async function drive<T>(p: Promise<T>, clock: VirtualClock): Promise<T> {
        let done = false;
        p.then(
          () => (done = true),
          () => (done = true),
        );
        while (!done) {
          clock.advance(0);
          await new Promise((resolve) => setImmediate(resolve));
        }
        return p;
      }

      /** One retry period on every member's ring clock; waits for each look and its hand-offs. */
      async function lookAll(members: readonly Replica[]): Promise<void> {
        round++;
        for (const m of members) {
          const next = firstValueFrom(m.ring.ticks$);
          m.clock.advance(RETRY);
          await next;
          await m.ring.settled();
        }
      }

      const expectDisjoint = (members: readonly Replica[]): void => {
        const seen = new Set<number>();
        for (const m of members) {
          for (const bucket of m.ring.gate.opened) {
            expect(seen.has(bucket), `bucket ${bucket} open on two replicas`).toBe(false);
            seen.add(bucket);
          }
        }
      };

      for (let i = 0; i < OBJECTS; i++) {
        await client.create({ ...CM, metadata: { name: `cm-${i}`, namespace: NS }, data: { v: '0' } });
      }
      let version = 0;
      let writing = true;
      const writer = (async () => {
        while (writing) {
          version++;
          const name = `cm-${(version * 7919) % OBJECTS}`;
          await client.patch(
            { ...CM, namespace: NS, name },
            { type: 'merge', body: { data: { v: String(version) } } },
          );
        }
      })();

      const a = replica('replica-a');
      const bb = replica('replica-b');
      const c = replica('replica-c');
      const all: Replica[] = [a, bb, c];
      try {
        for (const m of [a, bb, c]) await drive(m.mgr.start(), m.clock);
        for (let i = 0; i < 3; i++) await lookAll([a, bb, c]);
        expectDisjoint([a, bb, c]);
        expect(a.ring.synced && bb.ring.synced && c.ring.synced).toBe(true);

        // Kill a: no release, its reconciles cancelled; then two replicas join.
        const ofA = [...a.ring.gate.opened];
        expect(ofA.length).toBeGreaterThan(0);
        a.mgr.sharding!.stop();
        takenAt.clear();
        const killedAt = round;
        const d = replica('replica-d');
        const e = replica('replica-e');
        all.push(d, e);
        for (const m of [d, e]) await drive(m.mgr.start(), m.clock);
        const survivors = [bb, c, d, e];
        while (ofA.some((bucket) => !takenAt.has(bucket)) && round - killedAt < 20) {
          await lookAll(survivors);
          expectDisjoint(survivors);
        }
        for (let i = 0; i < 2; i++) await lookAll(survivors);
        expectDisjoint(survivors);
        // The dead replica's buckets waited for its membership to expire, and no longer than the bound.
        const gaps = ofA.map((bucket) => ((takenAt.get(bucket) ?? Infinity) - killedAt) * RETRY);
        expect(Math.max(...gaps)).toBeLessThanOrEqual(bb.ring.deadMemberBoundMs);
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(LEASE - RETRY);

        // Each replica's share of the keys is exactly the keys of the buckets it holds: its buckets
        // are the ones assignBuckets gives it over the survivors, every key of them was reconciled
        // by it, and in a phase without membership changes it reconciles no other key.
        const objects = (await client.list<Cm>(CM, { namespace: NS })).items;
        const bucketOfKey = new Map(
          objects.map((o) => [objectKey(o), bucketOf(o.metadata.uid ?? '', BUCKETS)] as const),
        );
        const owners = assignBuckets(
          BUCKETS,
          survivors.map((m) => m.id),
        );
        const owned = survivors.map((m) => ({
          m,
          buckets: new Set(owners.flatMap((owner, bucket) => (owner === m.id ? [bucket] : []))),
        }));
        for (const { m, buckets } of owned) {
          expect(
            [...m.ring.gate.opened].sort((x, y) => x - y),
            m.id,
          ).toEqual([...buckets]);
        }
        const keysOf = (buckets: ReadonlySet<number>): string[] =>
          [...bucketOfKey].filter(([, bucket]) => buckets.has(bucket)).map(([key]) => key);
        await waitFor(
          'every key reconciled by the replica holding its bucket',
          () =>
            owned.every(({ m, buckets }) =>
              keysOf(buckets).every((key) => recorder.byReplica.get(m.id)?.has(key) === true),
            ),
          { timeoutMs: 30_000 },
        );
        // Each replica's primary Store holds exactly the objects of its buckets (its watch carries
        // only them: server-side on the embedded server, filtered client-side on v1.24).
        const storeKeys = (m: Replica): string[] =>
          [...(m.mgr.controller('cm')?.stores.primary.keys() ?? [])].sort();
        await waitFor(
          "each replica's Store holds exactly its buckets' objects",
          () =>
            owned.every(
              ({ m, buckets }) => JSON.stringify(storeKeys(m)) === JSON.stringify(keysOf(buckets).sort()),
            ),
          { timeoutMs: 30_000 },
        );
        for (const { m, buckets } of owned) {
          expect(storeKeys(m), m.id).toEqual(keysOf(buckets).sort());
          expect(storeKeys(m).length, m.id).toBeLessThan(OBJECTS);
        }
        expect(owned.reduce((n, { m }) => n + storeKeys(m).length, 0)).toBe(OBJECTS);
        recorder.newPhase();
        for (let i = 0; i < 2; i++) await lookAll(survivors);
        await waitFor(
          'a reconcile on every survivor in the phase',
          () => survivors.every((m) => (recorder.inPhase.get(m.id)?.size ?? 0) > 0),
          { timeoutMs: 30_000 },
        );
        for (const { m, buckets } of owned) {
          const strays = [...(recorder.inPhase.get(m.id) ?? [])].filter(
            (key) => !buckets.has(bucketOfKey.get(key) ?? -1),
          );
          expect(strays, `${m.id} reconciled keys outside its buckets`).toEqual([]);
        }

        // Scale down gracefully to one replica.
        for (const m of [e, d, c]) {
          await m.mgr.stop();
          const rest = survivors.filter((s) => s !== m && all.includes(s));
          all.splice(all.indexOf(m), 1);
          for (let i = 0; i < 2; i++) await lookAll(rest.filter((s) => all.includes(s)));
        }
        expect([...bb.ring.gate.opened].sort((x, y) => x - y)).toEqual(
          Array.from({ length: BUCKETS }, (_, i) => i),
        );
        // The one replica left watches every bucket again; those that left hold nothing.
        await waitFor('the last replica holds every object', () => storeKeys(bb).length === OBJECTS, {
          timeoutMs: 30_000,
        });
        for (const m of [c, d, e]) expect(storeKeys(m), m.id).toEqual([]);
      } finally {
        writing = false;
        await writer;
      }
      // Every key's last version was reconciled (by the one replica left).
      await waitFor(
        'every ConfigMap reconciled at its last version',
        async () => {
          const items = (await client.list<Cm>(CM, { namespace: NS })).items;
          return items.every((o) => recorder.lastVersion.get(objectKey(o)) === o.data?.['v']);
        },
        { timeoutMs: 30_000 },
      );
      expect(recorder.overlaps).toEqual([]);
      for (const m of all) await m.mgr.stop();
    }, 120_000); // ~6 s alone; a loaded CI machine may need several times that
  },
  { controllerManager: false, realTimeoutMs: 180_000 },
);
