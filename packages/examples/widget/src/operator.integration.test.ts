/**
 * The Widget operator through the Manager, over HTTP, on both test backends (the embedded API
 * server and a real kube-apiserver with kube-controller-manager):
 * CRD installed by `setup` → create → finalizer present → inventory + status.observedGeneration 1
 * → a label change reconciles with no status request → a spec change → observedGeneration 2 (one
 * more request) → delete → cleanup deleted the inventory once (one Event) → Widget gone, never
 * reconciled again.
 *
 * Status requests are counted at the Manager's client (every write of its controllers goes through
 * it: a wrapper counting `patch(…, { subresource: 'status' })`) and,
 * independently, by the Widget's resourceVersion (a status PATCH bumps it). Waits are for
 * outcomes — the server's state, read over HTTP until it holds (`waitFor`, bounded) — never for a
 * duration. "Nothing else happened" is proved with a barrier: the controller runs with
 * concurrency 1 and its queue is FIFO, so once a later-created barrier Widget is reconciled,
 * every trigger delivered before it has been handled.
 */
import { KubeClient, Manager, type ControllerResult, ensureCrd, type ObjectRef } from '@rxkube/kube';
import { managerRbac } from '@rxkube/kube/manager';
import type { Patch, PatchOptions } from '@rxkube/kube/client';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exampleFile } from '../../src/paths.js';
import { type WidgetActivity, setup, summarise } from './operator.js';
import { FINALIZER, type ConfigMap } from './reconcile.js';
import type { Widget } from './widget.js';

const NS = 'shop';
const RESOURCE = 'widgets.example.com';
/** A failure bound, not a wait: generous, for a real control plane on a loaded machine. */
const BOUND = { timeoutMs: 30_000 };

