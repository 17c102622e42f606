import type { ApiServer } from '@rxkube/testing';
import { rbacGrant, startApiServer } from '@rxkube/testing';
import type { Observable, Subscription } from 'rxjs';
import { filter, firstValueFrom, take, takeWhile, tap, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { isForbidden, KubeApiError, KubeTransportError } from '../errors.js';
import type { KubeObject, WatchEvent } from '../types.js';
import type { RawWatchEvent } from '../watcher/source.js';
import { watcher } from '../watcher/watcher.js';
import { KubeClient } from './kube-client.js';
import { listWatchSource } from './list-watch-source.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

let server: ApiServer;
let client: KubeClient;

beforeAll(async () => {
  server = await startApiServer({ bookmarkIntervalMs: 50 });
  client = KubeClient.fromKubeConfig(server.kubeConfig);
});
afterAll(async () => {
  client.close();
  await server.stop();
});

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

describe('listWatchSource over HTTP', () => {
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

  it('streams ADDED, MODIFIED, DELETED and BOOKMARK from the list resourceVersion', async () => {
    const ns = await namespace('lws-watch');
    const source = listWatchSource(client, CM, { namespace: ns });
    const page = await firstValueFrom(source.list({ limit: 500 }));
    // Bookmarks come every 50 ms, so some may fall between the writes: collect until the first
    // BOOKMARK after DELETED.
    let deleted = false;
    const events: Promise<RawWatchEvent[]> = firstValueFrom(
      source
        .watch({ resourceVersion: page.resourceVersion, timeoutSeconds: 60, allowWatchBookmarks: true })
        .pipe(
          takeWhile((e) => {
            if (e.type === 'DELETED') deleted = true;
            return !(deleted && e.type === 'BOOKMARK');
          }, true),
          toArray(),
        ),
    );
    await vi.waitFor(() => expect(server.openWatches).toBe(1));
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
    expect(last?.type === 'BOOKMARK' && Number(last.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
      Number(deletedEvent.object.metadata.resourceVersion),
    );
    await vi.waitFor(() => expect(server.openWatches).toBe(0));
  });

  it('aborts the request on unsubscribe: the server sees the connection closed', async () => {
    const ns = await namespace('lws-abort');
    const source = listWatchSource(client, CM, { namespace: ns });
    const page = await firstValueFrom(source.list({ limit: 500 }));
    const received: RawWatchEvent[] = [];
    const sub: Subscription = source
      .watch({ resourceVersion: page.resourceVersion, timeoutSeconds: 600, allowWatchBookmarks: true })
      .subscribe({ next: (e) => received.push(e) });
    await vi.waitFor(() => expect(server.openWatches).toBe(1));
    sub.unsubscribe();
    await vi.waitFor(() => expect(server.openWatches).toBe(0));
    await client.create(cm(ns, 'after'));
    expect(received.filter((e) => e.type !== 'BOOKMARK')).toEqual([]);
  });

  it('passes an ERROR line (410 Expired) through as an event, then completes', async () => {
    server.faults.expireNextWatch();
    const source = listWatchSource(client, CM, { namespace: 'default' });
    const events = await firstValueFrom(
      source.watch({ resourceVersion: '1', timeoutSeconds: 60, allowWatchBookmarks: true }).pipe(toArray()),
    );
    expect(events.map(describeEvent)).toEqual(['ERROR 410']);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { reason: 'Expired', code: 410 } });
  });

  it('errors with KubeTransportError when the connection is cut mid-line', async () => {
    const ns = await namespace('lws-cut');
    const source = listWatchSource(client, CM, { namespace: ns });
    const page = await firstValueFrom(source.list({ limit: 500 }));
    const result = firstValueFrom(
      source
        .watch({ resourceVersion: page.resourceVersion, timeoutSeconds: 60, allowWatchBookmarks: true })
        .pipe(toArray()),
    ).catch((e: unknown) => e);
    await vi.waitFor(() => expect(server.openWatches).toBe(1));
    server.faults.cutWatchesMidLine();
    await client.create(cm(ns, 'cut'));
    const e = await result;
    expect(e).toBeInstanceOf(KubeTransportError);
    expect((e as Error).message).toContain('before the watch response ended');
  });

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
    await vi.waitFor(() => expect(server.openWatches).toBe(1));
    await client.create(cm(ns, 'm2', { secret: 'not sent either' }));
    const added = await next;
    expect(added).toMatchObject({
      type: 'ADDED',
      object: { kind: 'PartialObjectMetadata', metadata: { name: 'm2' } },
    });
    expect((added as { object: KubeObject }).object).not.toHaveProperty('data');
  });

  it('errors with a KubeApiError naming the RBAC rule when the watch is forbidden', async () => {
    const limited = await startApiServer({
      auth: {
        tokens: { admin: { name: 'admin', groups: ['system:masters'] }, limited: 'limited' },
        rbac: rbacGrant('limited', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }], {
          namespace: 'default',
        }),
      },
    });
    const kc = limited.kubeConfig;
    kc.users = kc.users.map((u) => ({ ...u, token: 'limited' }));
    const c = KubeClient.fromKubeConfig(kc);
    try {
      const source = listWatchSource(c, CM, { namespace: 'default' });
      const page = await firstValueFrom(source.list({ limit: 10 }));
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
      await limited.stop();
    }
  });

  it('feeds the watcher: Init, InitApply, InitDone, then Apply and Delete', async () => {
    const ns = await namespace('lws-watcher');
    await client.create(cm(ns, 'pre'));
    const events$: Observable<WatchEvent> = watcher(listWatchSource(client, CM, { namespace: ns }));
    // One subscription: the live writes start once this very watcher reported InitDone.
    const events = await firstValueFrom(
      events$.pipe(
        tap((e) => {
          if (e.type === 'InitDone') {
            void client
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
    expect(seen).toEqual(['Init', 'InitApply pre', 'InitDone', 'Apply live', 'Delete live']);
  });

  it('refuses unusable arguments at call time', () => {
    expect(() => listWatchSource(client, { apiVersion: '', kind: 'X' })).toThrow(/resource must be/);
    expect(() => listWatchSource(client, CM, { maxLineBytes: 10 })).toThrow(
      /maxLineBytes must be an integer >= 1024/,
    );
  });
});
