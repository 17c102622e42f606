/**
 * Deployment rollouts complete on both backends although no pod runs: the embedded server's
 * `simulateDeployments`, and on a real control plane a stand-in kubelet (kubelet-simulator.ts)
 * that marks Pods ready so kube-controller-manager's deployment and ReplicaSet controllers
 * (pkg/controller/deployment, pkg/controller/replicaset) roll out for real.
 */
import { beforeAll, expect, it } from 'vitest';

import { describeEachBackend } from '../vitest/describe-each-backend.js';
import { waitFor } from '../wait-for.js';
import type { KObj } from '../store/object.js';
import { AdminClient } from './admin-client.js';

interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  conditions?: { type: string; status: string; reason?: string }[];
}

describeEachBackend(
  'simulated Deployment rollouts',
  (b) => {
    let admin: AdminClient;
    beforeAll(async () => {
      admin = new AdminClient({
        url: b.cluster.url,
        token: b.cluster.token,
        ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
      });
      expect(
        (await admin.request('POST', '/api/v1/namespaces', { metadata: { name: 'rollout' } })).status,
      ).toBe(201);
      return () => admin.close();
    });

    const deployment = (image: string): KObj => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'rollout' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
      },
    });
    const rolledOut = async (generation: number): Promise<DeploymentStatus | undefined> => {
      const d = await b.cluster.get('deployments.apps', 'rollout', 'web');
      const status = d?.['status'] as DeploymentStatus | undefined;
      const available = status?.conditions?.find((c) => c.type === 'Available');
      return status?.observedGeneration === generation &&
        status.updatedReplicas === 2 &&
        status.readyReplicas === 2 &&
        status.availableReplicas === 2 &&
        status.replicas === 2 &&
        available?.status === 'True'
        ? status
        : undefined;
    };

    it('a new Deployment reaches all replicas ready and Available, with a ReplicaSet it owns', async () => {
      const created = await admin.request(
        'POST',
        '/apis/apps/v1/namespaces/rollout/deployments',
        deployment('nginx:1'),
      );
      expect(created.status).toBe(201);
      const status = await waitFor('web rolled out', () => rolledOut(1), { timeoutMs: 30_000 });
      expect(status.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
        status: 'True',
        reason: 'NewReplicaSetAvailable',
      });
      const sets = await b.cluster.list('replicasets.apps', 'rollout');
      expect(sets).toHaveLength(1);
      expect(sets[0]?.metadata.ownerReferences?.[0]).toMatchObject({
        kind: 'Deployment',
        name: 'web',
        controller: true,
      });
      expect(sets[0]?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    });

    it('an image change rolls out a second revision', async () => {
      const patched = await admin.request(
        'PATCH',
        '/apis/apps/v1/namespaces/rollout/deployments/web',
        { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } },
        'application/strategic-merge-patch+json',
      );
      expect(patched.status).toBe(200);
      await waitFor('web rolled out again', () => rolledOut(2), { timeoutMs: 30_000 });
      const sets = await b.cluster.list('replicasets.apps', 'rollout');
      const revisions = sets.map((s) => s.metadata.annotations?.['deployment.kubernetes.io/revision']).sort();
      expect(revisions).toEqual(['1', '2']);
    });
  },
  { simulateDeployments: true },
);
