/**
 * Issue 14, what users reached for: writes through the context go through the write tracker (the
 * next reconcile sees them, their echo does not rerun the reconcile — a Reloader patches once),
 * `applyChildren` reads children from the owned Store (no LIST) and returns the applied objects,
 * and a controller runs without a real KubeClient (a stub client, structural checks). Fake watches
 * are Subjects; the stub client answers with Promises, so time is real but nothing sleeps: each
 * step waits for the result it causes.
 */
import { Action } from '@rxkube/core';
import type { Observable } from 'rxjs';
import { filter, firstValueFrom, ReplaySubject, timeout } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';

import type { KubeClient } from '../client/kube-client.js';
import type { ObjectLike, Patch } from '../client/verb-options.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
import type { KubeObject, ObjectRef, ResourceType, WatchEvent } from '../types.js';
import type { ControllerResult } from './controller.js';
import { controller } from './controller.js';

interface Deployment extends KubeObject {
  spec?: { template?: { metadata?: { annotations?: Record<string, string> } } };
}
const DEPLOYMENT: ResourceType<Deployment> = { apiVersion: 'apps/v1', kind: 'Deployment' };
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

const deployment = (rv: string, hash?: string): Deployment => ({
  ...DEPLOYMENT,
  metadata: {
    namespace: 'ns',
    name: 'web',
    uid: 'uid-web',
    resourceVersion: rv,
    annotations: { 'reloader/configmap': 'app' },
  },
  spec: { template: { metadata: { annotations: hash === undefined ? {} : { 'reloader/hash': hash } } } },
});
const configMap = (rv: string, data: string, labels: Record<string, string> = {}): KubeObject => ({
  ...CM,
  metadata: { namespace: 'ns', name: 'app', uid: 'uid-app', resourceVersion: rv, labels },
  data: { v: data },
});

/** Watches as Subjects (replaying, so the controller's late subscription sees the first list). */
function fakeWatches(): { registry: WatchRegistry; emit(kind: string, ...events: WatchEvent[]): void } {
  const streams = new Map<string, ReplaySubject<WatchEvent>>();
  const stream = (kind: string): ReplaySubject<WatchEvent> => {
    let s = streams.get(kind);
    if (s === undefined) streams.set(kind, (s = new ReplaySubject<WatchEvent>(1_000)));
    return s;
  };
  return {
    registry: new WatchRegistry((t) => stream(t.resource.kind)),
    emit: (kind, ...events) => {
      for (const e of events) stream(kind).next(e);
    },
  };
}

/** A stub client: records writes; `patch` merges into the given object with the next resourceVersion. */
function stubClient(current: () => KubeObject) {
  const writes: string[] = [];
  let rv = 100;
  const client = {
    get: () => Promise.reject(new Error('not in this test')),
    list: () => Promise.reject(new Error('applyChildren must read the owned Store, not LIST')),
    create: (o: ObjectLike) => Promise.resolve(o),
    delete: () => Promise.reject(new Error('not in this test')),
    patch: (ref: ObjectRef, patch: Patch) => {
      writes.push(`patch ${ref.kind} ${ref.name}`);
      const base = current();
      const body = patch.body as { spec?: Deployment['spec'] };
      return Promise.resolve({
        ...base,
        spec: body.spec,
        metadata: { ...base.metadata, resourceVersion: String(++rv) },
      });
    },
    apply: (o: KubeObject) => {
      writes.push(`apply ${o.kind ?? ''} ${o.metadata.name ?? ''}`);
      return Promise.resolve({
        ...o,
        metadata: { ...o.metadata, uid: `uid-${o.metadata.name ?? ''}`, resourceVersion: String(++rv) },
      });
    },
    discovery: {
      resolve: (t: ResourceType) =>
        Promise.resolve({
          group: t.apiVersion.includes('/') ? t.apiVersion.split('/')[0] : '',
          version: 'v1',
          kind: t.kind,
          namespaced: true,
        }),
    },
  };
  return { client: client as unknown as KubeClient, writes };
}

