/**
 * Issue 18 §1 over HTTP: a cluster-scoped owner's namespaced children trigger it through `owns`
 * (ownerReference → cluster-scoped request), and an `owns` combination that cannot work fails
 * when the Manager starts, naming the entry.
 */
import { Writable } from 'node:stream';
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { isNotFound } from '../errors.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { createLogger } from '../ops/logging.js';
import type { KubeObject } from '../types.js';
import { Manager } from './manager.js';

const NS = { apiVersion: 'v1', kind: 'Namespace' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

describeEachBackend(
  'Manager: owners of another scope (over HTTP)',
  (b) => {
    let client: KubeClient;

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await client.create({
        ...NS,
        metadata: { name: 'owned-defaults', labels: { 'owner-test': 'yes' } },
      });
    });
    afterAll(() => {
      client.close();
    });

    const child = () =>
      client
        .get<KubeObject>({ ...CM, namespace: 'owned-defaults', name: 'defaults' })
        .catch((error: unknown) => {
          if (isNotFound(error)) return undefined;
          throw error;
        });

    it('a namespaced child of a cluster-scoped owner triggers the owner: deleted, it is applied again', async () => {
      const mgr = new Manager({ client, name: 'owners-test', logLevel: 'silent' });
      const reconciled: string[] = [];
      mgr.add<KubeObject>(
        'namespace-defaults',
        { for: NS, labelSelector: 'owner-test=yes', owns: [CM] },
        async (request, ctx) => {
          reconciled.push(
            request.namespace === undefined ? request.name : `${request.namespace}/${request.name}`,
          );
          await ctx.apply({
            ...CM,
            metadata: {
              namespace: request.name,
              name: 'defaults',
              ownerReferences: [
                { ...NS, name: request.name, uid: ctx.object.metadata.uid ?? '', controller: true },
              ],
            },
            data: { quota: 'small' },
          });
          return Action.awaitChange();
        },
      );
      await mgr.start();
      await waitFor('the child applied', async () => (await child()) !== undefined);
      const before = reconciled.length;
      await client.delete({ ...CM, namespace: 'owned-defaults', name: 'defaults' });
      await waitFor('the child applied again', async () => (await child()) !== undefined);
      expect(reconciled.length).toBeGreaterThan(before);
      // every request named the cluster-scoped owner, never "owned-defaults/owned-defaults"
      expect(new Set(reconciled)).toEqual(new Set(['owned-defaults']));
      await mgr.stop();
    });

    it('a cluster-scoped child kind under a namespaced owner fails at start, naming the entry', async () => {
      const mgr = new Manager({ client, name: 'bad-owners-test', logLevel: 'silent' });
      mgr.add(
        'cms',
        { for: CM, owns: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }] },
        () => [Action.awaitChange()],
      );
      const started = mgr.start();
      await expect(started).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(started).rejects.toThrow(
        /Manager\.add\("cms"\).*options\.owns\[0\].*must not be cluster-scoped under the namespaced ConfigMap/,
      );
      await mgr.stop();
    });

    it('a namespace-restricted manager flags a Store of a namespaced kind read across all namespaces (readyz and a log line)', async () => {
      const lines: Record<string, unknown>[] = [];
      const destination = new Writable({
        write: (chunk: Buffer, _e, cb) => {
          for (const l of chunk.toString().split('\n'))
            if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
          cb();
        },
      });
      const mgr = new Manager({
        client,
        name: 'scope-test',
        log: createLogger({ level: 'info', destination }),
        namespaces: ['owned-defaults'],
        healthPort: 0,
      });
      mgr.add('cms', { for: CM }, () => [Action.awaitChange()]);
      await mgr.start();
      const port = mgr.ports[0] ?? 0;
      const readyz = async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz?verbose`);
        return { status: res.status, body: await res.text() };
      };
      await waitFor('ready', async () => (await readyz()).status === 200);
      // a Store in one of its namespaces, and a cluster-scoped kind, are fine
      mgr.registry.watch({ resource: SECRET, namespace: 'owned-defaults' });
      mgr.registry.watch({ resource: NS });
      mgr.registry.watch({ resource: SECRET }); // what a map once read, silently empty under RBAC
      await waitFor('readyz to name it', async () => (await readyz()).status === 500);
      expect((await readyz()).body).toMatch(
        /\[-\]watch-scope failed: v1\/Secret is watched across all namespaces .* restricted to namespaces owned-defaults/,
      );
      expect(
        lines.filter((l) => String(l['msg']).startsWith('v1/Secret is watched across all namespaces')),
      ).toHaveLength(1);
      await mgr.stop();
    });
  },
  { controllerManager: false },
);
