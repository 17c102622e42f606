import { InvalidArgumentError } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { Action } from '@rxkube/core';
import { firstValueFrom, ReplaySubject, filter, timeout } from 'rxjs';

import { KubeClient } from '../client/kube-client.js';
import { controller } from '../controller/controller.js';
import type { ApplyChildrenResult } from './apply-children.js';
import { widgetCrd } from '../client/widget-crd.test.helper.js';
import { ensureCrd } from '../crd/ensure-crd.js';
import type { KubeObject, OwnerReference } from '../types.js';
import type { Client } from '../client/client.js';
import { ApplyChildrenError, applyChildren } from './apply-children.js';
import { AlreadyOwnedError } from './set-controller-reference.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const LIMITS = { apiVersion: 'v1', kind: 'LimitRange' } as const;
const childTypes = [CM, SECRET];
const fieldManager = 'widget-operator';

let client: KubeClient;
let snapshot: (prefix: string) => Promise<Record<string, string>>;

async function widget(name: string): Promise<KubeObject> {
  return client.create<KubeObject>({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name, namespace: 'default' },
    spec: { size: 1 },
  });
}

const cm = (name: string, data: Record<string, string>): KubeObject => ({ ...CM, metadata: { name }, data });
const secret = (name: string): KubeObject => ({ ...SECRET, metadata: { name }, stringData: { token: 't' } });

/** When the first managedFields entry of `o` was written (ms since the epoch). */
const appliedTime = (o: KubeObject | undefined): number =>
  Date.parse(String((o?.metadata.managedFields?.[0] as { time?: string } | undefined)?.time));

const names = (refs: readonly { kind: string; name: string }[]): string[] =>
  refs.map((r) => `${r.kind}/${r.name}`);

