import { describeEachBackend } from '@rxkube/testing/vitest';
import { filter, firstValueFrom, take, timeout, toArray } from 'rxjs';
import { afterAll, beforeAll, expect } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { KubeObject } from '../types.js';
import { bucketOf } from './assignment.js';
import { shardSelector } from './selector.js';
import { supportsShardSelector } from './server-support.js';

const NS = 'shard-selector';
const PATH = `/api/v1/namespaces/${NS}/configmaps`;
const TARGET = { verb: 'list', group: '', resource: 'configmaps', namespace: NS } as const;

interface List {
  readonly metadata: {
    readonly resourceVersion?: string;
    readonly shardInfo?: { readonly selector: string };
  };
  readonly items: KubeObject[];
}

// KEP-5866 on the wire: the embedded server filters lists and watches by shardSelector and echoes
// it in metadata.shardInfo; kube-apiserver v1.24 ignores the parameter (no shardInfo: the client
// then filters itself with the identical hash).
describeEachBackend(
  'shardSelector and shardInfo (KEP-5866, over HTTP)',
  (b) => {
    let client: KubeClient;
    const halves = [shardSelector([0], 2, 'uid')!, shardSelector([1], 2, 'uid')!];
    const list = (selector: string): Promise<List> =>
      client.transport.request<List>({
        method: 'GET',
        path: PATH,
        query: { shardSelector: selector },
        target: TARGET,
      });

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      for (let i = 0; i < 40; i++) {
        await client.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace: NS },
        });
      }
    });
    afterAll(() => client.close());

    b.itOn('embedded', 'kube-apiserver v1.24 has no ShardedListAndWatch')(
      'a list keeps the objects whose uid hash is in range, and echoes the selector in shardInfo',
      async () => {
        const [low, high] = await Promise.all(halves.map(list));
        expect(low!.metadata.shardInfo).toEqual({ selector: halves[0] });
        expect(high!.metadata.shardInfo).toEqual({ selector: halves[1] });
        for (const o of low!.items) expect(bucketOf(o.metadata.uid ?? '', 2)).toBe(0);
        for (const o of high!.items) expect(bucketOf(o.metadata.uid ?? '', 2)).toBe(1);
        expect(low!.items.length + high!.items.length).toBe(40);
        expect(low!.items.length).toBeGreaterThan(0);
        expect(high!.items.length).toBeGreaterThan(0);
      },
    );

    b.itOn('embedded', 'kube-apiserver v1.24 has no ShardedListAndWatch')(
      'a watch carries only the objects of its ranges; a malformed selector is a 400',
      async () => {
        const rv = (await list(halves[0]!)).metadata.resourceVersion ?? '';
        const watch = (selector: string) =>
          client.transport
            .watch<KubeObject>({
              method: 'GET',
              path: PATH,
              query: { watch: true, resourceVersion: rv, shardSelector: selector },
              target: { ...TARGET, verb: 'watch' },
            })
            .pipe(
              filter((e) => e.type === 'ADDED'),
              take(1),
              timeout(10_000),
              toArray(),
            );
        const lows = firstValueFrom(watch(halves[0]!));
        const highs = firstValueFrom(watch(halves[1]!));
        // Create objects until one of each half exists.
        const seen = new Set<number>();
        for (let i = 0; seen.size < 2 && i < 64; i++) {
          const o = await client.create<KubeObject>({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `w-${i}`, namespace: NS },
          });
          seen.add(bucketOf(o.metadata.uid ?? '', 2));
        }
        const [low, high] = await Promise.all([lows, highs]);
        for (const e of low) if (e.type === 'ADDED') expect(bucketOf(e.object.metadata.uid ?? '', 2)).toBe(0);
        for (const e of high)
          if (e.type === 'ADDED') expect(bucketOf(e.object.metadata.uid ?? '', 2)).toBe(1);
        await expect(list("shardRange(object.metadata.name, '0x0', '0x1')")).rejects.toMatchObject({
          code: 400,
        });
      },
    );

    b.itOn('embedded', 'kube-apiserver v1.24 has no ShardedListAndWatch')(
      'supportsShardSelector: the embedded server applies the selector (shardInfo echoed)',
      async () => {
        expect(await supportsShardSelector(client, { apiVersion: 'v1', kind: 'ConfigMap' }, NS)).toBe(true);
      },
    );

    b.itOn('real', 'the embedded server implements KEP-5866')(
      'supportsShardSelector: kube-apiserver v1.24 does not (no shardInfo), so clients filter themselves',
      async () => {
        expect(await supportsShardSelector(client, { apiVersion: 'v1', kind: 'ConfigMap' }, NS)).toBe(false);
      },
    );

    b.itOn('real', 'the embedded server implements KEP-5866')(
      'kube-apiserver v1.24 ignores shardSelector: every object, no shardInfo',
      async () => {
        const low = await list(halves[0]!);
        expect(low.metadata.shardInfo).toBeUndefined();
        expect(low.items).toHaveLength(40);
      },
    );
  },
  { controllerManager: false },
);
