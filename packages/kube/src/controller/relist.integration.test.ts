/**
 * Issue 12 §1 over HTTP: the reconciles a relist triggers must read the relisted state. The
 * reproduction of the issue, on the embedded API server's fault injection (so embedded only): one
 * ConfigMap `a`, concurrency 2, a 20 ms reconcile; once the watch is open, stall it, patch `a`,
 * create `b`, expire the next watch and drop the current one. The relist must reconcile `a` at its
 * new resourceVersion and reconcile `b` (not skip it as absent).
 */
import { Action } from '@rxkube/core';
import type { ApiServer } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { defer, filter, firstValueFrom, ReplaySubject, Subject, take, timeout, timer } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { KubeObject } from '../types.js';
import type { WatcherHealth } from '../watcher/health.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
import type { ControllerResult } from './controller.js';
import { controller } from './controller.js';

const NS = 'relist';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

describeEachBackend(
  'controller relist over HTTP',
  (b) => {
    let server: ApiServer;
    let client: KubeClient;
    beforeAll(async () => {
      server = b.apiServer;
      client = KubeClient.fromKubeConfig(server.kubeConfig);
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    });
    afterAll(() => {
      client.close();
    });

    it('reconciles a changed object at its new resourceVersion and a created one after a 410 relist', async () => {
      const a = await client.create<KubeObject>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: NS },
        data: { v: '1' },
      });
      const healths = new Subject<WatcherHealth>();
      const registry = new WatchRegistry(client, {
        // Quick reconnects keep the test short; one object per page spreads the relist over several
        // responses (ticks), as a large list is.
        watcher: { pageSize: 1, backoff: { initialMs: 20, maxMs: 100, jitter: 0 } },
        health: (_t, h) => healths.next(h),
      });
      /** Every reconcile: key and the resourceVersion it read. */
      const seen: { key: string; rv: string | undefined }[] = [];
      const results = new ReplaySubject<ControllerResult>(1_000);
      const sub = controller({ for: CM, namespace: NS, concurrency: 2, client, registry, log: {} })
        .run((_request, ctx) =>
          defer(async () => {
            seen.push({ key: ctx.key, rv: ctx.object.metadata.resourceVersion });
            await firstValueFrom(timer(20));
            return Action.awaitChange();
          }),
        )
        .subscribe(results);
      const watching = firstValueFrom(
        healths.pipe(
          filter((h) => h.phase === 'watching'),
          take(1),
          timeout(10_000),
        ),
      );
      try {
        await watching;
        await firstValueFrom(results.pipe(filter((r) => r.key === `${NS}/a`)).pipe(timeout(10_000)));
        expect(seen).toEqual([{ key: `${NS}/a`, rv: a.metadata.resourceVersion }]);

        expect(server.faults.stallWatches()).toBe(1);
        const patched = await client.patch<KubeObject>(
          { ...CM, namespace: NS, name: 'a' },
          { type: 'merge', body: { data: { v: '2' } } },
        );
        const b = await client.create<KubeObject>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'b', namespace: NS },
        });
        server.faults.expireNextWatch();
        expect(server.faults.dropWatches()).toBe(1);

        const reconciled = (key: string, rv: string | undefined): boolean =>
          seen.some((s) => s.key === key && s.rv === rv);
        await firstValueFrom(
          results.pipe(
            filter(
              () =>
                reconciled(`${NS}/a`, patched.metadata.resourceVersion) &&
                reconciled(`${NS}/b`, b.metadata.resourceVersion),
            ),
            timeout({
              first: 10_000,
              with: () => {
                throw new Error(`not converged after the relist; reconciles seen: ${JSON.stringify(seen)}`);
              },
            }),
          ),
        );
        expect(server.faults.counts.watchesExpired).toBe(1);
      } finally {
        sub.unsubscribe();
      }
    });

    // The fault injection expires every watch, the primary's too, so the relist of the primary may
    // also rerun p: this test proves convergence over the wire for owned and mapped kinds; the marble
    // tests in relist.test.ts prove (they fail without it) that such a trigger waits for InitDone.
    it('reruns an owner after its child and a mapped object changed while the watches were away, reading both new versions', async () => {
      const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
      const SA = { apiVersion: 'v1', kind: 'ServiceAccount' } as const;
      const p = await client.create<KubeObject>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'p', namespace: NS },
      });
      const owner = [
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid: p.metadata.uid ?? '', controller: true },
      ];
      await client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'p-child', namespace: NS, ownerReferences: owner },
        stringData: { v: '1' },
      });
      await client.create({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'p-sa', namespace: NS, labels: { target: 'p' } },
      });
      // q and its objects sort after p's, so each relist spans two pages and p's changed objects are
      // on the first: a trigger taken from the page would read the previous list
      const q = await client.create<KubeObject>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'q', namespace: NS },
      });
      await client.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'q-child',
          namespace: NS,
          ownerReferences: [{ ...owner[0]!, name: 'q', uid: q.metadata.uid ?? '' }],
        },
      });
      await client.create({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'q-sa', namespace: NS, labels: { target: 'q' } },
      });
      const watching = new Set<string>();
      const healths = new Subject<void>();
      const registry = new WatchRegistry(client, {
        watcher: { pageSize: 1, backoff: { initialMs: 20, maxMs: 100, jitter: 0 } },
        health: (t, h) => {
          if (h.phase === 'watching') watching.add(t.resource.kind);
          healths.next();
        },
      });
      const seen: { child: string | undefined; sa: string | undefined }[] = [];
      const results = new ReplaySubject<ControllerResult>(1_000);
      const sub = controller({
        for: CM,
        namespace: NS,
        owns: [SECRET],
        watches: [
          { resource: SA, map: (sa) => [{ namespace: NS, name: sa.metadata.labels?.['target'] ?? '' }] },
        ],
        client,
        registry,
        log: {},
      })
        .run((_request, ctx) =>
          defer(async () => {
            if (ctx.key === `${NS}/p`) {
              seen.push({
                child: ctx.owned(SECRET)[0]?.metadata.resourceVersion,
                sa: ctx.cache.get(SA, `${NS}/p-sa`)?.metadata.resourceVersion,
              });
            }
            await firstValueFrom(timer(20));
            return Action.awaitChange();
          }),
        )
        .subscribe(results);
      try {
        await firstValueFrom(
          healths.pipe(
            filter(() => watching.size === 3),
            timeout(10_000),
          ),
        );
        await firstValueFrom(
          results.pipe(
            filter((r) => r.key === `${NS}/p`),
            timeout(10_000),
          ),
        );
        expect(server.faults.stallWatches()).toBe(3);
        const child = await client.patch<KubeObject>(
          { ...SECRET, namespace: NS, name: 'p-child' },
          { type: 'merge', body: { stringData: { v: '2' } } },
        );
        const sa = await client.patch<KubeObject>(
          { ...SA, namespace: NS, name: 'p-sa' },
          { type: 'merge', body: { metadata: { annotations: { touched: 'yes' } } } },
        );
        server.faults.expireNextWatch(3);
        expect(server.faults.dropWatches()).toBe(3);
        const want = { child: child.metadata.resourceVersion, sa: sa.metadata.resourceVersion };
        await firstValueFrom(
          results.pipe(
            filter(() => seen.some((s) => s.child === want.child && s.sa === want.sa)),
            timeout({
              first: 10_000,
              with: () => {
                throw new Error(
                  `p never read both new versions ${JSON.stringify(want)}; reads: ${JSON.stringify(seen)}`,
                );
              },
            }),
          ),
        );
      } finally {
        sub.unsubscribe();
      }
    });
  },
  {
    only: 'embedded',
    why: 'needs fault injection: a stalled watch, writes it misses, then an expired and a dropped one',
  },
);
