import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import type { Lease } from './leader-elector.js';
import { LeaderElector, microTime } from './leader-elector.js';
import { step, VirtualClock } from './virtual-clock.test.helper.js';

// Election over HTTP against each backend; each candidate has its own virtual clock, so durations
// are client-go's real ones (15 s / 10 s / 2 s) and a candidate can be frozen.
describeEachBackend(
  'LeaderElector (Lease, over HTTP)',
  (b) => {
    let client: KubeClient;
    const electors: LeaderElector[] = [];
    let leaseSeq = 0;
    let lease = '';

    beforeAll(() => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterAll(() => {
      client.close();
    });
    afterEach(() => {
      for (const e of electors.splice(0)) e.stop();
      lease = `leader-${++leaseSeq}`;
    });
    lease = `leader-${leaseSeq}`;

    function candidate(identity: string): { elector: LeaderElector; clock: VirtualClock; seen: boolean[] } {
      const clock = new VirtualClock();
      const elector = new LeaderElector(
        client,
        { leaseName: lease, leaseNamespace: 'default', identity, random: () => 0 },
        clock.scheduler,
      );
      const seen: boolean[] = [];
      elector.leadership$.subscribe((l) => seen.push(l));
      electors.push(elector);
      return { elector, clock, seen };
    }

    const read = (): Promise<Lease> =>
      client.get<Lease>({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        namespace: 'default',
        name: lease,
      });

    it('acquires a missing lease by creating it, with MicroTime stamps and 15 s duration', async () => {
      const a = candidate('a');
      a.elector.start();
      const attempt = await step(a.clock, a.elector, 0);
      expect(attempt).toMatchObject({ leading: true, holder: 'a' });
      expect(a.seen).toEqual([false, true]);
      const l = await read();
      expect(l.spec).toEqual({
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        acquireTime: microTime(a.clock.now),
        renewTime: microTime(a.clock.now),
        leaseTransitions: 0,
      });
      expect(l.spec?.renewTime).toMatch(/\.\d{6}Z$/);
    });

    it('keeps one leader while it renews: the other candidate never takes over', async () => {
      const a = candidate('a');
      const b = candidate('b');
      a.elector.start();
      b.elector.start();
      await step(a.clock, a.elector, 0);
      expect(await step(b.clock, b.elector, 0)).toMatchObject({ leading: false, holder: 'a' });
      // 30 s of both clocks in lockstep: a renews every 2 s, so b always sees a fresh record.
      for (let t = 0; t < 15; t++) {
        expect(await step(a.clock, a.elector, 2_000)).toMatchObject({ leading: true });
        expect(await step(b.clock, b.elector, 2_000)).toMatchObject({ leading: false, holder: 'a' });
      }
      expect(b.seen).toEqual([false]);
      const l = await read();
      expect(l.spec?.renewTime).toBe(microTime(a.clock.now));
      expect(l.spec?.acquireTime).toBe(microTime(a.clock.now - 30_000));
    });

    it('takes over a frozen leader after the lease duration; the leader steps down when it wakes', async () => {
      const a = candidate('a');
      const b = candidate('b');
      a.elector.start();
      b.elector.start();
      await step(a.clock, a.elector, 0);
      await step(b.clock, b.elector, 0); // b first sees the record at its t0
      // a is frozen (its clock stops). b tries every 2 s; the record stays unchanged.
      for (let t = 2_000; t < 16_000; t += 2_000) {
        expect(await step(b.clock, b.elector, 2_000)).toMatchObject({ leading: false, holder: 'a' });
      }
      // At t0 + 16 s more than 15 s have passed since b observed the record: expired.
      expect(await step(b.clock, b.elector, 2_000)).toMatchObject({ leading: true, holder: 'b' });
      expect((await read()).spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
      expect(a.seen).toEqual([false, true]); // a does not know yet: it is frozen
      // a wakes up: its next renew finds b holding the lease and steps down at once.
      expect(await step(a.clock, a.elector, 2_000)).toMatchObject({ leading: false, holder: 'b' });
      expect(a.seen).toEqual([false, true, false]);
      expect(a.elector.isLeader).toBe(false);
      expect((await read()).spec?.holderIdentity).toBe('b');
    });

    b.itOn('embedded', 'needs fault injection: 500s on the Lease')(
      'steps down when it cannot renew within the renew deadline (API errors)',
      async () => {
        const a = candidate('a');
        a.elector.start();
        await step(a.clock, a.elector, 0);
        b.apiServer.faults.failNext({ status: 500, count: 100, method: 'GET', path: /\/leases\// });
        // Renew tries at +2, +4, … fail; the deadline is last renew + 2 s + 10 s.
        for (let t = 2_000; t <= 10_000; t += 2_000) {
          expect(await step(a.clock, a.elector, 2_000)).toMatchObject({ leading: false });
          expect(a.elector.isLeader).toBe(true);
        }
        a.clock.advance(2_000); // t = 12 s: the deadline timer fires (before the next try's response)
        expect(a.elector.isLeader).toBe(false);
        expect(a.seen).toEqual([false, true, false]);
        b.apiServer.faults.reset();
      },
    );

    it('release() hands the lease over at once: the successor does not wait out the duration', async () => {
      const a = candidate('a');
      const b = candidate('b');
      a.elector.start();
      b.elector.start();
      await step(a.clock, a.elector, 0);
      await step(b.clock, b.elector, 0);
      await a.elector.release();
      expect(a.seen).toEqual([false, true, false]);
      expect((await read()).spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
      expect(await step(b.clock, b.elector, 2_000)).toMatchObject({ leading: true, holder: 'b' });
    });

    it('lets exactly one of two simultaneous candidates win a missing lease', async () => {
      const a = candidate('a');
      const b = candidate('b');
      a.elector.start();
      b.elector.start();
      const [ra, rb] = await Promise.all([step(a.clock, a.elector, 0), step(b.clock, b.elector, 0)]);
      expect([ra.leading, rb.leading].filter(Boolean)).toHaveLength(1);
      expect((await read()).spec?.holderIdentity).toBe(ra.leading ? 'a' : 'b');
    });

    b.itOn('embedded', 'needs fault injection: a 500 on the Lease')(
      'reports a failed try (500) as an attempt error, never as an Observable error',
      async () => {
        const a = candidate('a');
        a.elector.start();
        b.apiServer.faults.failNext({ status: 500, count: 1, method: 'GET', path: /\/leases\// });
        const attempt = await step(a.clock, a.elector, 0);
        expect(attempt.leading).toBe(false);
        expect(attempt.error).toBeDefined();
        expect(await step(a.clock, a.elector, 2_000)).toMatchObject({ leading: true });
      },
    );

    it('refuses durations that break leaseDuration > renewDeadline > 1.2 × retryPeriod', () => {
      expect(
        () => new LeaderElector(client, { leaseName: 'x', leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }),
      ).toThrow(InvalidArgumentError);
      expect(
        () => new LeaderElector(client, { leaseName: 'x', renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }),
      ).toThrow(/1.2 × retryPeriodMs/);
      expect(() => new LeaderElector(client, { leaseName: 'Not_A_Name' })).toThrow(/DNS subdomain/);
    });
    // no controller of kube-controller-manager takes part: the API server alone, as envtest's default
  },
  { controllerManager: false },
);
