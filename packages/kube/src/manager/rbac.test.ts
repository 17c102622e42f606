/**
 * What `managerRbac` grants, rule by rule, for a Manager whose registration uses each feature —
 * resolved through the embedded server's discovery. The two points of issue #11: a watch needs
 * `list` and `watch` only (a watcher never GETs), and a controller that owns children needs `update`
 * on its kind's `finalizers` subresource (their controller reference sets `blockOwnerDeletion`, which
 * OwnerReferencesPermissionEnforcement allows only with it — `plugin/pkg/admission/gc`). That both
 * are enough on an enforcing server is shown by the examples' restricted runs.
 */
import { Action } from '@rxkube/core';
import type { ApiServer } from '@rxkube/testing';
import { startApiServer } from '@rxkube/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { Manager } from './manager.js';
import { managerRbac } from './rbac.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;

let server: ApiServer;
let client: KubeClient;
beforeAll(async () => {
  server = await startApiServer();
  client = KubeClient.fromKubeConfig(server.kubeConfig);
});
afterAll(async () => {
  client.close();
  await server.stop();
});

const noop = (): Promise<Action> => Promise.resolve(Action.awaitChange());

describe('managerRbac', () => {
  it('a watched kind gets list and watch, never get (primary, owned and mapped watches)', async () => {
    const mgr = new Manager({ client, name: 'watcher', logLevel: 'silent' });
    mgr.add('d', { for: DEPLOYMENT, watches: [{ resource: SECRET, map: () => [] }] }, noop);
    const { rules } = await managerRbac(mgr);
    expect(rules).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['list', 'watch'] },
    ]);
  });

  it('a controller that owns children gets update on <plural>/finalizers of its own kind', async () => {
    const mgr = new Manager({ client, name: 'owner', logLevel: 'silent' });
    mgr.add('d', { for: DEPLOYMENT, owns: [CM, SECRET] }, noop);
    const { rules } = await managerRbac(mgr);
    expect(rules).toContainEqual({
      apiGroups: ['apps'],
      resources: ['deployments/finalizers'],
      verbs: ['update'],
    });
    // nothing on the children's finalizers, nothing but list/watch on the children
    expect(rules.filter((r) => r.resources.some((x) => x.endsWith('/finalizers')))).toHaveLength(1);
    expect(rules).toContainEqual({ apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'] });
  });

  it('no owns, no finalizers grant; the status sink keeps its get (a re-read after a 409)', async () => {
    const mgr = new Manager({ client, name: 'status', logLevel: 'silent' });
    mgr.add('d', { for: DEPLOYMENT, status: {} }, noop);
    const { rules } = await managerRbac(mgr);
    expect(rules).toEqual([
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['patch'] },
    ]);
  });

  it('with namespaces, the finalizers grant of a namespaced owner is in the Roles; of a cluster-scoped one in the ClusterRole', async () => {
    const mgr = new Manager({ client, name: 'ns', logLevel: 'silent', namespaces: ['team-a'] });
    mgr.add('d', { for: DEPLOYMENT, owns: [CM] }, noop);
    const rbac = await managerRbac(mgr);
    expect(rbac.rules).toContainEqual({
      apiGroups: ['apps'],
      resources: ['deployments/finalizers'],
      verbs: ['update'],
    });
    expect(rbac.clusterRules.some((r) => r.resources.includes('deployments/finalizers'))).toBe(false);
    const cluster = new Manager({ client, name: 'cluster', logLevel: 'silent' });
    cluster.add('n', { for: NAMESPACE, owns: [CM] }, noop);
    expect((await managerRbac(cluster)).rules).toContainEqual({
      apiGroups: [''],
      resources: ['namespaces/finalizers'],
      verbs: ['update'],
    });
  });

  it('children written and watched back through `watches` get the finalizers grant; watching without writing does not', async () => {
    const writes = new Manager({ client, name: 'writes', logLevel: 'silent' });
    writes.add(
      'd',
      {
        for: DEPLOYMENT,
        watches: [{ resource: CM, map: () => [] }],
        permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch'] }],
      },
      noop,
    );
    expect((await managerRbac(writes)).rules).toContainEqual({
      apiGroups: ['apps'],
      resources: ['deployments/finalizers'],
      verbs: ['update'],
    });
    const reads = new Manager({ client, name: 'reads', logLevel: 'silent' });
    reads.add(
      'd',
      {
        for: DEPLOYMENT,
        watches: [{ resource: CM, map: () => [] }],
        // writes only what it does not watch, and deletes what it watches: no child path
        permissions: [
          { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] },
        ],
      },
      noop,
    );
    const { rules } = await managerRbac(reads);
    expect(rules.filter((r) => r.resources.some((x) => x.endsWith('/finalizers')))).toEqual([]);
  });

  it('Events: create and patch in the one API the recorder writes (events.k8s.io where served)', async () => {
    const mgr = new Manager({ client, name: 'events', logLevel: 'silent' });
    mgr.add('d', { for: DEPLOYMENT, events: true }, noop);
    const { rules } = await managerRbac(mgr);
    expect(rules.filter((r) => r.resources.includes('events'))).toEqual([
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
  });

  it('leader election: get and update on the named Lease only; create unrestricted (RBAC cannot name a create)', async () => {
    const mgr = new Manager({
      client,
      name: 'elected',
      logLevel: 'silent',
      leaderElection: { leaseNamespace: 'operators', leaseName: 'elected-lease' },
    });
    mgr.add('d', { for: DEPLOYMENT }, noop);
    const rbac = await managerRbac(mgr);
    expect(rbac.leaseNamespace).toBe('operators');
    expect(rbac.leaseRules).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['elected-lease'],
        verbs: ['get', 'update'],
      },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    ]);
  });
});
