import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { BehaviorSubject } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { KubeObject, WatchEvent } from '../types.js';
import { objectKey } from '../types.js';
import { bucketOf } from './assignment.js';
import type { ShardFiltering } from './sharded-watch.js';
import { shardedWatch } from './sharded-watch.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const BUCKETS = 8;
const OBJECTS = 60;

type Cm = KubeObject & { data?: Record<string, string> };

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

// The primary watch of a sharded controller over HTTP: server-side (KEP-5866 shardSelector, the
// embedded server) or client-side (kube-apiserver v1.24 ignores the parameter; forced on the
// embedded server too), each replica's Store exactly its buckets' objects.
describeEachBackend(
  'shardedWatch (a sharded primary watch, over HTTP)',
  (b) => {
    let client: KubeClient;
    beforeAll(() => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterAll(() => client.close());

    const cases: { name: string; force?: ShardFiltering; expected: ShardFiltering }[] = [
      { name: 'asked of the server', expected: b.name === 'embedded' ? 'server' : 'client' },
      ...(b.name === 'embedded'
        ? [{ name: 'forced client-side', force: 'client' as const, expected: 'client' as const }]
        : []),
    ];
    for (const c of cases) {
      it(`(${c.name}) holds exactly its buckets' objects; a gained range arrives as Apply, a lost one leaves without Delete`, async () => {
        const ns = `sharded-watch-${c.expected}-${c.force ?? 'auto'}`;
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
        const created: Cm[] = [];
        for (let i = 0; i < OBJECTS; i++) {
          created.push(
            await client.create<Cm>({
              ...CM,
              metadata: { name: `cm-${i}`, namespace: ns },
              data: { v: '0' },
            }),
          );
        }
        const bucket = (o: KubeObject): number => bucketOf(o.metadata.uid ?? '', BUCKETS);
        const keysIn = (buckets: readonly number[], objects: readonly KubeObject[] = created): string[] =>
          objects
            .filter((o) => buckets.includes(bucket(o)))
            .map(objectKey)
            .sort();
        const watched$ = new BehaviorSubject<readonly number[]>(range(0, 3));
        const w = shardedWatch<Cm>({
          client,
          target: { resource: CM, namespace: ns },
          buckets: BUCKETS,
          key: 'uid',
          watched$,
          ...(c.force !== undefined ? { filtering: c.force } : {}),
        });
        const events: WatchEvent<Cm>[] = [];
        const sub = w.events$.subscribe((e) => events.push(e));
        try {
          await waitFor('the first lists', () => w.synced, { timeoutMs: 30_000 });
          expect(w.filtering).toBe(c.expected);
          expect([...w.store.keys()].sort()).toEqual(keysIn(range(0, 3)));
          expect(events.map((e) => e.type)).toEqual([
            'Init',
            ...keysIn(range(0, 3)).map(() => 'InitApply'),
            'InitDone',
          ]);
          expect(w.watches).toBe(1);

          // Gain buckets 3..5: only their objects arrive, as Apply (the rest of the Store is whole).
          events.length = 0;
          watched$.next(range(0, 6));
          await waitFor('the gained buckets listed', () => w.store.size === keysIn(range(0, 6)).length, {
            timeoutMs: 30_000,
          });
          expect([...w.store.keys()].sort()).toEqual(keysIn(range(0, 6)));
          expect(events.every((e) => e.type === 'Apply')).toBe(true);
          // Server-side: one more watch of the gained range; client-side: the one watch, listed again.
          expect(w.watches).toBe(c.expected === 'server' ? 2 : 1);
          // (Client-side the relist is compared with the Store: the objects it held are not told.)
          expect(events.map((e) => objectKey((e as { object: Cm }).object)).sort()).toEqual(
            keysIn(range(3, 6)),
          );

          // Lose buckets 0..2: their objects leave the Store at once, and no Delete is told.
          events.length = 0;
          watched$.next(range(3, 6));
          expect([...w.store.keys()].sort()).toEqual(keysIn(range(3, 6)));
          expect(events).toEqual([]);

          // Live events: a change in a lost bucket says nothing; one in a watched bucket does.
          const lost = created.find((o) => range(0, 3).includes(bucket(o)))!;
          const kept = created.find((o) => range(3, 6).includes(bucket(o)))!;
          await client.patch(
            { ...CM, namespace: ns, name: lost.metadata.name ?? '' },
            { type: 'merge', body: { data: { v: '1' } } },
          );
          await client.patch(
            { ...CM, namespace: ns, name: kept.metadata.name ?? '' },
            { type: 'merge', body: { data: { v: '1' } } },
          );
          await waitFor('the kept object changed', () => w.store.get(objectKey(kept))?.data?.['v'] === '1', {
            timeoutMs: 30_000,
          });
          await client.delete({ ...CM, namespace: ns, name: kept.metadata.name ?? '' });
          await waitFor('the kept object deleted', () => w.store.get(objectKey(kept)) === undefined, {
            timeoutMs: 30_000,
          });
          expect(events.map((e) => `${e.type} ${objectKey((e as { object: Cm }).object)}`)).toEqual([
            `Apply ${objectKey(kept)}`,
            `Delete ${objectKey(kept)}`,
          ]);
          expect(w.store.get(objectKey(lost))).toBeUndefined();
          // Server-side, the watch of buckets 0..2 was closed with its last bucket.
          expect(w.watches).toBe(1);
        } finally {
          sub.unsubscribe();
        }
        expect(w.connected).toBe(false);
        expect(w.store.size).toBe(0);
      }, 60_000);
    }

    // The first list's objects go to the Store as they arrive (it keeps them transformed), not
    // held raw until the whole list ended; what leaves meanwhile leaves the list in progress too.
    for (const mode of ['server', 'client'] as const) {
      b.itOn('embedded', 'needs fault injection: a list page held by the server')(
        `(${mode}-side) the first list streams into the Store; a bucket lost, or an object deleted and re-listed, while it lists leaves it`,
        async () => {
          const ns = `sharded-watch-streaming-${mode}`;
          await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
          for (let i = 0; i < OBJECTS; i++) {
            await client.create<Cm>({
              ...CM,
              metadata: { name: `cm-${i}`, namespace: ns },
              data: { v: '0' },
            });
          }
          const bucket = (o: KubeObject): number => bucketOf(o.metadata.uid ?? '', BUCKETS);
          const inBuckets = (objects: readonly KubeObject[], buckets: readonly number[]): string[] =>
            objects
              .filter((o) => buckets.includes(bucket(o)))
              .map(objectKey)
              .sort();
          const listing = (): string[] => {
            expect(w.store.listing).toBe(true);
            return [...w.store.replay()]
              .flatMap((e) => (e.type === 'InitApply' ? [objectKey(e.object)] : []))
              .sort();
          };
          // The second page is held: the list stays in progress after its first page.
          b.apiServer.faults.stall({ method: 'GET', path: /\/configmaps\?.*continue=/, count: 1 });
          const watched$ = new BehaviorSubject<readonly number[]>(range(0, 6));
          const w = shardedWatch<Cm>({
            client,
            target: { resource: CM, namespace: ns },
            buckets: BUCKETS,
            key: 'uid',
            watched$,
            filtering: mode,
            watcher: { pageSize: 10, streamingLists: false },
          });
          const events: WatchEvent<Cm>[] = [];
          const sub = w.events$.subscribe((e) => events.push(e));
          try {
            await waitFor('the second page held', () => b.apiServer.faults.stalledRequests().length === 1, {
              timeoutMs: 30_000,
            });
            if (mode === 'server') {
              // The server sent a first page of objects of buckets 0..5; they are in the Store's list.
              const all = (await client.list<Cm>(CM, { namespace: ns })).items;
              const first = listing();
              expect(first.length).toBeGreaterThan(0);
              expect(first.length).toBeLessThanOrEqual(10);
              expect(inBuckets(all, range(0, 6))).toEqual(expect.arrayContaining(first));
              // Buckets 0..2 lost while listing: their objects leave the list in progress.
              watched$.next(range(3, 6));
              const kept = new Set(inBuckets(all, range(3, 6)));
              expect(listing()).toEqual(first.filter((key) => kept.has(key)));
            } else {
              const all = (await client.list<Cm>(CM, { namespace: ns })).items;
              const first = listing();
              expect(first.length).toBeGreaterThan(0);
              expect(first.length).toBeLessThanOrEqual(10);
              expect(inBuckets(all, range(0, 6))).toEqual(expect.arrayContaining(first));
              // One of them deleted, then buckets 6..7 gained: client-side the one watch lists
              // again from the start (its held page is dropped); the deleted object is not kept.
              const gone = all.find((o) => objectKey(o) === first[0])!;
              await client.delete({ ...CM, namespace: ns, name: gone.metadata.name ?? '' });
              watched$.next(range(0, 8));
              await waitFor('the list of every bucket', () => w.synced, { timeoutMs: 30_000 });
              const now = (await client.list<Cm>(CM, { namespace: ns })).items;
              expect([...w.store.keys()].sort()).toEqual(now.map(objectKey).sort());
              expect(w.store.get(objectKey(gone))).toBeUndefined();
              expect(events.filter((e) => e.type === 'InitDone')).toHaveLength(1);
              expect(events.some((e) => e.type === 'Delete')).toBe(false);
            }
          } finally {
            sub.unsubscribe();
          }
          expect(w.connected).toBe(false);
        },
        60_000,
      );
    }

    // Server-side, each range gained has its own watch: a name deleted and created again in another
    // bucket reaches the Store through two connections, in no common order. The old incarnation's
    // late change and deletion must not replace or remove the new one (kube-apiserver v1.24 has no
    // shardSelector: client-side there is one watch, and one order).
    b.itOn('embedded', 'the embedded server implements KEP-5866: one watch per gained range')(
      "(server-side) a name re-created in another watch's bucket: the old incarnation's late events leave the new one alone",
      async () => {
        const ns = 'sharded-watch-incarnations';
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
        const bucket = (o: KubeObject): number => bucketOf(o.metadata.uid ?? '', BUCKETS);
        const key = `${ns}/cm-x`;
        const old = await client.create<Cm>({
          ...CM,
          metadata: { name: 'cm-x', namespace: ns },
          data: { v: '0' },
        });
        const a = bucket(old);
        // A marker in the same bucket: once its change is in the Store, so is all before it on that watch.
        let marker: Cm;
        for (let i = 0; ; i++) {
          marker = await client.create<Cm>({ ...CM, metadata: { name: `marker-${i}`, namespace: ns } });
          if (bucket(marker) === a) break;
        }
        const watched$ = new BehaviorSubject<readonly number[]>([a]);
        const w = shardedWatch<Cm>({
          client,
          target: { resource: CM, namespace: ns },
          buckets: BUCKETS,
          key: 'uid',
          watched$,
          filtering: 'server',
        });
        const events: WatchEvent<Cm>[] = [];
        const sub = w.events$.subscribe((e) => events.push(e));
        try {
          await waitFor('the first list', () => w.synced, { timeoutMs: 30_000 });
          expect(w.store.get(key)?.metadata.uid).toBe(old.metadata.uid);
          // The watch of bucket `a` stops sending: what follows reaches it late.
          expect(b.apiServer.faults.stallWatches()).toBe(1);
          await client.patch(
            { ...CM, namespace: ns, name: 'cm-x' },
            { type: 'merge', body: { data: { v: '1' } } },
          );
          let current = old;
          while (bucket(current) === a) {
            await client.delete({ ...CM, namespace: ns, name: 'cm-x' });
            current = await client.create<Cm>({
              ...CM,
              metadata: { name: 'cm-x', namespace: ns },
              data: { v: '2' },
            });
          }
          // Its new bucket gained: a second watch lists it, and the Store holds the new incarnation.
          events.length = 0;
          watched$.next([a, bucket(current)]);
          await waitFor(
            'the new incarnation',
            () => w.store.get(key)?.metadata.uid === current.metadata.uid,
            {
              timeoutMs: 30_000,
            },
          );
          expect(w.watches).toBe(2);
          // The first watch reconnects and receives the old one's change and deletion, then the marker's.
          expect(b.apiServer.faults.dropWatches()).toBeGreaterThanOrEqual(1);
          await client.patch(
            { ...CM, namespace: ns, name: marker.metadata.name ?? '' },
            { type: 'merge', body: { data: { v: 'after' } } },
          );
          await waitFor('the marker changed', () => w.store.get(objectKey(marker))?.data?.['v'] === 'after', {
            timeoutMs: 30_000,
          });
          expect(w.store.get(key)?.metadata.uid).toBe(current.metadata.uid);
          expect(w.store.get(key)?.data).toEqual({ v: '2' });
          // Told once: the new incarnation's Apply (no Delete of the name, no older version).
          expect(
            events.flatMap((e) =>
              e.type !== 'Init' && e.type !== 'InitDone' && objectKey(e.object) === key
                ? [`${e.type} ${e.object.metadata.uid ?? ''}`]
                : [],
            ),
          ).toEqual([`Apply ${current.metadata.uid ?? ''}`]);
        } finally {
          sub.unsubscribe();
        }
      },
      60_000,
    );
  },
  { controllerManager: false, realTimeoutMs: 120_000 },
);
