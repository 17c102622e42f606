import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import type { Observable, Subscription } from 'rxjs';
import { filter, firstValueFrom, take, takeWhile, tap, toArray } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { isForbidden, KubeApiError, KubeTransportError } from '../errors.js';
import type { KubeObject, WatchEvent } from '../types.js';
import type { WatcherHealth } from './health.js';
import type { RawWatchEvent } from './source.js';
import { INITIAL_EVENTS_END_ANNOTATION } from './source.js';
import { watcher } from './watcher.js';
import {
  clientAs,
  expireWatches,
  limitedUsers,
  openWatches,
  permit,
} from '../client/backends.test.helper.js';
import { KubeClient } from '../client/kube-client.js';
import { listWatchSource } from './list-watch-source.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const users = limitedUsers({ limited: 'limited' });

let client: KubeClient;

const cm = (
  namespace: string,
  name: string,
  data: Record<string, string> = { k: 'v' },
  labels?: Record<string, string>,
) => ({
  ...CM,
  metadata: { name, namespace, ...(labels ? { labels } : {}) },
  data,
});

async function namespace(name: string): Promise<string> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

const describeEvent = (e: RawWatchEvent) =>
  e.type === 'MALFORMED'
    ? `MALFORMED`
    : e.type === 'ERROR'
      ? `ERROR ${e.object.code}`
      : e.type === 'BOOKMARK'
        ? 'BOOKMARK'
        : `${e.type} ${e.object.metadata.name}`;