describeEachBackend('applyChildren against the API server', (b) => {
  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await ensureCrd(client, widgetCrd, { pollIntervalMs: 5 });
    /**
     * name → resourceVersion of the ConfigMaps and Secrets in `default` whose names start with
     * `prefix` (`''`: all of them — unchanged means nothing was written), read over HTTP.
     */
    snapshot = async (prefix) => {
      const out: Record<string, string> = {};
      for (const resource of ['configmaps', 'secrets']) {
        for (const o of await b.cluster.list(resource, 'default')) {
          const m = (o as KubeObject).metadata;
          if (m.name?.startsWith(prefix)) out[`${resource}/${m.name}`] = m.resourceVersion ?? '';
        }
      }
      return out;
    };
  });
  afterAll(() => {
    client.close();
  });

  it('creates children with a controller reference, then a second identical call writes nothing', async () => {
    const owner = await widget('a');
    const desired = [cm('a-config', { size: '1' }), cm('a-extra', { x: 'y' }), secret('a-token')];
    const first = await applyChildren(client, owner, desired, { fieldManager, childTypes });
    expect(names(first.applied)).toEqual(['ConfigMap/a-config', 'ConfigMap/a-extra', 'Secret/a-token']);
    expect(first.unchanged).toEqual([]);
    expect(first.pruned).toEqual([]);
    expect(first.applied[0]).toEqual({ ...CM, namespace: 'default', name: 'a-config' });

    const live = await client.get<KubeObject>({ ...CM, namespace: 'default', name: 'a-config' });
    expect(live.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        name: 'a',
        uid: owner.metadata.uid ?? '',
        controller: true,
        blockOwnerDeletion: true,
      } satisfies OwnerReference,
    ]);
    expect(live.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: fieldManager, operation: 'Apply' }),
    );

    const before = await snapshot('');
    const second = await applyChildren(client, owner, desired, { fieldManager, childTypes });
    expect(second.applied).toEqual([]);
    expect(names(second.unchanged)).toEqual(['ConfigMap/a-config', 'ConfigMap/a-extra', 'Secret/a-token']);
    expect(second.pruned).toEqual([]);
    expect(await snapshot('')).toEqual(before); // nothing at all was written
  });

  it('updates changed children and prunes owned ones no longer desired, leaving others alone', async () => {
    const owner = await widget('b');
    const other = await widget('b-other');
    await applyChildren(client, owner, [cm('b-config', { size: '1' }), cm('b-old', {}), secret('b-token')], {
      fieldManager,
      childTypes,
    });
    // not owned by b: unowned, and controlled by another widget
    await client.create({ ...cm('b-unowned', {}), metadata: { name: 'b-unowned', namespace: 'default' } });
    await applyChildren(client, other, [cm('b-others', {})], { fieldManager, childTypes });
    const tokenRv = (await snapshot('b-token'))['secrets/b-token'];

    const result = await applyChildren(client, owner, [cm('b-config', { size: '2' }), secret('b-token')], {
      fieldManager,
      childTypes,
    });
    expect(names(result.applied)).toEqual(['ConfigMap/b-config']);
    expect(names(result.unchanged)).toEqual(['Secret/b-token']);
    expect(result.pruned).toEqual([{ ...CM, namespace: 'default', name: 'b-old' }]);
    expect(Object.keys(await snapshot('b-')).sort()).toEqual([
      'configmaps/b-config',
      'configmaps/b-others',
      'configmaps/b-unowned',
      'secrets/b-token',
    ]);
    expect((await snapshot('b-token'))['secrets/b-token']).toBe(tokenRv);
    const config = await client.get<KubeObject>({ ...CM, namespace: 'default', name: 'b-config' });
    expect(config['data']).toEqual({ size: '2' });
  });

  it('does not prune kinds missing from childTypes', async () => {
    const owner = await widget('c');
    await applyChildren(client, owner, [cm('c-config', {}), secret('c-token')], { fieldManager, childTypes });
    const result = await applyChildren(client, owner, [], { fieldManager, childTypes: [CM] });
    expect(names(result.pruned)).toEqual(['ConfigMap/c-config']);
    expect(Object.keys(await snapshot('c-'))).toEqual(['secrets/c-token']);
  });

  it('the garbage collector removes the children when the owner is deleted', async () => {
    const owner = await widget('d');
    await applyChildren(client, owner, [cm('d-config', {}), secret('d-token')], { fieldManager, childTypes });
    expect(Object.keys(await snapshot('d-'))).toHaveLength(2);
    await client.delete({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'd' });
    // GC runs asynchronously (kube-controller-manager's garbage collector on a real server): wait
    // for the outcome, not for a duration
    await waitFor('the children collected', async () => Object.keys(await snapshot('d-')).length === 0, {
      timeoutMs: 30_000,
    });
  });

  it('refuses a child another object controls, before writing anything', async () => {
    const owner = await widget('e');
    const thief = await widget('e-thief');
    await applyChildren(client, owner, [cm('e-config', { v: '1' })], { fieldManager, childTypes });
    const before = await snapshot('');
    const e = await applyChildren(client, thief, [cm('e-new', {}), cm('e-config', { v: '2' })], {
      fieldManager,
      childTypes,
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AlreadyOwnedError);
    expect((e as AlreadyOwnedError).existing.name).toBe('e');
    expect(await snapshot('')).toEqual(before);
  });

  it('reports failed applies together and prunes nothing then', async () => {
    const owner = await widget('f');
    await applyChildren(client, owner, [cm('f-old', {})], { fieldManager, childTypes });
    const e = await applyChildren(
      client,
      owner,
      [cm('f-bad', { 'not a valid key!': 'x' }), cm('f-good', {}), cm('f-bad2', { '': 'x' })],
      { fieldManager, childTypes },
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApplyChildrenError);
    const err = e as ApplyChildrenError;
    expect(err.failures.map((f) => f.child.name)).toEqual(['f-bad', 'f-bad2']);
    expect(names(err.result.applied)).toEqual(['ConfigMap/f-good']);
    expect(err.message).toContain('Widget default/f: 2 child(ren) failed, so nothing was pruned');
    expect(Object.keys(await snapshot('f-')).sort()).toEqual(['configmaps/f-good', 'configmaps/f-old']);
  });

  it('refuses bad input with InvalidArgumentError before any request', async () => {
    const owner = await widget('g');
    const before = await snapshot('');
    await expect(
      applyChildren(client, owner, [cm('g', {}), cm('g', {})], { fieldManager, childTypes }),
    ).rejects.toThrow(/must be unique: ConfigMap default\/g is desired twice/);
    await expect(
      applyChildren(client, owner, [{ ...CM, metadata: { name: 'g', namespace: 'kube-system' } }], {
        fieldManager,
        childTypes,
      }),
    ).rejects.toThrow(/cross-namespace owner references are not allowed/);
    await expect(
      applyChildren(client, owner, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'g-ns' } }], {
        fieldManager,
        childTypes,
      }),
    ).rejects.toThrow(/a cluster-scoped object cannot be owned by a namespaced Widget/);
    await expect(
      applyChildren(client, { ...owner, metadata: { name: 'g' } }, [], { fieldManager, childTypes }),
    ).rejects.toThrow(InvalidArgumentError);
    await expect(applyChildren(client, owner, [], { fieldManager: '', childTypes })).rejects.toThrow(
      /options\.fieldManager must be a non-empty string/,
    );
    expect(await snapshot('')).toEqual(before);
  });

  it('re-applying an unchanged, server-defaulted child sends no request, also in a later second; a drift is applied again', async () => {
    const owner = await widget('h');
    const applies: string[] = [];
    // the same connection (its discovery) as `client`, counting the applies it sends
    const counting: Pick<Client, 'discovery' | 'apply' | 'delete' | 'list'> = {
      discovery: client.discovery,
      apply: (body, o) => {
        applies.push(body.metadata?.name ?? '');
        return client.apply(body, o);
      },
      delete: (ref, o) => client.delete(ref, o),
      list: (type, o) => client.list(type, o),
    };
    // a Container item: the server fills `default`/`defaultRequest` from `max` into the atomic list
    const limits = (cpu: string): KubeObject => ({
      ...LIMITS,
      metadata: { name: 'h-limits' },
      spec: { limits: [{ type: 'Container', max: { cpu } }] },
    });
    const live = () => client.get<KubeObject>({ ...LIMITS, namespace: 'default', name: 'h-limits' });
    const options = { fieldManager, childTypes: [LIMITS] };

    const first = await applyChildren(counting, owner, [limits('1')], options);
    expect(names(first.applied)).toEqual(['LimitRange/h-limits']);
    const applied = first.objects[0]!;
    expect(applied['spec']).toEqual({
      limits: [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } }],
    });
    // On a real v1.24 server an apply in a later second than the last one moves the managedFields
    // time, and with it the resourceVersion (README of @rxkube/testing): wait until one would.
    const appliedAt = appliedTime(applied);
    await waitFor('a later second than the first apply', () =>
      Date.now() >= appliedAt + 1_000 ? true : undefined,
    );
    const second = await applyChildren(counting, owner, [limits('1')], options);
    expect(applies).toEqual(['h-limits']); // no request for the unchanged child
    expect(names(second.unchanged)).toEqual(['LimitRange/h-limits']);
    expect(second.applied).toEqual([]);
    expect(second.objects).toEqual([applied]);
    expect((await live()).metadata.resourceVersion).toBe(applied.metadata.resourceVersion);

    // another writer changes the child: the next call applies it back
    await client.patch(
      { ...LIMITS, namespace: 'default', name: 'h-limits' },
      { type: 'merge', body: { spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] } } },
    );
    const third = await applyChildren(counting, owner, [limits('1')], options);
    expect(applies).toEqual(['h-limits', 'h-limits']);
    expect(names(third.applied)).toEqual(['LimitRange/h-limits']);
    expect((await live())['spec']).toEqual(applied['spec']);
    // and a changed desired child is applied
    const fourth = await applyChildren(counting, owner, [limits('500m')], options);
    expect(applies).toHaveLength(3);
    expect(names(fourth.applied)).toEqual(['LimitRange/h-limits']);
  });

  it('a second reconcile of ctx.applyChildren with an unchanged, server-defaulted child writes nothing', async () => {
    const ns = 'children-noop';
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await client.create({ ...CM, metadata: { name: 'owner', namespace: ns, labels: { owner: 'yes' } } });
    const applies: string[] = [];
    // the controller's client, counting the applies it sends
    const counting = new Proxy(client, {
      get(target, property) {
        if (property === 'apply') {
          return (body: KubeObject, o: Parameters<KubeClient['apply']>[1]) => {
            applies.push(`${body.kind}/${body.metadata.name ?? ''}`);
            return target.apply(body, o);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const results = new ReplaySubject<{ labels: string; result: ApplyChildrenResult }>(100);
    // only the owner: a real namespace also holds kube-root-ca.crt
    const sub = controller({
      for: CM,
      labelSelector: 'owner=yes',
      owns: [LIMITS],
      namespace: ns,
      client: counting,
      log: {},
    })
      .run(async (_request, ctx) => {
        const limits: KubeObject = {
          ...LIMITS,
          metadata: { name: 'limits' },
          spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] },
        };
        const result = await ctx.applyChildren([limits]);
        results.next({ labels: JSON.stringify(ctx.object.metadata.labels ?? {}), result });
        return Action.awaitChange();
      })
      .subscribe();
    const reconciled = (labels: Record<string, string>) =>
      firstValueFrom(
        results.pipe(
          filter((r) => r.labels === JSON.stringify(labels)),
          timeout({
            first: 30_000,
            with: () => Promise.reject(new Error(`no reconcile of ${JSON.stringify(labels)}`)),
          }),
        ),
      );
    try {
      const first = await reconciled({ owner: 'yes' });
      expect(names(first.result.applied)).toEqual(['LimitRange/limits']);
      const rv = first.result.objects[0]?.metadata.resourceVersion;
      const appliedAt = appliedTime(first.result.objects[0]);
      await waitFor('a later second than the first apply', () =>
        Date.now() >= appliedAt + 1_000 ? true : undefined,
      );
      await client.patch(
        { ...CM, namespace: ns, name: 'owner' },
        { type: 'merge', body: { metadata: { labels: { round: '2' } } } },
      );
      const second = await reconciled({ owner: 'yes', round: '2' });
      expect(names(second.result.unchanged)).toEqual(['LimitRange/limits']);
      expect(applies.filter((a) => a === 'LimitRange/limits')).toHaveLength(1);
      expect((await b.cluster.get('limitranges', ns, 'limits'))?.metadata.resourceVersion).toBe(rv);
    } finally {
      sub.unsubscribe();
    }
  });
});
