/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
/**
 * Requests authorized from the RBAC objects stored in the server, each expectation recorded from
 * kube-apiserver v1.24.0 with `--authorization-mode=RBAC` and the same users and objects
 * (`internal/rbac-cluster.ts`): `plugin/pkg/auth/authorizer/rbac/rbac.go`,
 * `apiserver/pkg/endpoints/request/requestinfo.go`, `responsewriters/errors.go`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ALICE_RBAC, TOKENS, as } from '../internal/rbac-cluster.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import type { KObj } from '../store/object.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
let s: ApiServer;

beforeAll(async () => {
  s = await startApiServer({ auth: { tokens: TOKENS }, objects: ALICE_RBAC });
});
afterAll(() => s.stop());

describe('the authorizer’s 403 (responsewriters.Forbidden), word for word', () => {
  it.each([
    [
      'a namespaced list',
      'GET',
      '/api/v1/namespaces/default/configmaps',
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
      { kind: 'configmaps' },
    ],
    [
      'a get by name',
      'GET',
      '/api/v1/namespaces/default/configmaps/foo',
      'configmaps "foo" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"',
      { name: 'foo', kind: 'configmaps' },
    ],
    [
      'a subresource',
      'GET',
      '/apis/apps/v1/namespaces/default/deployments/web/status',
      'deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments/status" in API group "apps" in the namespace "default"',
      { name: 'web', group: 'apps', kind: 'deployments' },
    ],
    [
      'a cluster-scoped list',
      'GET',
      '/api/v1/namespaces',
      'namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope',
      { kind: 'namespaces' },
    ],
    [
      'a Namespace by name (its namespace is itself)',
      'GET',
      '/api/v1/namespaces/default',
      'namespaces "default" is forbidden: User "bob" cannot get resource "namespaces" in API group "" in the namespace "default"',
      { name: 'default', kind: 'namespaces' },
    ],
    [
      'a namespace subresource',
      'PUT',
      '/api/v1/namespaces/default/finalize',
      'namespaces "default" is forbidden: User "bob" cannot update resource "namespaces/finalize" in API group "" in the namespace "default"',
      { name: 'default', kind: 'namespaces' },
    ],
    [
      'a watch',
      'GET',
      '/api/v1/namespaces/default/configmaps?watch=1',
      'configmaps is forbidden: User "bob" cannot watch resource "configmaps" in API group "" in the namespace "default"',
      { kind: 'configmaps' },
    ],
    [
      'a deletecollection',
      'DELETE',
      '/api/v1/namespaces/default/configmaps',
      'configmaps is forbidden: User "bob" cannot deletecollection resource "configmaps" in API group "" in the namespace "default"',
      { kind: 'configmaps' },
    ],
    [
      'a resource that is not served (refused before it is found missing)',
      'GET',
      '/apis/foo.com/v1/namespaces/default/widgets',
      'widgets.foo.com is forbidden: User "bob" cannot list resource "widgets" in API group "foo.com" in the namespace "default"',
      { group: 'foo.com', kind: 'widgets' },
    ],
    ['a non-resource path', 'GET', '/metrics', 'forbidden: User "bob" cannot get path "/metrics"', {}],
  ])('%s', async (_what, method, path, message, details) => {
    const r = await as(s.url, 'bob-token', method, path);
    expect(r.status).toBe(403);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Forbidden',
      details,
      code: 403,
    });
  });

  it('a denial carries what went wrong resolving the user’s bindings (a role that does not exist)', async () => {
    const r = await as(s.url, 'alice-token', 'GET', '/api/v1/namespaces/default/secrets');
    expect(r.body.message).toBe(
      'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default": RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found',
    );
    // in another namespace that binding does not apply: no reason
    const other = await as(s.url, 'alice-token', 'GET', '/api/v1/namespaces/kube-system/configmaps');
    expect(other.body.message).toBe(
      'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "kube-system"',
    );
  });

  it('anonymous requests: /version and health are public, discovery and resources are not', async () => {
    expect((await as(s.url, '', 'GET', '/version')).status).toBe(200);
    expect((await as(s.url, '', 'GET', '/healthz')).status).toBe(200);
    expect((await as(s.url, '', 'GET', '/readyz')).status).toBe(200);
    const api = await as(s.url, '', 'GET', '/api');
    expect(api.body.message).toBe('forbidden: User "system:anonymous" cannot get path "/api"');
    const cm = await as(s.url, '', 'GET', '/api/v1/namespaces/default/configmaps');
    expect(cm.body.message).toBe(
      'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
  });

  it('an authenticated user without bindings of its own may discover (system:discovery)', async () => {
    expect((await as(s.url, 'bob-token', 'GET', '/api')).status).toBe(200);
    expect((await as(s.url, 'bob-token', 'GET', '/apis')).status).toBe(200);
    expect((await as(s.url, 'bob-token', 'GET', '/apis/apps/v1')).status).toBe(200);
  });
});

describe('decisions from Roles, ClusterRoles and bindings (rule.go, evaluation_helpers.go)', () => {
  it('a RoleBinding grants its Role in its namespace only', async () => {
    expect((await as(s.url, 'alice-token', 'GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect((await as(s.url, 'alice-token', 'GET', '/api/v1/namespaces/kube-system/configmaps')).status).toBe(
      403,
    );
  });

  it('resourceNames: the named object only, never a list — unless the list selects that name', async () => {
    // authorized, then not found (the secret does not exist)
    const get = await as(s.url, 'alice-token', 'GET', '/api/v1/namespaces/default/secrets/s1');
    expect(get.status).toBe(404);
    expect((await as(s.url, 'alice-token', 'GET', '/api/v1/namespaces/default/secrets/s2')).status).toBe(403);
    // a list is a request for the name metadata.name selects; `list` is still not granted
    const byName = await as(
      s.url,
      'alice-token',
      'GET',
      '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ds1',
    );
    expect(byName.status).toBe(403);
    expect(byName.body.message).toBe(
      'secrets "s1" is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default": RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found',
    );
    expect(byName.body.details).toEqual({ name: 's1', kind: 'secrets' });
  });

  it('a list or watch with metadata.name is allowed by a resourceNames rule with list/watch', async () => {
    const server = await startApiServer({
      auth: { tokens: TOKENS },
      objects: [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'one-lease', namespace: 'default' },
          rules: [
            {
              apiGroups: ['coordination.k8s.io'],
              resources: ['leases'],
              resourceNames: ['op'],
              verbs: ['list', 'watch'],
            },
          ],
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'one-lease', namespace: 'default' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'one-lease' },
          subjects: [{ kind: 'User', name: 'bob' }],
        },
      ],
    });
    try {
      const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
      expect(
        (await as(server.url, 'bob-token', 'GET', `${leases}?fieldSelector=metadata.name%3Dop`)).status,
      ).toBe(200);
      expect(
        (await as(server.url, 'bob-token', 'GET', `${leases}?fieldSelector=metadata.name%3D%3Dop`)).status,
      ).toBe(200);
      expect(
        (await as(server.url, 'bob-token', 'GET', `${leases}?fieldSelector=metadata.name%3Dother`)).status,
      ).toBe(403);
      expect((await as(server.url, 'bob-token', 'GET', leases)).status).toBe(403);
    } finally {
      await server.stop();
    }
  });

  it('a ClusterRoleBinding to a group grants cluster-wide, non-resource URLs with a trailing * included', async () => {
    expect((await as(s.url, 'alice-token', 'GET', '/api/v1/nodes/n1')).status).toBe(404);
    expect((await as(s.url, 'alice-token', 'GET', '/logs/kube-apiserver.log')).status).toBe(404);
    expect((await as(s.url, 'alice-token', 'GET', '/metricsx')).status).toBe(403);
    expect((await as(s.url, 'bob-token', 'GET', '/api/v1/nodes/n1')).status).toBe(403);
  });

  it('wildcard verbs on a subresource; the main resource stays refused', async () => {
    const r = await as(
      s.url,
      'alice-token',
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/web/status',
      {},
      {},
      'application/merge-patch+json',
    );
    expect(r.status).toBe(404);
    expect(
      (await as(s.url, 'alice-token', 'GET', '/apis/apps/v1/namespaces/default/deployments/web')).status,
    ).toBe(403);
  });

  it('ServiceAccount subjects, `*` groups and `*/status` resources; writes take effect at once', async () => {
    const admin = 'admin-token';
    const sa = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'status-writer' },
      rules: [{ apiGroups: ['*'], resources: ['*/status'], verbs: ['get'] }],
    };
    expect((await as(s.url, admin, 'POST', `${RBAC}/clusterroles`, sa)).status).toBe(201);
    const path = '/api/v1/namespaces/default/pods/p/status';
    expect((await as(s.url, 'op-token', 'GET', path)).status).toBe(403);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'sa-status' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'status-writer' },
      subjects: [{ kind: 'ServiceAccount', name: 'copyrator', namespace: 'rxkube-system' }],
    };
    expect((await as(s.url, admin, 'POST', `${RBAC}/namespaces/default/rolebindings`, binding)).status).toBe(
      201,
    );
    expect((await as(s.url, 'op-token', 'GET', path)).status).toBe(404);
    expect((await as(s.url, 'op-token', 'GET', '/api/v1/namespaces/default/pods/p')).status).toBe(403);
    expect((await as(s.url, 'op-token', 'GET', '/api/v1/namespaces/kube-system/pods/p/status')).status).toBe(
      403,
    );
    // a ServiceAccount subject without a namespace means the binding's own
    await as(s.url, admin, 'DELETE', `${RBAC}/namespaces/default/rolebindings/sa-status`);
    expect((await as(s.url, 'op-token', 'GET', path)).status).toBe(403);
  });

  it('system:masters may do anything, even without the cluster-admin binding', async () => {
    const server = await startApiServer({ auth: { tokens: TOKENS } });
    try {
      expect(
        (await as(server.url, 'admin-token', 'DELETE', `${RBAC}/clusterrolebindings/cluster-admin`)).status,
      ).toBe(200);
      expect((await as(server.url, 'admin-token', 'GET', '/api/v1/namespaces')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe('the bootstrap policy (bootstrappolicy, as a v1.24 server creates it)', () => {
  const get = async (path: string): Promise<KObj> =>
    (await as(s.url, 'admin-token', 'GET', path)).body as KObj;

  it('the default ClusterRoles and bindings exist at start', async () => {
    const roles = (
      (await get(`${RBAC}/clusterroles?labelSelector=kubernetes.io%2Fbootstrapping%3Drbac-defaults`))[
        'items'
      ] as KObj[]
    ).map((o) => o.metadata.name);
    for (const name of [
      'cluster-admin',
      'admin',
      'edit',
      'view',
      'system:basic-user',
      'system:discovery',
      'system:public-info-viewer',
    ])
      expect(roles).toContain(name);
    expect(roles).toHaveLength(62);
    const crb = await get(`${RBAC}/clusterrolebindings/cluster-admin`);
    expect(crb['subjects']).toEqual([
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' },
    ]);
    expect(crb['roleRef']).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'cluster-admin',
    });
    expect(crb.metadata.labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    expect(crb.metadata.managedFields).toEqual([
      {
        manager: 'kube-apiserver',
        operation: 'Update',
        apiVersion: 'rbac.authorization.k8s.io/v1',
        time: crb.metadata.creationTimestamp,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': {
            'f:annotations': { '.': {}, 'f:rbac.authorization.kubernetes.io/autoupdate': {} },
            'f:labels': { '.': {}, 'f:kubernetes.io/bootstrapping': {} },
          },
          'f:roleRef': {},
          'f:subjects': {},
        },
      },
    ]);
  });

  it('admin, edit and view carry the rules kube-controller-manager aggregates into them', async () => {
    const recorded = JSON.parse(
      readFileSync(new URL('../../fixtures/rbac/aggregated-roles-v1.24.json', import.meta.url), 'utf8'),
    ) as { rules: Record<string, unknown[]> };
    for (const name of ['admin', 'edit', 'view']) {
      const role = await get(`${RBAC}/clusterroles/${name}`);
      const sortRule = (r: unknown): string => JSON.stringify(r, Object.keys(r as object).sort());
      expect((role['rules'] as unknown[]).map(sortRule)).toEqual((recorded.rules[name] ?? []).map(sortRule));
      expect(role.metadata.managedFields?.[0]).toMatchObject({
        manager: 'clusterrole-aggregation-controller',
        operation: 'Apply',
        fieldsV1: { 'f:rules': {} },
      });
    }
  });

  it('a ClusterRole labelled aggregate-to-view joins view (a CRD’s role, the usual pattern)', async () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
      rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }],
    };
    expect((await as(s.url, 'admin-token', 'POST', `${RBAC}/clusterroles`, role)).status).toBe(201);
    await expect
      .poll(async () => ((await get(`${RBAC}/clusterroles/view`))['rules'] as unknown[]).length, {
        timeout: 5000,
      })
      .toBe(11);
    expect((await get(`${RBAC}/clusterroles/admin`))['rules']).toContainEqual({
      verbs: ['get', 'list', 'watch'],
      apiGroups: ['example.com'],
      resources: ['widgets'],
    });
    await as(s.url, 'admin-token', 'DELETE', `${RBAC}/clusterroles/widgets-view`);
    await expect
      .poll(async () => ((await get(`${RBAC}/clusterroles/view`))['rules'] as unknown[]).length, {
        timeout: 5000,
      })
      .toBe(10);
  });

  it('exists without authorization too (a server is a cluster); every request is then allowed', async () => {
    const server = await startApiServer();
    try {
      const r = await as(server.url, '', 'GET', `${RBAC}/clusterroles/view`);
      expect(r.status).toBe(200);
      expect((r.body as KObj)['rules']).toHaveLength(10);
    } finally {
      await server.stop();
    }
  });
});
