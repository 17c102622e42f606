import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import {
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';

import { describeEachBackend } from '../vitest/describe-each-backend.js';

/** Resolves when `pred` holds, checked after each event; fails after `timeoutMs`. */
function waiter(): {
  notify(): void;
  until(pred: () => boolean, what: string, timeoutMs?: number): Promise<void>;
} {
  let wake: (() => void) | undefined;
  return {
    notify: () => wake?.(),
    async until(pred, what, timeoutMs = 10_000) {
      const end = Date.now() + timeoutMs;
      while (!pred()) {
        const left = end - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${what}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    },
  };
}

const NS = 'client-node';

// @kubernetes/client-node 2.x, the client TypeScript operators use: JSON on the wire
describeEachBackend('client-node against the server', (b) => {
  let core: CoreV1Api;
  beforeAll(async () => {
    core = b.cluster.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
  });

  describe('typed APIs', () => {
    it('create, read, list, replace, patch, delete a ConfigMap', async () => {
      const created = await core.createNamespacedConfigMap({
        namespace: NS,
        body: { metadata: { name: 'cm1', labels: { app: 'x' } }, data: { a: '1' } },
      });
      expect(created.metadata?.uid).toBeDefined();
      const read = await core.readNamespacedConfigMap({ name: 'cm1', namespace: NS });
      expect(read.data).toEqual({ a: '1' });
      const list = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'app=x' });
      expect(list.items.map((i) => i.metadata?.name)).toEqual(['cm1']);
      const replaced = await core.replaceNamespacedConfigMap({
        name: 'cm1',
        namespace: NS,
        body: { ...read, data: { a: '2' } },
      });
      expect(replaced.data).toEqual({ a: '2' });
      const patched = await core.patchNamespacedConfigMap(
        { name: 'cm1', namespace: NS, body: { data: { b: '3' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(patched.data).toEqual({ a: '2', b: '3' });
      await core.deleteNamespacedConfigMap({ name: 'cm1', namespace: NS });
      await expect(core.readNamespacedConfigMap({ name: 'cm1', namespace: NS })).rejects.toMatchObject({
        code: 404,
      });
    });

    it('AppsV1Api creates a Deployment and reads its scale', async () => {
      const apps = b.cluster.kubeConfig.makeApiClient(AppsV1Api);
      await apps.createNamespacedDeployment({
        namespace: NS,
        body: {
          metadata: { name: 'web' },
          spec: {
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'c', image: 'nginx' }] },
            },
          },
        },
      });
      const d = await apps.readNamespacedDeployment({ name: 'web', namespace: NS });
      expect(d.spec?.replicas).toBe(1);
      const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: NS });
      expect(scale.spec?.replicas).toBe(1);
    });
  });

  describe('Watch and informer', () => {
    it('Watch streams ADDED, MODIFIED and DELETED', async () => {
      const events: string[] = [];
      const w = waiter();
      const controller = await new Watch(b.cluster.kubeConfig).watch(
        `/api/v1/namespaces/${NS}/configmaps`,
        { fieldSelector: 'metadata.name=w1' },
        (phase: string, obj: KubernetesObject) => {
          events.push(`${phase} ${obj.metadata?.name ?? ''}`);
          w.notify();
        },
        () => w.notify(),
      );
      await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'w1' } } });
      await core.patchNamespacedConfigMap(
        { name: 'w1', namespace: NS, body: { metadata: { labels: { k: 'v' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await core.deleteNamespacedConfigMap({ name: 'w1', namespace: NS });
      await w.until(() => events.length >= 3, 'three watch events');
      expect(events).toEqual(['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
      controller.abort();
    });

    it('an informer lists, then follows changes in its cache', async () => {
      await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'i0' } } });
      const informer = makeInformer<V1ConfigMap>(
        b.cluster.kubeConfig,
        `/api/v1/namespaces/${NS}/configmaps`,
        () => core.listNamespacedConfigMap({ namespace: NS }),
      );
      const seen: string[] = [];
      const w = waiter();
      for (const verb of ['add', 'update', 'delete'] as const) {
        informer.on(verb, (o) => {
          seen.push(`${verb} ${o.metadata?.name ?? ''}`);
          w.notify();
        });
      }
      await informer.start();
      await w.until(() => seen.includes('add i0'), 'the listed object');
      await core.createNamespacedConfigMap({
        namespace: NS,
        body: { metadata: { name: 'i1' }, data: { a: 'b' } },
      });
      await w.until(() => seen.includes('add i1'), 'the created object');
      await core.patchNamespacedConfigMap(
        { name: 'i1', namespace: NS, body: { data: { a: 'c' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await w.until(() => informer.get('i1', NS)?.data?.['a'] === 'c', 'the updated object in the cache');
      await core.deleteNamespacedConfigMap({ name: 'i0', namespace: NS });
      await w.until(() => seen.includes('delete i0'), 'the deleted object');
      // (a real cluster's root-CA publisher adds kube-root-ca.crt to every namespace)
      const cached = informer.list(NS).map((o) => o.metadata?.name);
      expect(cached).toContain('i1');
      expect(cached).not.toContain('i0');
      expect(seen).toContain('update i1');
      await informer.stop();
    });
  });
});
