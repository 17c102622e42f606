/**
 * The helpers of `@rxkube/testing/controller`, and a controller marble-tested with them alone: no
 * API server, no KubeClient from a fake kubeconfig.
 */
import { Action } from '@rxkube/core';
import type { KubeObject, WatchEvent } from '@rxkube/kube';
import { controller, isAlreadyExists, isNotFound } from '@rxkube/kube';
import { defer, firstValueFrom, map, ReplaySubject, Subject, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';

import { testScheduler } from '../vitest/test-scheduler.js';
import { ScriptedWatchRegistry } from './scripted-watch-registry.js';
import { stubClient } from './stub-client.js';
import { ownedBy, testObject, watchEvent } from './watch-events.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

describe('stubClient', () => {
  it('answers reads from its objects: get, 404, list by namespace and labels', async () => {
    const client = stubClient([
      testObject('a/one', { labels: { app: 'web' } }, CM),
      testObject('a/two', {}, CM),
      testObject('b/one', { labels: { app: 'web' } }, CM),
    ]);
    expect(await client.get({ ...CM, namespace: 'a', name: 'one' })).toMatchObject({
      metadata: { name: 'one' },
    });
    const missing = await client.get({ ...CM, namespace: 'a', name: 'nope' }).catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    const names = (items: { metadata: { namespace?: string; name?: string } }[]) =>
      items.map((i) => `${i.metadata.namespace ?? ''}/${i.metadata.name ?? ''}`);
    expect(names((await client.list<KubeObject>(CM, { namespace: 'a' })).items)).toEqual(['a/one', 'a/two']);
    expect(names((await client.list<KubeObject>(CM, { labelSelector: 'app=web' })).items)).toEqual([
      'a/one',
      'b/one',
    ]);
    expect(client.writes).toEqual([]);
  });

  it('records writes and applies them as a server would', async () => {
    const client = stubClient([testObject('a/one', { finalizers: ['example.com/x'] }, CM)]);
    const created = await client.create({
      ...CM,
      metadata: { namespace: 'a', name: 'two' },
      data: { k: 'v' },
    });
    expect((created as unknown as KubeObject).metadata.resourceVersion).toBe('1002');
    expect(
      isAlreadyExists(
        await client.create({ ...CM, metadata: { namespace: 'a', name: 'two' } }).catch((e: unknown) => e),
      ),
    ).toBe(true);
    await client.patch({ ...CM, namespace: 'a', name: 'two' }, { type: 'merge', body: { data: { k: 'w' } } });
    await client.patch(
      { ...CM, namespace: 'a', name: 'two' },
      { type: 'json', body: [{ op: 'add', path: '/data/j', value: '1' }] },
    );
    await client.patch(
      { ...CM, namespace: 'a', name: 'two' },
      { type: 'merge', body: { status: { ok: true }, data: {} } },
      { subresource: 'status' },
    );
    expect(await client.get({ ...CM, namespace: 'a', name: 'two' })).toMatchObject({
      data: { k: 'w', j: '1' },
      status: { ok: true },
    });
    // an object with finalizers is only marked for deletion
    await client.delete({ ...CM, namespace: 'a', name: 'one' });
    expect(
      (await client.get<KubeObject>({ ...CM, namespace: 'a', name: 'one' })).metadata.deletionTimestamp,
    ).toBeDefined();
    await client.delete({ ...CM, namespace: 'a', name: 'two' });
    expect(client.objects().map((o) => o.metadata.name)).toEqual(['one']);
    expect(client.writes.map((w) => [w.verb, w.ref.name, w.patchType ?? '', w.subresource ?? ''])).toEqual([
      ['create', 'two', '', ''],
      ['create', 'two', '', ''],
      ['patch', 'two', 'merge', ''],
      ['patch', 'two', 'json', ''],
      ['patch', 'two', 'merge', 'status'],
      ['delete', 'one', '', ''],
      ['delete', 'two', '', ''],
    ]);
  });
});

describe('ScriptedWatchRegistry', () => {
  it('gives each target its script — by namespace, kind and metadata-only — and lists arrays at once', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const a = testObject('ns/a', {}, CM);
      const registry = new ScriptedWatchRegistry({
        'ns/ConfigMap': hot('-a', { a: watchEvent.apply(a) }),
        ConfigMap: [a],
        'Secret:meta': [testObject('ns/s', {}, SECRET)],
      });
      const types = (t: { type: string }) => t.type;
      expectObservable(registry.watch({ resource: CM, namespace: 'ns' }).events$.pipe(map(types))).toBe(
        '-a',
        {
          a: 'Apply',
        },
      );
      expectObservable(registry.watch({ resource: CM, namespace: 'other' }).events$.pipe(map(types))).toBe(
        '(abc)',
        {
          a: 'Init',
          b: 'InitApply',
          c: 'InitDone',
        },
      );
      expectObservable(
        registry.watch({ resource: SECRET, metadataOnly: true }).events$.pipe(map(types)),
      ).toBe('(abc)', { a: 'Init', b: 'InitApply', c: 'InitDone' });
      expectObservable(registry.watch({ resource: SECRET }).events$).toBe('');
    });
  });
});

describe('a controller tested with the helpers alone', () => {
  it('reconciles a ConfigMap with its owned Secret; its tracked patch is recorded and its echo reruns nothing', async () => {
    const parent = testObject('ns/p', { generation: 1 }, CM);
    const child = testObject('ns/p-secret', ownedBy(parent), SECRET);
    const other = testObject('ns/q', { generation: 1 }, CM);
    const client = stubClient([parent, child, other]);
    const configMaps = new Subject<WatchEvent>();
    const registry = new ScriptedWatchRegistry({ ConfigMap: configMaps, Secret: [child] });
    const seen: string[] = [];
    const results = new ReplaySubject<string>(10);
    const sub = controller({ for: CM, owns: [SECRET], client, registry, log: {} })
      .run((request, ctx) =>
        defer(async () => {
          seen.push(`${request.name}: ${ctx.owned(SECRET).length} owned`);
          if (request.name === 'p') {
            await ctx.patch(request, { type: 'merge', body: { metadata: { labels: { seen: 'yes' } } } });
          }
          return Action.awaitChange();
        }),
      )
      .subscribe((r) => results.next(`${r.controller} ${r.key} ${r.outcome}`));
    try {
      configMaps.next(watchEvent.init());
      configMaps.next(watchEvent.initApply(parent));
      configMaps.next(watchEvent.initDone());
      await firstValueFrom(results);
      // the echo of our patch (the object as the stub client now holds it), then another key's change
      const [patched] = client.objects().filter((o) => o.metadata.name === 'p');
      configMaps.next(watchEvent.apply(patched!));
      configMaps.next(watchEvent.apply(other));
      const all = await firstValueFrom(results.pipe(take(2), toArray()));
      expect(all).toEqual(['configmap ns/p success', 'configmap ns/q success']);
      expect(seen).toEqual(['p: 1 owned', 'q: 0 owned']);
      expect(client.writes.map((w) => [w.verb, w.ref.name, w.patchType])).toEqual([['patch', 'p', 'merge']]);
    } finally {
      sub.unsubscribe();
    }
  });
});
