import { InvalidArgumentError } from '@rxkube/core';
import { startTestBackend, waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';

import {
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  KubeApiError,
  ResourceNotFoundError,
} from '../errors.js';
import type { CacheReader } from '../controller/options.js';
import type { KubeObject, ResourceType } from '../types.js';
import { KubeClient } from './kube-client.js';
import { widgetCrd } from './widget-crd.test.helper.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;

type ConfigMap = KubeObject & { data?: Record<string, string> };
type Widget = KubeObject<{ size: number }, { phase?: string }>;

describeEachBackend('KubeClient over HTTP', (b) => {
  let client: KubeClient;
  /** The discovery clock, moved by hand: the refresh bound is tested without wall-clock time. */
  let now = 0;

  beforeAll(() => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig, { clock: { now: () => now } });
  });
  afterAll(() => {
    client.close();
  });

  /** Resolves once the CRD has the Established condition. */
  const established = (name: string): Promise<unknown> =>
    waitFor(`CRD ${name} Established`, async () => {
      const crd = await b.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, name);
      const status = crd?.['status'] as { conditions?: { type: string; status: string }[] } | undefined;
      return status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });

  const cm = (name: string, data: Record<string, string> = { k: 'v' }): ConfigMap => ({
    ...CM,
    metadata: { name, namespace: 'default' },
    data,
  });

  describe('discovery', () => {
    it('maps built-in kinds to plural, scope, verbs and subresources', async () => {
      const configMaps = await client.discovery.resolve(CM);
      expect(configMaps).toMatchObject({ group: '', version: 'v1', plural: 'configmaps', namespaced: true });
      expect(configMaps.verbs).toContain('watch');
      const namespaces = await client.discovery.resolve({ apiVersion: 'v1', kind: 'Namespace' });
      expect(namespaces.namespaced).toBe(false);
      const deployments = await client.discovery.resolve({ apiVersion: 'apps/v1', kind: 'Deployment' });
      expect(deployments.path({ namespace: 'x', name: 'd', subresource: 'status' })).toBe(
        '/apis/apps/v1/namespaces/x/deployments/d/status',
      );
      expect(deployments.subresources).toContain('status');
      const leases = await client.discovery.resolve({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
      expect(leases.plural).toBe('leases');
    });

    it('resolves a CRD installed later once the bounded refresh allows it', async () => {
      const e1: unknown = await client.discovery.resolve(WIDGET).catch((x: unknown) => x);
      expect(e1).toBeInstanceOf(ResourceNotFoundError);
      expect((e1 as Error).message).toContain('kind "Widget" of apiVersion "example.com/v1"');
      expect((e1 as Error).message).toContain('Is the CRD installed?');

      await client.create(widgetCrd);
      // a real server serves the group once the CRD is Established (a few hundred ms later)
      await established('widgets.example.com');
      // Within the refresh interval the cached answer stands (no request storm for unknown kinds).
      now += 9_999;
      await expect(client.discovery.resolve(WIDGET)).rejects.toThrow(/checks again on a lookup after 1 s/);
      now += 1;
      const widgets = await client.discovery.resolve(WIDGET);
      expect(widgets).toMatchObject({ group: 'example.com', plural: 'widgets', namespaced: true });
      expect(widgets.subresources).toEqual(['status']);
    });

    it('refuses malformed apiVersions before any request', async () => {
      await expect(client.discovery.resolve({ apiVersion: 'a/b/c', kind: 'X' })).rejects.toThrow(
        InvalidArgumentError,
      );
      await expect(client.discovery.resolve({ apiVersion: 'v1', kind: '' })).rejects.toThrow(/kind must be/);
    });
  });

  describe('verbs', () => {
    it('creates, gets, replaces and deletes a ConfigMap', async () => {
      const created = await client.create(cm('crud'), { fieldManager: 'tester' });
      expect(created.metadata.uid).toBeDefined();
      expect(created.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'tester' })]);
      const got = await client.get<ConfigMap>({ ...CM, namespace: 'default', name: 'crud' });
      expect(got.data).toEqual({ k: 'v' });
      const replaced = await client.replace({ ...got, data: { k: 'w' } });
      expect(replaced.data).toEqual({ k: 'w' });
      expect(replaced.metadata.resourceVersion).not.toBe(got.metadata.resourceVersion);

      // A PUT with the stale resourceVersion is a 409 Conflict.
      const stale: unknown = await client.replace({ ...got, data: { k: 'x' } }).catch((x: unknown) => x);
      expect(isConflict(stale)).toBe(true);
      expect((stale as KubeApiError).verb).toBe('update');

      const status = await client.delete({ ...CM, namespace: 'default', name: 'crud' });
      expect(status).toMatchObject({ kind: 'Status', status: 'Success' });
      expect(await b.cluster.get('configmaps', 'default', 'crud')).toBeUndefined();
    });

    it('lists all pages, or one page with its continue token, with selectors', async () => {
      // kube-apiserver v1.24.0 drops matches of a paged selector list when it widens its etcd batch
      // (kubernetes/kubernetes#111488, kube-wire quirk 1): in a namespace of their own, sorting
      // before the kube-root-ca.crt a real cluster adds, every batch is full of matches.
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paging' } });
      for (let i = 0; i < 5; i++) {
        await client.create({
          ...cm(`a-page-${i}`),
          metadata: { name: `a-page-${i}`, namespace: 'paging', labels: { set: 'p', odd: String(i % 2) } },
        });
      }
      const all = await client.list<ConfigMap>(CM, {
        namespace: 'paging',
        labelSelector: 'set=p',
        limit: 2,
      });
      expect(all.items.map((i) => i.metadata.name)).toEqual([
        'a-page-0',
        'a-page-1',
        'a-page-2',
        'a-page-3',
        'a-page-4',
      ]);
      expect(all.metadata.continue).toBeUndefined();
      // Items of a built-in list carry apiVersion/kind like watch objects do.
      expect(all.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });

      const first = await client.list<ConfigMap>(CM, {
        namespace: 'paging',
        labelSelector: 'set=p',
        limit: 2,
        allPages: false,
      });
      expect(first.items).toHaveLength(2);
      expect(first.metadata.continue).toBeTruthy();
      const second = await client.list<ConfigMap>(CM, {
        namespace: 'paging',
        labelSelector: 'set=p',
        limit: 2,
        continue: first.metadata.continue!,
      });
      expect(second.items.map((i) => i.metadata.name)).toEqual(['a-page-2', 'a-page-3']);

      const odd = await client.list<ConfigMap>(CM, { namespace: 'paging', labelSelector: 'set=p,odd=1' });
      expect(odd.items.map((i) => i.metadata.name)).toEqual(['a-page-1', 'a-page-3']);
      const byName = await client.list<ConfigMap>(CM, { fieldSelector: 'metadata.name=a-page-4' });
      expect(byName.items.map((i) => i.metadata.name)).toEqual(['a-page-4']);

      const meta = await client.list(CM, {
        namespace: 'paging',
        labelSelector: 'set=p',
        metadataOnly: true,
      });
      expect(meta.kind).toBe('PartialObjectMetadataList');
      expect(meta.items[0]).not.toHaveProperty('data');
    });

    // A real server answers an empty PartialObjectMetadataList with `"items": null` (its Go slice
    // is nil: apimachinery's metav1.PartialObjectMetadataList, `items` without omitempty), and a
    // custom resource list with `"continue": ""`. The client gives an empty array and no token.
    it('lists nothing as an empty array: metadata-only (items: null on the wire), paged, one page', async () => {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'empty-lists' } });
      const secrets = { apiVersion: 'v1', kind: 'Secret' } as const;
      const all = await client.list(secrets, { namespace: 'empty-lists', metadataOnly: true });
      expect(all.items).toEqual([]);
      expect(all.metadata.continue).toBeUndefined();
      const paged = await client.list(secrets, {
        namespace: 'empty-lists',
        metadataOnly: true,
        labelSelector: 'none=here',
        limit: 1,
      });
      expect(paged.items).toEqual([]);
      const onePage = await client.list(secrets, {
        namespace: 'empty-lists',
        metadataOnly: true,
        allPages: false,
      });
      expect(onePage.items).toEqual([]);
      expect(onePage.metadata).not.toHaveProperty('continue');

      await client.create(widgetCrd).catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
      await established('widgets.example.com');
      const widgets = await waitFor('the Widget list served', () =>
        client.list<Widget>(WIDGET, { namespace: 'empty-lists', allPages: false }).catch(() => undefined),
      );
      expect(widgets.items).toEqual([]);
      expect(widgets.metadata).not.toHaveProperty('continue'); // the server sent "continue": ""
      const widgetMeta = await client.list(WIDGET, { namespace: 'empty-lists', metadataOnly: true });
      expect(widgetMeta.items).toEqual([]);
    });

    it('patches with merge, JSON patch and strategic merge, each with its Content-Type', async () => {
      await client.create(cm('patched', { a: '1', b: '2' }));
      const ref = { ...CM, namespace: 'default', name: 'patched' };
      const merged = await client.patch<ConfigMap>(ref, {
        type: 'merge',
        body: { data: { a: null, c: '3' } },
      });
      expect(merged.data).toEqual({ b: '2', c: '3' });
      const jsonPatched = await client.patch<ConfigMap>(ref, {
        type: 'json',
        body: [
          { op: 'test', path: '/data/b', value: '2' },
          { op: 'replace', path: '/data/b', value: '22' },
        ],
      });
      expect(jsonPatched.data).toEqual({ b: '22', c: '3' });
      const failedTest: unknown = await client
        .patch(ref, { type: 'json', body: [{ op: 'test', path: '/data/b', value: 'nope' }] })
        .catch((x: unknown) => x);
      expect(isInvalid(failedTest)).toBe(true);
      const strategic = await client.patch<ConfigMap>(ref, { type: 'strategic', body: { data: { d: '4' } } });
      expect(strategic.data).toEqual({ b: '22', c: '3', d: '4' });
    });

    it('applies server-side with a field manager; a conflicting manager gets 409 unless it forces', async () => {
      const applied = await client.apply(cm('applied', { key: 'a' }), { fieldManager: 'manager-a' });
      expect(applied.data).toEqual({ key: 'a' });
      const conflict: unknown = await client
        .apply(cm('applied', { key: 'b' }), { fieldManager: 'manager-b' })
        .catch((x: unknown) => x);
      expect(isConflict(conflict)).toBe(true);
      expect((conflict as KubeApiError).details?.causes?.[0]).toMatchObject({
        reason: 'FieldManagerConflict',
        field: '.data.key',
      });
      const forced = await client.apply(cm('applied', { key: 'b' }), {
        fieldManager: 'manager-b',
        force: true,
      });
      expect(forced.data).toEqual({ key: 'b' });
      expect(forced.metadata.managedFields).toEqual([
        expect.objectContaining({ manager: 'manager-b', operation: 'Apply' }),
      ]);
      await expect(
        client.patch({ ...CM, name: 'x', namespace: 'default' }, { type: 'apply', body: {} }),
      ).rejects.toThrow(/fieldManager must be set for server-side apply/);
    });

    it('writes the status subresource of a custom resource, and refuses one the kind does not serve', async () => {
      await client.discovery.resolve(WIDGET).catch(async () => {
        await client.create(widgetCrd).catch(() => undefined);
        now += 60_000;
      });
      const w = await client.create<Widget>({
        ...WIDGET,
        metadata: { name: 'w1', namespace: 'default' },
        spec: { size: 1 },
        status: { phase: 'ignored on create' },
      });
      expect(w.status).toBeUndefined();
      const ref = { ...WIDGET, namespace: 'default', name: 'w1' };
      const patched = await client.patch<Widget>(
        ref,
        { type: 'merge', body: { status: { phase: 'Ready' } } },
        { subresource: 'status' },
      );
      expect(patched.status).toEqual({ phase: 'Ready' });
      expect(patched.metadata.generation).toBe(w.metadata.generation);
      const replaced = await client.replace<Widget>(
        { ...patched, status: { phase: 'Done' } },
        { subresource: 'status' },
      );
      expect(replaced.status).toEqual({ phase: 'Done' });
      const read = await client.get<Widget>(ref, { subresource: 'status' });
      expect(read.status).toEqual({ phase: 'Done' });
      const applied = await client.apply<Widget>(
        { ...WIDGET, metadata: { name: 'w1', namespace: 'default' }, status: { phase: 'Applied' } },
        // The status fields were written by an update (manager "rxkube"): apply must force.
        { fieldManager: 'status-writer', subresource: 'status', force: true },
      );
      expect(applied.status).toEqual({ phase: 'Applied' });
      // Strategic merge is for built-in kinds only: the server answers 415.
      const smp: unknown = await client
        .patch(ref, { type: 'strategic', body: { spec: { size: 2 } } })
        .catch((x: unknown) => x);
      expect(smp).toBeInstanceOf(KubeApiError);
      expect((smp as KubeApiError).code).toBe(415);

      await expect(
        client.get({ ...CM, namespace: 'default', name: 'patched' }, { subresource: 'status' }),
      ).rejects.toThrow(/options.subresource must be one configmaps.core serves \(none\)/);
    });

    it('deletes with preconditions, propagation policy and dry run', async () => {
      const created = await client.create(cm('deleted'));
      const ref = { ...CM, namespace: 'default', name: 'deleted' };
      const wrongUid: unknown = await client
        .delete(ref, { preconditions: { uid: 'not-the-uid' } })
        .catch((x: unknown) => x);
      expect(isConflict(wrongUid)).toBe(true);
      await client.delete(ref, { dryRun: true });
      expect(await b.cluster.get('configmaps', 'default', 'deleted')).toBeDefined();
      await client.delete(ref, {
        preconditions: { uid: created.metadata.uid!, resourceVersion: created.metadata.resourceVersion! },
        propagationPolicy: 'Background',
        gracePeriodSeconds: 0,
      });
      expect(await b.cluster.get('configmaps', 'default', 'deleted')).toBeUndefined();
    });

    it('creates with dryRun without storing, and generateName', async () => {
      await client.create(cm('dry'), { dryRun: true });
      expect(await b.cluster.get('configmaps', 'default', 'dry')).toBeUndefined();
      const gen = await client.create<ConfigMap>({
        ...CM,
        metadata: { generateName: 'gen-', namespace: 'default' },
      });
      expect(gen.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    });

    it('refuses bad arguments with InvalidArgumentError before sending', async () => {
      await expect(client.get({ ...CM, name: 'x' })).rejects.toThrow(
        /namespace must be set: ConfigMap is namespaced/,
      );
      await expect(
        client.get({ apiVersion: 'v1', kind: 'Namespace', namespace: 'x', name: 'y' }),
      ).rejects.toThrow(/Namespace is cluster-scoped/);
      await expect(client.create({ metadata: { name: 'x' } })).rejects.toThrow(
        /apiVersion\/kind must both be set/,
      );
      await expect(
        client.patch(
          { ...CM, namespace: 'default', name: 'x' },
          { type: 'merge', body: {} },
          { force: true },
        ),
      ).rejects.toThrow(/force is only allowed for server-side apply/);
      await expect(client.list(CM, { limit: 0 })).rejects.toThrow(/limit must be an integer >= 1/);
    });
  });

  describe('KubeApiError guards over HTTP', () => {
    it('404 NotFound and 409 AlreadyExists carry verb, URL and method', async () => {
      const missing: unknown = await client
        .get({ ...CM, namespace: 'default', name: 'missing' })
        .catch((x: unknown) => x);
      expect(isNotFound(missing)).toBe(true);
      expect(missing).toMatchObject({
        _tag: 'KubeApiError',
        code: 404,
        reason: 'NotFound',
        verb: 'get',
        method: 'GET',
        url: `${b.cluster.url}/api/v1/namespaces/default/configmaps/missing`,
      });
      await client.create(cm('twice'));
      const again: unknown = await client.create(cm('twice')).catch((x: unknown) => x);
      expect(isAlreadyExists(again)).toBe(true);
      expect(isConflict(again)).toBe(false);
      expect((again as Error).message).toContain('configmaps "twice" already exists');
    });

    b.itOn('embedded', 'needs fault injection: an etcd compaction on demand')(
      '410 Gone for a continue token from before a compaction',
      async () => {
        // the ConfigMaps of the paging test
        const first = await client.list(CM, {
          namespace: 'paging',
          labelSelector: 'set=p',
          limit: 1,
          allPages: false,
        });
        await client.create(cm('after-first-page')); // moves the revision past the token's
        b.apiServer.faults.compact();
        const gone: unknown = await client
          .list(CM, {
            namespace: 'paging',
            labelSelector: 'set=p',
            limit: 1,
            continue: first.metadata.continue!,
          })
          .catch((x: unknown) => x);
        expect(isGone(gone)).toBe(true);
        expect((gone as KubeApiError).reason).toBe('Expired');
      },
    );

    it('422 Invalid lists the causes', async () => {
      const invalid: unknown = await client.create(cm('Bad_Name!')).catch((x: unknown) => x);
      expect(isInvalid(invalid)).toBe(true);
      expect((invalid as KubeApiError).details?.causes?.[0]?.field).toBe('metadata.name');
    });

    it('403 Forbidden names the verb, resource and namespace RBAC must allow', async () => {
      // a user the server knows, with no permission at all
      const limited = await startTestBackend(b.name, {
        controllerManager: false,
        embedded: {
          auth: { tokens: { admin: { name: 'admin', groups: ['system:masters'] }, limited: 'limited' } },
        },
        real: { users: { limited: { name: 'limited' } } },
      });
      try {
        const kc = limited.kubeConfig;
        kc.users = kc.users.map((u) => ({ ...u, token: 'limited' }));
        const c = KubeClient.fromKubeConfig(kc);
        const denied: unknown = await c.list(CM, { namespace: 'default' }).catch((x: unknown) => x);
        expect(isForbidden(denied)).toBe(true);
        expect((denied as Error).message).toMatch(
          /^forbidden: rxkube needs RBAC permission to "list" "configmaps" in namespace "default" \(server: configmaps is forbidden/,
        );
        c.close();
      } finally {
        await limited.stop();
      }
    });
  });
});

describe('KubeClient.list types (checked by tsc)', () => {
  it('is typed by the ResourceType<T> it is given, as cache.list is', () => {
    const widgets: ResourceType<Widget> = WIDGET;
    const _listed = (client: KubeClient) => client.list(widgets);
    const _cached = (cache: CacheReader) => cache.list(widgets);
    expectTypeOf<Awaited<ReturnType<typeof _listed>>['items']>().toEqualTypeOf<Widget[]>();
    expectTypeOf<Awaited<ReturnType<typeof _listed>>['items']>().toEqualTypeOf<ReturnType<typeof _cached>>();
    // an untyped kind lists KubeObjects
    const _untyped = (client: KubeClient) => client.list(CM);
    expectTypeOf<Awaited<ReturnType<typeof _untyped>>['items']>().toEqualTypeOf<KubeObject[]>();
  });
});
