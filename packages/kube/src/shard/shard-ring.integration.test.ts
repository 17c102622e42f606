import { describeEachBackend } from '@rxkube/testing/vitest';
import { filter, firstValueFrom, Observable } from 'rxjs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { Lease } from '../leader/leader-elector.js';
import { VirtualClock } from '../leader/virtual-clock.test.helper.js';
import { assignBuckets } from './assignment.js';
import { DuplicateShardIdentityError, resolveShardingOptions, SHARD_RING_LABEL } from './options.js';
import type { ShardTick } from './shard-ring.js';
import { memberLeaseName, ShardRing } from './shard-ring.js';

const BUCKETS = 16;
const RETRY = 2_000;
const LEASE = 15_000;

// Rings over HTTP against each backend; each member has its own virtual clock (client-go's
// durations: 15 s lease, 10 s renew deadline, 2 s retry), so a member can be frozen or killed.
describeEachBackend(
  'ShardRing (Leases, over HTTP)',
  (b) => {
    let client: KubeClient;
    let ringSeq = 0;
    let ring = '';
    const members: ShardRing[] = [];
    /** Every hand-off of every member, in the order they happened (the test's own record). */
    let log: string[] = [];

    beforeAll(() => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterAll(() => client.close());
    afterEach(() => {
      for (const m of members.splice(0)) m.stop();
      ring = `ring-${++ringSeq}-${b.name}`;
      log = [];
    });
    ring = `ring-${ringSeq}-${b.name}`;

    interface Member {
      readonly ring: ShardRing;
      readonly clock: VirtualClock;
    }

    function member(identity: string, options: { drainTimeoutMs?: number } = {}): Member {
      const clock = new VirtualClock();
      const r = new ShardRing(
        client,
        resolveShardingOptions(
          { ring, identity, namespace: 'default', buckets: BUCKETS, ...options },
          identity,
        ),
        clock.scheduler,
      );
      r.handoffs$.subscribe((h) => log.push(`${identity} ${h.direction} ${h.bucket}`));
      members.push(r);
      return { ring: r, clock };
    }

    /** Advances a member's clock and waits for the look it started and the hand-offs it began. */
    async function step(m: Member, ms: number): Promise<ShardTick> {
      const next = firstValueFrom(m.ring.ticks$);
      m.clock.advance(ms);
      const tick = await next;
      await m.ring.settled();
      return tick;
    }

    async function join(m: Member): Promise<void> {
      const joined = m.ring.join();
      await step(m, 0);
      await joined;
    }

    const owned = (m: Member): number[] => [...m.ring.gate.opened].sort((x, y) => x - y);
    const all = Array.from({ length: BUCKETS }, (_, i) => i);

    function expectDisjoint(...ms: Member[]): void {
      const seen = new Map<number, string>();
      for (const m of ms) {
        for (const bucket of m.ring.gate.opened) {
          expect(seen.get(bucket), `bucket ${bucket} open on two members`).toBeUndefined();
          seen.set(bucket, m.ring.identity);
        }
      }
    }

    it('a lone member acquires every bucket at its first look; its Leases carry the ring label', async () => {
      const a = member('a');
      await join(a);
      expect(owned(a)).toEqual(all);
      expect(a.ring.synced).toBe(true);
      const leases = await client.list<Lease>(
        { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
        { namespace: 'default', labelSelector: `${SHARD_RING_LABEL}=${ring}` },
      );
      expect(leases.items).toHaveLength(BUCKETS + 1);
      const fence = leases.items.find((l) => l.metadata.name === `${ring}-fence-3`);
      expect(fence?.spec?.holderIdentity).toBe('a');
      expect(fence?.metadata.labels).toEqual({ [SHARD_RING_LABEL]: ring, 'rxkube.io/shard-role': 'fence' });
    });

    it('a joining member gets its rendezvous buckets, each released by the old owner before it is acquired', async () => {
      const a = member('a');
      const c = member('c');
      await join(a);
      await join(c);
      // c is a member, but a still holds every fence: c takes nothing yet.
      expect(owned(c)).toEqual([]);
      expectDisjoint(a, c);
      await step(a, RETRY); // a sees c: stops, drains (nothing in flight), releases c's buckets
      expectDisjoint(a, c);
      await step(c, RETRY); // c acquires the freed fences
      expectDisjoint(a, c);
      const owners = assignBuckets(BUCKETS, ['a', 'c']);
      expect(owned(c)).toEqual(all.filter((bucket) => owners[bucket] === 'c'));
      expect(owned(a)).toEqual(all.filter((bucket) => owners[bucket] === 'a'));
      for (const bucket of owned(c)) {
        const released = log.indexOf(`a released ${bucket}`);
        expect(released).toBeGreaterThanOrEqual(0);
        expect(log.indexOf(`c acquired ${bucket}`)).toBeGreaterThan(released);
      }
    });

    it('watched$: a moving bucket stays watched by its old owner until released, and by its new one from assignment', async () => {
      const a = member('a', { drainTimeoutMs: 5_000 });
      const c = member('c');
      const watched = (m: Member): Promise<readonly number[]> => firstValueFrom(m.ring.watched$);
      await join(a);
      expect(await watched(a)).toEqual(all);
      const owners = assignBuckets(BUCKETS, ['a', 'c']);
      const ofC = all.filter((bucket) => owners[bucket] === 'c');
      const moving = ofC[0]!;
      const reconcile$ = new Observable<never>(() => undefined); // in flight until cancelled
      a.ring.gate.run(moving, reconcile$)!.subscribe();
      await join(c);
      // c's assignment gives it its buckets at once: it watches them before holding any fence.
      expect(await watched(c)).toEqual(ofC);
      expect(owned(c)).toEqual([]);
      const next = firstValueFrom(a.ring.ticks$);
      a.clock.advance(RETRY);
      await next;
      // a releases the idle buckets (no longer watched); the draining one stays until released.
      const drainingOnly = all.filter((bucket) => owners[bucket] === 'a' || bucket === moving);
      await firstValueFrom(a.ring.watched$.pipe(filter((w) => w.length === drainingOnly.length)));
      expect(await watched(a)).toEqual(drainingOnly);
      a.clock.advance(5_000); // drain deadline: cancel, then release
      await a.ring.settled();
      expect(await watched(a)).toEqual(all.filter((bucket) => owners[bucket] === 'a'));
    });

    it('fencing: a moving bucket with a reconcile in flight is released only after the drain deadline cancelled it', async () => {
      const a = member('a', { drainTimeoutMs: 5_000 });
      const c = member('c');
      await join(a);
      const moving = assignBuckets(BUCKETS, ['a', 'c']).indexOf('c');
      let unsubscribed = false;
      const reconcile$ = new Observable<never>(() => () => (unsubscribed = true)); // never ends by itself
      a.ring.gate.run(moving, reconcile$)!.subscribe();
      await join(c);
      // a's look starts the hand-off; it waits for the reconcile in flight.
      const next = firstValueFrom(a.ring.ticks$);
      a.clock.advance(RETRY);
      await next;
      expect(a.ring.gate.isOpen(moving)).toBe(false); // intake stopped at once
      expect(a.ring.gate.inFlight(moving)).toBe(1);
      await step(c, RETRY);
      expect(c.ring.gate.isOpen(moving)).toBe(false); // fence still a's: c waits
      a.clock.advance(5_000); // drain deadline: cancel, then release
      await a.ring.settled();
      expect(a.ring.gate.inFlight(moving)).toBe(0);
      expect(unsubscribed).toBe(true);
      expect(log).toContain(`a released ${moving}`);
      await step(c, RETRY);
      expect(c.ring.gate.isOpen(moving)).toBe(true);
      expect(log.indexOf(`c acquired ${moving}`)).toBeGreaterThan(log.indexOf(`a released ${moving}`));
    });

    it('a killed member keeps its buckets until its membership expired, then the others take them', async () => {
      const a = member('a');
      const c = member('c');
      await join(a);
      await join(c);
      await step(a, RETRY);
      await step(c, RETRY);
      const ofA = owned(a);
      expect(ofA.length).toBeGreaterThan(0);
      await step(a, RETRY); // a's last renewal
      a.ring.stop(); // killed: nothing released
      await step(c, RETRY); // c first sees a's last record: observed time T0
      for (let t = RETRY; t < LEASE; t += RETRY) {
        await step(c, RETRY); // up to T0 + 14 s: a is still a member
        expect(owned(c).filter((bucket) => ofA.includes(bucket))).toEqual([]);
      }
      await step(c, RETRY); // T0 + 16 s ≥ 15 s: a left the ring; c takes every bucket
      expect(owned(c)).toEqual(all);
      expect(c.ring.deadMemberBoundMs).toBe(LEASE + 2 * RETRY);
    });

    it('a member that cannot renew for retryPeriod + renewDeadline closes every bucket at once', () =>
      (async () => {
        const a = member('a');
        await join(a);
        expect(owned(a)).toEqual(all);
        // Frozen: 12 s pass before any renewal can complete (the timers run synchronously).
        a.clock.advance(RETRY + 10_000);
        expect(owned(a)).toEqual([]);
        expect(log.filter((l) => l.startsWith('a lost'))).toHaveLength(BUCKETS);
        await a.ring.settled();
      })());

    it('a fence lost at the renew deadline but still naming the member is handed back once the bucket is not its own', async () => {
      const a = member('a');
      const c = member('c');
      await join(a);
      await join(c); // c is a member; every fence is a's
      // a freezes past its renew deadline: every bucket lost, the fences still name it.
      a.clock.advance(RETRY + 10_000);
      expect(owned(a)).toEqual([]);
      await a.ring.settled(); // its late look renews, takes back its own buckets, hands back c's
      await step(c, RETRY);
      const owners = assignBuckets(BUCKETS, ['a', 'c']);
      expect(owned(c)).toEqual(all.filter((bucket) => owners[bucket] === 'c'));
      expectDisjoint(a, c);
    });

    it('a graceful leave releases at once: the others take the buckets at their next look', async () => {
      const a = member('a');
      const c = member('c');
      await join(a);
      await join(c);
      await step(a, RETRY);
      await step(c, RETRY);
      await c.ring.leave();
      expect(owned(c)).toEqual([]);
      await step(a, RETRY);
      expect(owned(a)).toEqual(all);
    });

    it('a second replica with the identity of a live one refuses to join', async () => {
      const a = member('same');
      await join(a);
      const twin = member('same');
      const joined = twin.ring.join();
      joined.catch(() => undefined);
      await step(twin, 0); // sees the Lease held by its identity: watches it
      await step(a, RETRY); // the live replica renews: one change may be a killed replica's last
      await step(twin, RETRY);
      await step(a, RETRY); // and renews again: a live replica
      const next = firstValueFrom(twin.ring.ticks$);
      twin.clock.advance(RETRY);
      await next;
      await expect(joined).rejects.toBeInstanceOf(DuplicateShardIdentityError);
      await expect(joined).rejects.toThrow(/give each replica its own identity/);
      expect(owned(twin)).toEqual([]);
    });

    it('a frozen member whose identity was taken meanwhile finds the Lease renewed by another and stops', async () => {
      const a = member('same');
      await join(a);
      await step(a, RETRY);
      expect(owned(a)).toEqual(all);
      const fatal: DuplicateShardIdentityError[] = [];
      a.ring.fatal$.subscribe((e) => fatal.push(e));
      // a freezes (its clock stops); a replica with its identity joins after one lease duration.
      const twin = member('same');
      const joined = twin.ring.join();
      await step(twin, 0);
      for (let t = 0; t < LEASE; t += RETRY) await step(twin, RETRY);
      await joined;
      // a thaws: its next renewal reads a Lease it did not write, so it stops and says why.
      await step(a, RETRY);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]).toBeInstanceOf(DuplicateShardIdentityError);
      expect(owned(a)).toEqual([]);
      // The twin, whose writes are the last, goes on renewing and is not told anything.
      const twinFatal: unknown[] = [];
      twin.ring.fatal$.subscribe((e) => twinFatal.push(e));
      for (let i = 0; i < 3; i++) await step(twin, RETRY);
      expect(twinFatal).toEqual([]);
    });

    it('a killed replica whose last renewal lands while its restart watches does not stop the restart', async () => {
      const a = member('same');
      await join(a);
      const again = member('same');
      const joined = again.ring.join();
      await step(again, 0); // watches the Lease
      // a's last look is in flight when it is killed: its renewal lands after the restart looked.
      await step(a, RETRY);
      a.ring.stop();
      for (let t = 0; t < 2 * LEASE; t += RETRY) await step(again, RETRY);
      await joined;
      await step(again, RETRY);
      expect(owned(again)).toEqual(all);
    });

    it('a ring stopped while its look is under way writes nothing more', async () => {
      const a = member('a');
      await join(a);
      const name = memberLeaseName(ring, 'a');
      const lease = () =>
        client.get<Lease>({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          namespace: 'default',
          name,
        });
      const before = (await lease()).metadata.resourceVersion;
      const next = firstValueFrom(a.ring.ticks$);
      a.clock.advance(RETRY); // the look starts; its requests are still to be answered
      a.ring.stop();
      await next;
      expect((await lease()).metadata.resourceVersion).toBe(before);
    });

    it('a restart under the same identity takes over its stale Lease after one lease duration', async () => {
      const a = member('same');
      await join(a);
      a.ring.stop();
      const again = member('same');
      const joined = again.ring.join();
      await step(again, 0);
      for (let t = 0; t < LEASE; t += RETRY) await step(again, RETRY);
      await joined;
      await step(again, RETRY);
      expect(owned(again)).toEqual(all);
    });
  },
  { controllerManager: false },
);