describeEachBackend('widget operator (HTTP, through the Manager)', (b) => {
  let client: KubeClient;
  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(() => {
    client.close();
  });

  it('create → finalizer → observedGeneration 1 → label: no status PATCH → spec: observedGeneration 2 → delete → inventory deleted once → gone', async () => {
    // every status PATCH the controller sends, by key: counted at the Manager's one client
    const patches: { key: string; patch: Patch }[] = [];
    const counting = new Proxy(client, {
      get(target, property) {
        if (property === 'patch') {
          return (ref: ObjectRef, patch: Patch, options?: PatchOptions) => {
            if (options?.subresource === 'status')
              patches.push({ key: `${ref.namespace ?? ''}/${ref.name}`, patch });
            return target.patch(ref, patch, options);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const mgr = new Manager({ client: counting, name: 'widget-operator', logLevel: 'silent' });
    const activity: WidgetActivity[] = [];
    const results: ControllerResult[] = [];
    await setup(mgr, { onActivity: (a) => activity.push(a) });
    expect(
      (await b.cluster.list('customresourcedefinitions.apiextensions.k8s.io')).map((c) => c.metadata.name),
    ).toEqual([RESOURCE]);
    // installed through the manager: `managerRbac` (`rxkube rbac`) grants get/patch on it by name
    expect(mgr.installedCrds).toEqual([RESOURCE]);
    const sub = mgr.results$.subscribe((r) => results.push(r));
    /** `waitFor` with the bound, and the last failed reconciles in the error when it times out. */
    const until = (what: string, probe: () => Promise<boolean>): Promise<unknown> =>
      waitFor(what, probe, BOUND).catch((e: unknown) => {
        const failed = results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal');
        throw new Error(
          `${(e as Error).message}; last failed reconciles: ${JSON.stringify(
            failed.slice(-3).map((r) => [r.key, r.error?.message]),
          )}`,
        );
      });
    const ref = (n: string): ObjectRef => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      namespace: NS,
      name: n,
    });
    const widget = (n: string, size: number): Widget => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: n, namespace: NS },
      spec: { size },
    });
    const stored = async (n: string) => (await b.cluster.get(RESOURCE, NS, n)) as Widget | undefined;
    const inventory = async (n: string) =>
      (await b.cluster.get('configmaps', NS, `widget-${n}-inventory`)) as ConfigMap | undefined;
    /** Resolves once the Widget's status has observed `generation`. */
    const observed = (n: string, generation: number) =>
      until(
        `${n} observedGeneration ${generation}`,
        async () => (await stored(n))?.status?.observedGeneration === generation,
      );
    const patchesOf = (n: string) => patches.filter((p) => p.key === `${NS}/${n}`);
    const resultsOf = (n: string, since = 0) => results.slice(since).filter((r) => r.key === `${NS}/${n}`);
    let barriers = 0;
    const barrier = async (): Promise<void> => {
      const name = `barrier-${++barriers}`;
      await client.create(widget(name, 1));
      await observed(name, 1);
    };

    try {
      await mgr.start();

      // create → finalizer → inventory → status observedGeneration 1, Ready
      await client.create(widget('w', 1));
      await observed('w', 1);
      const first = await stored('w');
      expect(first?.metadata.finalizers).toEqual([FINALIZER]);
      expect(first?.spec?.color).toBe('blue'); // the CRD's default
      expect(first?.status).toMatchObject({
        observedGeneration: 1,
        inventory: 'widget-w-inventory',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'InventoryReady',
            message: 'widget-w-inventory holds 1 blue widget',
            observedGeneration: 1,
          },
        ],
      });
      expect((await inventory('w'))?.data).toEqual({ widget: 'w', size: '1', color: 'blue' });
      expect((await inventory('w'))?.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Widget', name: 'w', uid: first?.metadata.uid, controller: true }),
      ]);
      await barrier();
      expect(patchesOf('w')).toHaveLength(1);

      // a label change: reconciled, but the desired status is the same → no status PATCH
      const since = results.length;
      const relabelled = await client.patch<Widget>(ref('w'), {
        type: 'merge',
        body: { metadata: { labels: { touched: 'yes' } } },
      });
      await barrier();
      expect(resultsOf('w', since).some((r) => r.outcome === 'success')).toBe(true);
      expect(patchesOf('w')).toHaveLength(1);
      expect((await stored('w'))?.metadata.resourceVersion).toBe(relabelled.metadata.resourceVersion);
      expect((await stored('w'))?.metadata.generation).toBe(1);

      // a spec change → generation 2 → inventory updated, one more status PATCH
      await client.patch(ref('w'), { type: 'merge', body: { spec: { size: 3, color: 'red' } } });
      await observed('w', 2);
      expect((await stored('w'))?.metadata.generation).toBe(2);
      expect((await stored('w'))?.status?.conditions?.[0]).toMatchObject({
        message: 'widget-w-inventory holds 3 red widgets',
        observedGeneration: 2,
        lastTransitionTime: first?.status?.conditions?.[0]?.lastTransitionTime, // still True since then
      });
      expect((await inventory('w'))?.data).toEqual({ widget: 'w', size: '3', color: 'red' });
      await barrier();
      expect(patchesOf('w')).toHaveLength(2);
      expect(patchesOf('w').map((p) => p.patch.type)).toEqual(['merge', 'merge']);

      // delete → cleanup (inventory deleted, once) → finalizer removed → gone, reported skipped
      const beforeDelete = results.length;
      await client.delete(ref('w'));
      await waitFor(
        'w gone',
        async () =>
          resultsOf('w', beforeDelete).some((r) => r.outcome === 'skipped') &&
          (await stored('w')) === undefined,
        BOUND,
      );
      expect(await inventory('w')).toBeUndefined();
      await barrier();
      // The cleanup ran exactly once, although the inventory's own Delete event queued a rerun that
      // reads the Store's stale copy (still listing the finalizer): the finalizer's removal PATCH
      // is answered with the deleting object's unchanged resourceVersion (as a real API server
      // does, packages/testing/fixtures/kube-wire/13-finalizers.json #7), and the controller skips that
      // version from then on.
      const cleanups = activity.filter((a) => a.type === 'cleanup' && a.key === `${NS}/w`);
      expect(cleanups[0]).toEqual({ type: 'cleanup', key: `${NS}/w`, outcome: 'deleted' });
      expect(cleanups).toHaveLength(1);
      expect(patchesOf('w')).toHaveLength(2);
      expect(results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);

      // the cleanup's Event, written by the recorder in the background: read until it is there
      const cleanupEvents = async () =>
        (await b.cluster.list('events.events.k8s.io', NS)).filter(
          (e) =>
            (e['regarding'] as { name?: string } | undefined)?.name === 'w' &&
            e['reason'] === 'InventoryDeleted',
        );
      await until('the InventoryDeleted Event of w', async () => (await cleanupEvents()).length > 0);
      expect(await cleanupEvents()).toEqual([
        expect.objectContaining({ type: 'Normal', action: 'Cleanup', note: 'deleted widget-w-inventory' }),
      ]);

      // the summary: every remaining Widget converged
      const rows = await summarise(client, NS);
      expect(rows.map((r) => r.name)).toEqual(['barrier-1', 'barrier-2', 'barrier-3', 'barrier-4']);
      expect(rows.every((r) => r.converged && r.finalizer && r.ready === 'True')).toBe(true);
    } finally {
      sub.unsubscribe();
      const report = await mgr.stop();
      expect(report.drained).toBe(true);
    }
  });

  it('installCrd: false installs nothing through the manager, so its RBAC asks nothing on CRDs', async () => {
    // The CRD managed elsewhere (kubectl, Helm): installed here by the test's admin client.
    await ensureCrd(client, exampleFile('widget', 'crd.yaml'));
    const skipping = new Manager({ client, name: 'widget', logLevel: 'silent' });
    const installing = new Manager({ client, name: 'widget', logLevel: 'silent' });
    try {
      await setup(skipping, { installCrd: false });
      await setup(installing);
      expect(skipping.installedCrds).toEqual([]);
      expect(installing.installedCrds).toEqual([RESOURCE]);
      const crdRules = async (mgr: Manager) =>
        (await managerRbac(mgr)).rules.filter((r) => r.resources.includes('customresourcedefinitions'));
      expect(await crdRules(skipping)).toEqual([]);
      expect(await crdRules(installing)).toEqual([
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          resourceNames: [RESOURCE],
          verbs: ['get', 'patch'],
        },
      ]);
    } finally {
      await skipping.stop();
      await installing.stop();
    }
  });
});