describeEachBackend(
  'listWatchSource over HTTP',
  (b) => {
    beforeAll(() => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterAll(() => {
      client.close();
    });

    it('lists pages with limit/continue; items carry apiVersion and kind', async () => {
      const ns = await namespace('lws-list');
      for (const n of ['a', 'b', 'c']) await client.create(cm(ns, n));
      const source = listWatchSource(client, CM, { namespace: ns });
      const first = await firstValueFrom(source.list({ limit: 2 }));
      expect(first.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
      expect(first.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
      expect(first.continue).toBeTruthy();
      const second = await firstValueFrom(source.list({ limit: 2, continue: first.continue! }));
      expect(second.items.map((i) => i.metadata.name)).toEqual(['c']);
      expect(second.continue).toBeUndefined();
      expect(second.resourceVersion).toBe(first.resourceVersion);
    });

    it('streams ADDED, MODIFIED, DELETED, then a BOOKMARK, from the list resourceVersion', async () => {
      const ns = await namespace('lws-watch');
      const source = listWatchSource(client, CM, { namespace: ns });
      const page = await firstValueFrom(source.list({ limit: 500 }));
      // A BOOKMARK comes only once the resource has changed since the watch began: the embedded
      // server checks every 50 ms here, a real one sends it 2 s before the watch's timeout (the
      // watch cache's pre-timeout bookmark, staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go).
      // So the writes follow the watch's start; collect until the first BOOKMARK after DELETED.
      let deleted = false;
      const before = await openWatches(b.cluster, 'configmaps', 'namespace');
      const events: Promise<RawWatchEvent[]> = firstValueFrom(
        source
          .watch({ resourceVersion: page.resourceVersion, timeoutSeconds: 5, allowWatchBookmarks: true })
          .pipe(
            takeWhile((e) => {
              if (e.type === 'DELETED') deleted = true;
              return !(deleted && e.type === 'BOOKMARK');
            }, true),
            toArray(),
          ),
      );
      await waitFor(
        'the watch open on the server',
        async () => (await openWatches(b.cluster, 'configmaps', 'namespace')) > before,
      );
      const created = await client.create(cm(ns, 'w'));
      await client.replace({ ...created, data: { k: 'w' } });
      await client.delete({ ...CM, namespace: ns, name: 'w' });
      const seen = await events;
      expect(seen.filter((e) => e.type !== 'BOOKMARK').map(describeEvent)).toEqual([
        'ADDED w',
        'MODIFIED w',
        'DELETED w',
      ]);
      const last = seen[seen.length - 1];
      const deletedEvent = seen.find((e) => e.type === 'DELETED') as { object: KubeObject };
      expect(last?.type).toBe('BOOKMARK');
      expect(
        last?.type === 'BOOKMARK' && Number(last.object.metadata.resourceVersion),
      ).toBeGreaterThanOrEqual(Number(deletedEvent.object.metadata.resourceVersion));
      await waitFor(
        'the server to see the watch closed',
        async () => (await openWatches(b.cluster, 'configmaps', 'namespace')) === before,
      );
    });

    it('aborts the request on unsubscribe: the server sees the connection closed', async () => {
      const ns = await namespace('lws-abort');
      const source = listWatchSource(client, CM, { namespace: ns });
      const page = await firstValueFrom(source.list({ limit: 500 }));
      const received: RawWatchEvent[] = [];
      const before = await openWatches(b.cluster, 'configmaps', 'namespace');
      const sub: Subscription = source
        .watch({ resourceVersion: page.resourceVersion, timeoutSeconds: 600, allowWatchBookmarks: true })
        .subscribe({ next: (e) => received.push(e) });
      await waitFor(
        'the watch open on the server',
        async () => (await openWatches(b.cluster, 'configmaps', 'namespace')) === before + 1,
      );
      sub.unsubscribe();
      await waitFor(
        'the server to see it closed',
        async () => (await openWatches(b.cluster, 'configmaps', 'namespace')) === before,
      );
      await client.create(cm(ns, 'after'));
      expect(received.filter((e) => e.type !== 'BOOKMARK')).toEqual([]);
    });

    it('passes an ERROR line (410 Expired) through as an event, then completes', async () => {
      // embedded: an injected expiry; real: a restarted kube-apiserver, whose watch cache starts at
      // the current resourceVersion (staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go)
      await expireWatches(b.cluster);
      await waitFor('the API server to answer', () =>
        client.list(CM, { namespace: 'default' }).then(() => true),
      );
      const source = listWatchSource(client, CM, { namespace: 'default' });
      const events = await firstValueFrom(
        source.watch({ resourceVersion: '1', timeoutSeconds: 60, allowWatchBookmarks: true }).pipe(toArray()),
      );
      expect(events.map(describeEvent)).toEqual(['ERROR 410']);
      expect(events[0]).toMatchObject({ type: 'ERROR', object: { reason: 'Expired', code: 410 } });
    });

    b.itOn('embedded', 'needs fault injection: a watch line cut in the middle')(
      'errors with KubeTransportError when the connection is cut mid-line',
      async () => {
        const ns = await namespace('lws-cut');
        const source = listWatchSource(client, CM, { namespace: ns });
        const page = await firstValueFrom(source.list({ limit: 500 }));
        const before = b.apiServer.openWatches;
        const result = firstValueFrom(
          source
            .watch({ resourceVersion: page.resourceVersion, timeoutSeconds: 60, allowWatchBookmarks: true })
            .pipe(toArray()),
        ).catch((e: unknown) => e);
        await waitFor('the watch open on the server', () => b.apiServer.openWatches === before + 1);
        b.apiServer.faults.cutWatchesMidLine();
        await client.create(cm(ns, 'cut'));
        const e = await result;
        expect(e).toBeInstanceOf(KubeTransportError);
        expect((e as Error).message).toContain('before the watch response ended');
      },
    );

    it('watches metadata only with as=PartialObjectMetadata (and lists with the List form)', async () => {
      const ns = await namespace('lws-meta');
      await client.create(cm(ns, 'm1', { secret: 'not sent' }));
      const source = listWatchSource(client, CM, { namespace: ns, metadataOnly: true });
      const page = await firstValueFrom(source.list({ limit: 500 }));
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'm1' } });
      expect(page.items[0]).not.toHaveProperty('data');
      const next = firstValueFrom(
        source
          .watch({ resourceVersion: page.resourceVersion, timeoutSeconds: 60, allowWatchBookmarks: true })
          .pipe(
            filter((e) => e.type === 'ADDED'),
            take(1),
          ),
      );
      // from the list's resourceVersion: replayed whenever the watch opens
      await client.create(cm(ns, 'm2', { secret: 'not sent either' }));
      const added = await next;
      expect(added).toMatchObject({
        type: 'ADDED',
        object: { kind: 'PartialObjectMetadata', metadata: { name: 'm2' } },
      });
      expect((added as { object: KubeObject }).object).not.toHaveProperty('data');
    });

    it('errors with a KubeApiError naming the RBAC rule when the watch is forbidden', async () => {
      await permit(client, {
        user: 'limited',
        verbs: ['list'],
        group: '',
        resources: ['configmaps'],
        namespace: 'default',
      });
      const c = clientAs(b.cluster, 'limited');
      try {
        const source = listWatchSource(c, CM, { namespace: 'default' });
        // a real server's RBAC authorizer reads its informer cache: the grant applies a moment later
        const page = await waitFor('the list allowed', () =>
          firstValueFrom(source.list({ limit: 10 })).catch(() => undefined),
        );
        const e: unknown = await firstValueFrom(
          source.watch({
            resourceVersion: page.resourceVersion,
            timeoutSeconds: 60,
            allowWatchBookmarks: true,
          }),
        ).catch((x: unknown) => x);
        expect(isForbidden(e)).toBe(true);
        expect(e).toBeInstanceOf(KubeApiError);
        expect((e as Error).message).toContain(
          'rxkube needs RBAC permission to "watch" "configmaps" in namespace "default"',
        );
      } finally {
        c.close();
      }
    });

    it('feeds the watcher: Init, InitApply, InitDone, then Apply and Delete', async () => {
      const ns = await namespace('lws-watcher');
      await client.create(cm(ns, 'pre'));
      const events$: Observable<WatchEvent> = watcher(listWatchSource(client, CM, { namespace: ns }));
      // One subscription: the live writes start once this very watcher reported InitDone. They are
      // awaited too: a real server may send the DELETED event before the DELETE's response.
      let writes: Promise<unknown> = Promise.resolve();
      const events = await firstValueFrom(
        events$.pipe(
          tap((e) => {
            if (e.type === 'InitDone') {
              writes = client
                .create(cm(ns, 'live'))
                .then(() => client.delete({ ...CM, namespace: ns, name: 'live' }));
            }
          }),
          takeWhile((e) => e.type !== 'Delete', true),
          toArray(),
        ),
      );
      const seen = events.map((e) =>
        e.type === 'Init' || e.type === 'InitDone' ? e.type : `${e.type} ${e.object.metadata.name}`,
      );
      // a consumer drops what came before the last Init: on 1.24 the first watcher of a client sees
      // its refused stream's Init, then the paged list's (the fallback; see the tests below)
      expect(seen.slice(seen.lastIndexOf('Init'))).toEqual([
        'Init',
        'InitApply pre',
        'InitDone',
        'Apply live',
        'Delete live',
      ]);
      expect(seen.filter((e) => e === 'Init')).toHaveLength(b.name === 'embedded' ? 1 : 2);
      await writes;
    });

    it('asks for a streaming list: initial events and the end bookmark (1.34), a 422 on 1.24', async () => {
      const ns = await namespace('lws-stream');
      await client.create(cm(ns, 'pre'));
      const source = listWatchSource(client, CM, { namespace: ns });
      const stream$ = source.watch({
        resourceVersion: '',
        timeoutSeconds: 10,
        allowWatchBookmarks: true,
        sendInitialEvents: true,
      });
      if (b.name === 'embedded') {
        const lines = await firstValueFrom(
          stream$.pipe(
            takeWhile((e) => e.type !== 'BOOKMARK', true),
            toArray(),
          ),
        );
        expect(lines.map(describeEvent)).toEqual(['ADDED pre', 'BOOKMARK']);
        const end = lines[1];
        expect(end?.type === 'BOOKMARK' && end.object.metadata.annotations).toEqual({
          [INITIAL_EVENTS_END_ANNOTATION]: 'true',
        });
      } else {
        const e = await firstValueFrom(stream$).catch((x: unknown) => x);
        expect(e).toBeInstanceOf(KubeApiError);
        expect((e as KubeApiError).code).toBe(422);
        expect((e as Error).message).toContain('resourceVersionMatch is forbidden for watch');
      }
    });

    it('streams initial lists where the server can, falls back to pages where not, said once per server', async () => {
      const ns = await namespace('lws-fallback');
      await client.create(cm(ns, 'pre'));
      const own = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      const said: string[] = [];
      const healths: WatcherHealth[] = [];
      try {
        const run = (): Promise<WatchEvent[]> =>
          firstValueFrom(
            watcher(own, CM, {
              namespace: ns,
              debug: (m) => said.push(m),
              health: (h) => healths.push(h),
            }).pipe(
              takeWhile((e) => e.type !== 'InitDone', true),
              toArray(),
            ),
          );
        const first = await run();
        const last = healths.at(-1);
        if (b.name === 'embedded') {
          expect(first.map((e) => e.type)).toEqual(['Init', 'InitApply', 'InitDone']);
          expect(last?.initialList).toBe('streaming');
          expect(said).toEqual([]);
        } else {
          // the refused stream, then the paged list: a second Init
          expect(first.map((e) => e.type)).toEqual(['Init', 'Init', 'InitApply', 'InitDone']);
          expect(last?.initialList).toBe('paged');
          expect(healths.find((h) => h.lastError !== undefined)?.lastError).toMatchObject({
            code: 422,
            reason: 'Invalid',
          });
          expect(said).toHaveLength(1);
          expect(said[0]).toContain('resourceVersionMatch is forbidden for watch');
        }
        // a second watcher of the same client (the same server) knows it from the start
        healths.length = 0;
        const second = await run();
        expect(second.map((e) => e.type)).toEqual(['Init', 'InitApply', 'InitDone']);
        expect(healths[0]?.initialList).toBe(b.name === 'embedded' ? 'streaming' : 'paged');
        expect(said).toHaveLength(b.name === 'embedded' ? 0 : 1);
      } finally {
        own.close();
      }
    });

    it('refuses unusable arguments at call time', () => {
      expect(() => listWatchSource(client, { apiVersion: '', kind: 'X' })).toThrow(/resource must be/);
      expect(() => listWatchSource(client, CM, { maxLineBytes: 10 })).toThrow(
        /maxLineBytes must be an integer >= 1024/,
      );
    });
  },
  {
    // kube-controller-manager would add a kube-root-ca.crt ConfigMap to each new namespace at a
    // moment of its choosing; these tests count a namespace's ConfigMaps exactly
    controllerManager: false,
    embedded: { bookmarkIntervalMs: 50, ...users.options.embedded },
    real: users.options.real,
  },
);