const subs: { unsubscribe(): void }[] = [];
afterEach(() => {
  for (const s of subs.splice(0)) s.unsubscribe();
});

function collect(results$: Observable<ControllerResult>) {
  const all = new ReplaySubject<ControllerResult>(1_000);
  const seen: ControllerResult[] = [];
  subs.push(results$.subscribe((r) => (seen.push(r), all.next(r))));
  return {
    seen,
    /** The first result from now on that satisfies `predicate`. */
    next: (what: string, predicate: (r: ControllerResult) => boolean) => {
      const from = seen.length;
      return firstValueFrom(
        all.pipe(
          filter((r, i) => i >= from && predicate(r)),
          timeout({ first: 5_000, with: () => Promise.reject(new Error(`timed out waiting for ${what}`)) }),
        ),
      );
    },
  };
}

describe('reconcile context writes (issue 14)', () => {
  // ctx.client's writes are tracked like ctx's own (issue 18 §6: 64 repeated PATCHes in 300 before)
  it.each(['ctx.patch', 'ctx.client.patch'] as const)(
    'a Reloader patches its Deployment once through %s: the next reconcile reads the patch, and its echo reruns nothing',
    async (via) => {
      const watches = fakeWatches();
      let latest: KubeObject = deployment('1');
      const { client, writes } = stubClient(() => latest);
      const calls: string[] = [];
      const hashOf = (cm: KubeObject | undefined): string =>
        String((cm?.['data'] as { v?: string } | undefined)?.v ?? '');
      const ctrl = controller<Deployment>({
        for: DEPLOYMENT,
        client,
        registry: watches.registry,
        log: {},
        watches: [
          {
            resource: CM,
            // every Deployment that names this ConfigMap, from the cache (any namespace)
            map: (cm, { cache }) =>
              cache
                .list(DEPLOYMENT)
                .filter((d) => d.metadata.annotations?.['reloader/configmap'] === cm.metadata.name)
                .map((d) => ({ namespace: d.metadata.namespace ?? '', name: d.metadata.name ?? '' })),
          },
        ],
      });
      const results = collect(
        ctrl.run(async (_req, ctx) => {
          const hash = hashOf(ctx.cache.get(CM, 'ns/app'));
          const current = ctx.object.spec?.template?.metadata?.annotations?.['reloader/hash'];
          calls.push(`${ctx.object.metadata.resourceVersion ?? ''}:${current ?? '-'}`);
          if (current !== hash) {
            const patch = {
              type: 'merge',
              body: { spec: { template: { metadata: { annotations: { 'reloader/hash': hash } } } } },
            } as const;
            const ref = { ...DEPLOYMENT, namespace: 'ns', name: 'web' };
            latest =
              via === 'ctx.patch'
                ? await ctx.patch(ref, patch)
                : await ctx.client.patch<KubeObject>(ref, patch);
          }
          return Action.awaitChange();
        }),
      );
      watches.emit(
        'Deployment',
        { type: 'Init' },
        { type: 'InitApply', object: deployment('1') },
        { type: 'InitDone' },
      );
      watches.emit(
        'ConfigMap',
        { type: 'Init' },
        { type: 'InitApply', object: configMap('5', 'one') },
        { type: 'InitDone' },
      );
      await results.next('the first reconcile', (r) => r.outcome === 'success');
      expect(writes).toEqual(['patch Deployment web']);
      // A label-only change of the ConfigMap arrives before the Deployment's echo: the reconcile must
      // read our patch (read-own-writes), not the Store's stale version — no second PATCH.
      watches.emit('ConfigMap', { type: 'Apply', object: configMap('6', 'one', { touched: 'yes' }) });
      await results.next('the reconcile for the label change', (r) => r.outcome === 'success');
      expect(writes).toEqual(['patch Deployment web']);
      // The echo of the patch (its resourceVersion) reruns nothing; a foreign change does.
      watches.emit('Deployment', { type: 'Apply', object: latest });
      watches.emit('Deployment', {
        type: 'Apply',
        object: { ...latest, metadata: { ...latest.metadata, resourceVersion: '200' } },
      });
      await results.next('the reconcile for the foreign change', (r) => r.outcome === 'success');
      expect(calls).toEqual(['1:-', '101:one', '200:one']);
      expect(writes).toEqual(['patch Deployment web']);
    },
  );

  it('applyChildren reads existing children from the owned Store (no LIST) and returns the applied objects', async () => {
    const watches = fakeWatches();
    const owner = { ...CM, metadata: { namespace: 'ns', name: 'p', uid: 'uid-p', resourceVersion: '1' } };
    const { client, writes } = stubClient(() => owner);
    const applied: string[][] = [];
    const results = collect(
      controller({
        for: CM,
        owns: [{ apiVersion: 'v1', kind: 'Secret' }],
        client,
        registry: watches.registry,
        log: {},
      }).run(async (_req, ctx) => {
        const result = await ctx.applyChildren([
          { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'p-child' } },
        ]);
        applied.push(
          result.objects.map((o) => `${o.metadata.name ?? ''}@${o.metadata.resourceVersion ?? ''}`),
        );
        return Action.awaitChange();
      }),
    );
    watches.emit('ConfigMap', { type: 'Init' }, { type: 'InitApply', object: owner }, { type: 'InitDone' });
    watches.emit('Secret', { type: 'Init' }, { type: 'InitDone' });
    const r = await results.next('the reconcile', () => true);
    expect(r.outcome).toBe('success');
    expect(applied).toEqual([['p-child@101']]);
    expect(writes).toEqual(['apply Secret p-child']);
  });

  it('runs without a real KubeClient: a registry and fake ports suffice (structural checks, no instanceof)', async () => {
    const watches = fakeWatches();
    const results = collect(
      controller({ for: CM, registry: watches.registry, log: {} }).run(async (_req, ctx) => {
        await expect(ctx.client.get({ ...CM, namespace: 'ns', name: 'x' })).rejects.toThrow(
          /options\.client must be given/,
        );
        return Action.awaitChange();
      }),
    );
    watches.emit(
      'ConfigMap',
      { type: 'Init' },
      { type: 'InitApply', object: configMap('1', 'x') },
      { type: 'InitDone' },
    );
    expect((await results.next('the reconcile', () => true)).outcome).toBe('success');
    expect(() => controller({ for: CM, log: {} })).toThrow(
      /options\.client must be a KubeClient .* only when options\.registry is given/,
    );
    expect(() => controller({ for: CM, client: {} as KubeClient })).toThrow(
      /options\.client must be a KubeClient/,
    );
  });

  it('ctx.client and the tracked writes reject with the timeout once ctx.signal aborts (issue 19 §1)', async () => {
    const watches = fakeWatches();
    const hanging = new Promise<never>(() => undefined); // an HTTP call that never answers
    const { client } = stubClient(() => configMap('1', 'x'));
    const calls: Promise<unknown>[] = [];
    const results = collect(
      controller({
        for: CM,
        client: { ...client, get: () => hanging, patch: () => hanging } as unknown as KubeClient,
        registry: watches.registry,
        log: {},
        reconcileTimeoutMs: 20,
      }).run(async (_req, ctx) => {
        const ref = { ...CM, namespace: 'ns', name: 'app' };
        calls.push(ctx.client.get(ref), ctx.patch(ref, { type: 'merge', body: {} }));
        await Promise.allSettled(calls);
        return Action.awaitChange();
      }),
    );
    watches.emit(
      'ConfigMap',
      { type: 'Init' },
      { type: 'InitApply', object: configMap('1', 'x') },
      { type: 'InitDone' },
    );
    const r = await results.next('the timed-out reconcile', () => true);
    expect(r.outcome).toBe('error');
    for (const call of calls)
      await expect(call).rejects.toThrow(/did not finish within 20 ms \(reconcileTimeoutMs\)/);
  });
});
