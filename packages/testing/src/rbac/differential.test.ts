/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- response bodies are untyped JSON */
/**
 * RBAC, differentially: the same requests, as the same users, with the same RBAC objects, sent to
 * the embedded server and to a real kube-apiserver v1.24 (`--authorization-mode=RBAC`,
 * OwnerReferencesPermissionEnforcement on, kube-controller-manager's ClusterRole aggregation
 * running); the answers compared after normalising uids, resourceVersions and timestamps —
 * status codes, Status bodies word for word, review answers (rule lists as sets: the real
 * authorizer visits bindings in informer order), impersonation, escalation, validation, admission.
 *
 * Runs when the real tier is on (`KUBEBUILDER_ASSETS`, see `@rxkube/testing`'s backends); otherwise
 * the suite is skipped, its name saying why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectedBackends } from '../backends/backends.js';
import type { ControlPlane } from '../control-plane/control-plane.js';
import { startControlPlane } from '../control-plane/control-plane.js';
import { ALICE_RBAC, TOKENS } from '../internal/rbac-cluster.js';
import type { Reply } from '../internal/test-client.js';
import { call } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const AUTHZ = '/apis/authorization.k8s.io/v1';
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

/** One request of the exchange. */
interface Case {
  readonly name: string;
  readonly token: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly headers?: Record<string, string | string[]>;
  /** How to compare beyond the normalised body. */
  /**
   * How to compare beyond the normalised body: `allowed` only whether the authorizer let it
   * through (the embedded server does not serve Nodes, `/logs` or `/metrics`).
   */
  readonly compare?: 'status-only' | 'rules-as-sets' | 'table' | 'allowed';
}

/** An answer, normalised. */
interface Answer {
  readonly status: number;
  readonly nosniff: boolean;
  readonly body: unknown;
}

const UID_KEY = /^k:\{"uid":"[^"]*"\}$/;

function normalise(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalise);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'uid' || k === 'resourceVersion' || k === 'creationTimestamp' || k === 'time')
      out[k] = typeof x;
    // managedFields key an owner reference by its uid
    else if (UID_KEY.test(k)) out['k:{"uid":…}'] = normalise(x);
    else out[k] = normalise(x);
  }
  return out;
}

/** SSRR rules as sorted JSON strings (the real order follows an informer's map). */
function ruleSets(body: { status?: { resourceRules?: unknown[]; nonResourceRules?: unknown[] } }): unknown {
  const sorted = (rules: unknown[] | undefined): string[] =>
    (rules ?? []).map((r) => JSON.stringify(r)).sort();
  return {
    ...body,
    status: {
      ...body.status,
      resourceRules: sorted(body.status?.resourceRules),
      nonResourceRules: sorted(body.status?.nonResourceRules),
    },
  };
}

function answerOf(r: Reply, c: Case): Answer {
  let body: unknown = typeof r.body === 'string' ? r.body : normalise(r.body);
  if (c.compare === 'rules-as-sets' && r.status === 201)
    body = ruleSets(body as Parameters<typeof ruleSets>[0]);
  if (c.compare === 'status-only') body = undefined;
  if (c.compare === 'allowed') return { status: r.status === 403 ? 403 : 0, nosniff: false, body: undefined };
  if (c.compare === 'table' && r.status === 200) {
    // ages differ by the time between the two runs
    const columns = (r.body.columnDefinitions as { name: string }[]) ?? [];
    const keep = columns.map((col) => col.name !== 'Age' && col.name !== 'Created At');
    body = {
      columnDefinitions: columns,
      cells: (r.body.rows as { cells: unknown[] }[]).map((row) => row.cells.filter((_, j) => keep[j])),
    };
  }
  return { status: r.status, nosniff: r.headers['x-content-type-options'] === 'nosniff', body };
}

const role = (namespace: string, name: string, rules: unknown[]): unknown => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'Role',
  metadata: { name, namespace },
  rules,
});
const roleBinding = (
  namespace: string,
  name: string,
  ref: { kind: string; name: string },
  subjects: unknown[],
): unknown => ({
  apiVersion: `${RBAC_GROUP}/v1`,
  kind: 'RoleBinding',
  metadata: { name, namespace },
  roleRef: { apiGroup: RBAC_GROUP, ...ref },
  subjects,
});
const user = (name: string): unknown => ({ kind: 'User', name, apiGroup: RBAC_GROUP });
const ssar = (spec: unknown): unknown => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind: 'SelfSubjectAccessReview',
  spec,
});

/** Objects the admin creates before the exchange (on both servers, in this order). */
const SETUP: { path: string; body: unknown }[] = [
  ...ALICE_RBAC.map((o) => ({
    path:
      'namespace' in o.metadata
        ? `${RBAC}/namespaces/${o.metadata.namespace}/${o.kind === 'Role' ? 'roles' : 'rolebindings'}`
        : `${RBAC}/${o.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings'}`,
    body: o,
  })),
  {
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'role-maker', [
      {
        apiGroups: [RBAC_GROUP],
        resources: ['roles', 'rolebindings', 'clusterroles'],
        verbs: ['create', 'update', 'patch', 'get'],
      },
    ]),
  },
  {
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'alice-role-maker', { kind: 'Role', name: 'role-maker' }, [user('alice')]),
  },
  {
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'cm-writer', [
      { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['create', 'update', 'patch', 'get'] },
    ]),
  },
  {
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'bob-cm', { kind: 'Role', name: 'cm-writer' }, [user('bob')]),
  },
  {
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'patch-only', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['patch', 'update'] },
    ]),
  },
  {
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'carol-patch', { kind: 'Role', name: 'patch-only' }, [user('carol')]),
  },
  {
    path: `${RBAC}/clusterroles`,
    body: {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'impersonator' },
      rules: [
        {
          apiGroups: [''],
          resources: ['users', 'groups', 'serviceaccounts'],
          resourceNames: ['alice', 'devs', 'copyrator'],
          verbs: ['impersonate'],
        },
      ],
    },
  },
  {
    path: `${RBAC}/clusterrolebindings`,
    body: {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'imp' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'impersonator' },
      subjects: [user('impersonator')],
    },
  },
  { path: '/api/v1/namespaces/default/configmaps', body: { metadata: { name: 'owner' } } },
  // carol may escalate Roles in default and bind the ClusterRole admin there (only that one)
  {
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'escalator', [
      { apiGroups: [RBAC_GROUP], resources: ['roles'], verbs: ['create', 'escalate'] },
      { apiGroups: [RBAC_GROUP], resources: ['rolebindings'], verbs: ['create'] },
      { apiGroups: [RBAC_GROUP], resources: ['clusterroles'], resourceNames: ['admin'], verbs: ['bind'] },
    ]),
  },
  {
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'carol-escalator', { kind: 'Role', name: 'escalator' }, [user('carol')]),
  },
  // bob may create ClusterRoles and update Roles in default, holding little
  {
    path: `${RBAC}/clusterroles`,
    body: {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRole',
      metadata: { name: 'cr-maker' },
      rules: [{ apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['create'] }],
    },
  },
  {
    path: `${RBAC}/clusterrolebindings`,
    body: {
      apiVersion: `${RBAC_GROUP}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'bob-cr-maker' },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'cr-maker' },
      subjects: [user('bob')],
    },
  },
  {
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'role-updater', [
      { apiGroups: [RBAC_GROUP], resources: ['roles'], verbs: ['patch', 'update'] },
    ]),
  },
  {
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'bob-role-updater', { kind: 'Role', name: 'role-updater' }, [user('bob')]),
  },
  {
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'secret-lister', [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }]),
  },
];

/** The exchange. `{owner-uid}` in a body is replaced by each server's uid of ConfigMap `owner`. */
const CASES: Case[] = [
  // the authorizer's 403s
  {
    name: 'list, no permission',
    token: 'bob-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
  },
  {
    name: 'get, no permission',
    token: 'bob-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps/foo',
  },
  {
    name: 'subresource',
    token: 'bob-token',
    method: 'GET',
    path: '/apis/apps/v1/namespaces/default/deployments/web/status',
  },
  { name: 'cluster scope', token: 'bob-token', method: 'GET', path: '/api/v1/namespaces' },
  { name: 'namespace by name', token: 'bob-token', method: 'GET', path: '/api/v1/namespaces/default' },
  {
    name: 'namespace finalize',
    token: 'bob-token',
    method: 'PUT',
    path: '/api/v1/namespaces/default/finalize',
    body: {},
  },
  { name: 'watch', token: 'bob-token', method: 'GET', path: '/api/v1/namespaces/default/configmaps?watch=1' },
  {
    name: 'deletecollection',
    token: 'bob-token',
    method: 'DELETE',
    path: '/api/v1/namespaces/default/configmaps',
  },
  {
    name: 'unknown group',
    token: 'bob-token',
    method: 'GET',
    path: '/apis/foo.com/v1/namespaces/default/widgets',
  },
  {
    name: 'unknown core resource',
    token: 'bob-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/foos',
  },
  { name: 'non-resource path', token: 'bob-token', method: 'GET', path: '/metrics' },
  {
    name: 'discovery, authenticated',
    token: 'bob-token',
    method: 'GET',
    path: '/apis/rbac.authorization.k8s.io/v1',
  },
  { name: 'discovery of reviews', token: 'bob-token', method: 'GET', path: '/apis/authorization.k8s.io/v1' },
  { name: 'discovery, anonymous', token: '', method: 'GET', path: '/api' },
  { name: 'version, anonymous', token: '', method: 'GET', path: '/version', compare: 'status-only' },
  { name: 'healthz, anonymous', token: '', method: 'GET', path: '/healthz' },
  { name: 'resources, anonymous', token: '', method: 'GET', path: '/api/v1/namespaces/default/configmaps' },
  // decisions
  {
    name: 'Role in its namespace',
    token: 'alice-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps/missing',
  },
  {
    name: 'Role elsewhere',
    token: 'alice-token',
    method: 'GET',
    path: '/api/v1/namespaces/kube-system/configmaps',
  },
  {
    name: 'missing role reason',
    token: 'alice-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/secrets',
  },
  {
    name: 'resourceNames get',
    token: 'alice-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/secrets/s1',
  },
  {
    name: 'resourceNames other',
    token: 'alice-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/secrets/s2',
  },
  {
    name: 'resourceNames list by name',
    token: 'alice-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Ds1',
  },
  {
    name: 'group binding',
    token: 'alice-token',
    method: 'GET',
    path: '/api/v1/nodes/n1',
    compare: 'allowed',
  },
  { name: 'group binding, refused', token: 'bob-token', method: 'GET', path: '/api/v1/nodes/n1' },
  { name: 'non-resource wildcard', token: 'alice-token', method: 'GET', path: '/logs/x', compare: 'allowed' },
  { name: 'non-resource exact', token: 'alice-token', method: 'GET', path: '/metrics', compare: 'allowed' },
  { name: 'non-resource, not matching', token: 'alice-token', method: 'GET', path: '/metricsx' },
  // reviews
  {
    name: 'SSAR denied',
    token: 'alice-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    body: ssar({ resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } }),
  },
  {
    name: 'SSAR allowed',
    token: 'alice-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    body: ssar({ resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } }),
  },
  {
    name: 'SSAR non-resource',
    token: 'alice-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    body: ssar({ nonResourceAttributes: { verb: 'get', path: '/metrics' } }),
  },
  {
    name: 'SSAR all attributes',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    body: ssar({
      resourceAttributes: {
        verb: 'get',
        resource: 'pods',
        subresource: 'log',
        name: 'p',
        version: 'v1',
        namespace: 'x',
      },
    }),
  },
  {
    name: 'SSAR empty spec',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    body: ssar({}),
  },
  {
    name: 'SSAR both attributes',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    body: ssar({ resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/x', verb: 'get' } }),
  },
  {
    name: 'SSAR anonymous',
    token: '',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    body: ssar({ resourceAttributes: { verb: 'get' } }),
  },
  {
    name: 'SAR by non-admin',
    token: 'bob-token',
    method: 'POST',
    path: `${AUTHZ}/subjectaccessreviews`,
    body: { spec: { user: 'x', resourceAttributes: { verb: 'get' } } },
  },
  {
    name: 'SAR with groups',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/subjectaccessreviews`,
    body: {
      spec: {
        user: 'alice',
        groups: ['devs'],
        resourceAttributes: { verb: 'get', resource: 'nodes', name: 'n1' },
      },
    },
  },
  {
    name: 'SAR without groups',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/subjectaccessreviews`,
    body: { spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'nodes', name: 'n1' } } },
  },
  {
    name: 'SAR no subject',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/subjectaccessreviews`,
    body: { spec: { resourceAttributes: { verb: 'get' } } },
  },
  {
    name: 'SAR extra and uid',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/subjectaccessreviews`,
    body: {
      spec: {
        groups: ['system:masters'],
        extra: { a: ['b'] },
        uid: 'u',
        resourceAttributes: { verb: 'get' },
      },
    },
  },
  {
    name: 'LSAR',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/namespaces/default/localsubjectaccessreviews`,
    body: {
      spec: {
        user: 'alice',
        resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'default' },
      },
    },
  },
  {
    name: 'LSAR other namespace',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/namespaces/default/localsubjectaccessreviews`,
    body: {
      spec: {
        user: 'alice',
        resourceAttributes: { verb: 'list', resource: 'configmaps', namespace: 'other' },
      },
    },
  },
  {
    name: 'LSAR non-resource',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/namespaces/default/localsubjectaccessreviews`,
    body: { spec: { user: 'bob', nonResourceAttributes: { path: '/x', verb: 'get' } } },
  },
  {
    name: 'LSAR body namespace',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/namespaces/default/localsubjectaccessreviews`,
    body: {
      metadata: { namespace: 'other' },
      spec: { user: 'bob', resourceAttributes: { verb: 'get', namespace: 'other' } },
    },
  },
  {
    name: 'SSRR',
    token: 'alice-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectrulesreviews`,
    body: { spec: { namespace: 'default' } },
    compare: 'rules-as-sets',
  },
  {
    name: 'SSRR other namespace',
    token: 'bob-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectrulesreviews`,
    body: { spec: { namespace: 'kube-system' } },
    compare: 'rules-as-sets',
  },
  {
    name: 'SSRR admin',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectrulesreviews`,
    body: { spec: { namespace: 'kube-system' } },
    compare: 'rules-as-sets',
  },
  {
    name: 'SSRR without namespace',
    token: 'alice-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectrulesreviews`,
    body: { spec: {} },
  },
  {
    name: 'reviews are create-only',
    token: 'admin-token',
    method: 'GET',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
  },
  // impersonation
  {
    name: 'impersonate a user not granted',
    token: 'imp-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    headers: { 'Impersonate-User': 'bob' },
  },
  {
    name: 'impersonate a group without a user',
    token: 'imp-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    headers: { 'Impersonate-Group': 'devs' },
  },
  {
    name: 'impersonate a uid without a user',
    token: 'imp-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    headers: { 'Impersonate-Uid': '123' },
  },
  {
    name: 'impersonate a service account not granted',
    token: 'imp-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    headers: { 'Impersonate-User': 'system:serviceaccount:other:x' },
  },
  {
    name: 'impersonate a group not granted',
    token: 'imp-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': 'other' },
  },
  {
    name: 'impersonate a uid not granted',
    token: 'imp-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    headers: { 'Impersonate-User': 'alice', 'Impersonate-Uid': '1' },
  },
  {
    name: 'impersonate an extra not granted',
    token: 'imp-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    headers: { 'Impersonate-User': 'alice', 'Impersonate-Extra-Scopes': 'a' },
  },
  {
    name: 'impersonated, allowed',
    token: 'imp-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    headers: { 'Impersonate-User': 'alice' },
    body: ssar({ resourceAttributes: { verb: 'get', resource: 'configmaps', namespace: 'default' } }),
  },
  {
    name: 'impersonated with a group',
    token: 'imp-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectaccessreviews`,
    headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': 'devs' },
    body: ssar({ resourceAttributes: { verb: 'get', resource: 'nodes' } }),
  },
  {
    name: 'impersonated service account',
    token: 'imp-token',
    method: 'GET',
    path: '/api/v1/namespaces/default/configmaps',
    headers: { 'Impersonate-User': 'system:serviceaccount:rxkube-system:copyrator' },
  },
  {
    name: 'admin impersonates anonymous',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectrulesreviews`,
    headers: { 'Impersonate-User': 'system:anonymous' },
    body: { spec: { namespace: 'default' } },
  },
  {
    name: 'admin impersonates with everything',
    token: 'admin-token',
    method: 'POST',
    path: `${AUTHZ}/selfsubjectrulesreviews`,
    headers: {
      'Impersonate-User': 'alice',
      'Impersonate-Group': 'g1',
      'Impersonate-Extra-Foo': 'bar',
      'Impersonate-Uid': 'u1',
    },
    body: { spec: { namespace: 'default' } },
    compare: 'rules-as-sets',
  },
  // escalation prevention
  {
    name: 'role with rules not held',
    token: 'alice-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'esc', [
      { apiGroups: [''], resources: ['secrets', 'pods'], verbs: ['list', 'get'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ]),
  },
  {
    name: 'role with rules held',
    token: 'alice-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'ok', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]),
  },
  {
    name: 'binding to a role held',
    token: 'alice-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'b2', { kind: 'Role', name: 'ok' }, [user('bob')]),
  },
  {
    name: 'binding to a missing role',
    token: 'alice-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'b3', { kind: 'Role', name: 'missing' }, [user('bob')]),
  },
  {
    name: 'binding to admin (aggregated)',
    token: 'alice-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'b1', { kind: 'ClusterRole', name: 'admin' }, [user('bob')]),
  },
  {
    name: 'clusterrole without permission',
    token: 'alice-token',
    method: 'POST',
    path: `${RBAC}/clusterroles`,
    body: { metadata: { name: 'x' }, rules: [] },
  },
  {
    name: 'role update adding rules',
    token: 'alice-token',
    method: 'PATCH',
    path: `${RBAC}/namespaces/default/roles/ok`,
    contentType: MERGE,
    body: { rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }] },
  },
  {
    name: 'escalate: a role beyond what its creator holds',
    token: 'carol-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/roles`,
    body: role('default', 'escalated', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }]),
  },
  {
    name: 'bind: a binding to the role named',
    token: 'carol-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'carol-admin', { kind: 'ClusterRole', name: 'admin' }, [user('bob')]),
  },
  {
    name: 'bind: not another role',
    token: 'carol-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: roleBinding('default', 'carol-view', { kind: 'ClusterRole', name: 'view' }, [user('bob')]),
  },
  {
    name: 'aggregationRule needs cluster-admin',
    token: 'bob-token',
    method: 'POST',
    path: `${RBAC}/clusterroles`,
    body: {
      metadata: { name: 'bob-aggregated' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] },
      rules: [],
    },
  },
  {
    name: 'a role update that only sets finalizers (the garbage collector’s write)',
    token: 'bob-token',
    method: 'PATCH',
    path: `${RBAC}/namespaces/default/roles/secret-lister`,
    contentType: MERGE,
    body: { metadata: { finalizers: ['example.com/keep'] } },
  },
  {
    name: 'a role update that changes more is checked',
    token: 'bob-token',
    method: 'PATCH',
    path: `${RBAC}/namespaces/default/roles/secret-lister`,
    contentType: MERGE,
    body: { metadata: { labels: { a: 'b' } } },
  },
  // validation
  {
    name: 'invalid role',
    token: 'admin-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/roles`,
    body: {
      metadata: { name: 'bad/name' },
      rules: [
        { apiGroups: [''], resources: ['a', 'b'], resourceNames: ['x'] },
        { nonResourceURLs: ['/x'], verbs: ['get'] },
        { verbs: ['get'] },
        { verbs: ['get'], nonResourceURLs: ['/y'], apiGroups: [''] },
      ],
    },
  },
  {
    name: 'aggregation rule without selectors',
    token: 'admin-token',
    method: 'POST',
    path: `${RBAC}/clusterroles`,
    body: {
      metadata: { name: 'agg' },
      aggregationRule: { clusterRoleSelectors: [] },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/y'], apiGroups: [''] }],
    },
  },
  {
    name: 'aggregation rule with a bad selector',
    token: 'admin-token',
    method: 'POST',
    path: `${RBAC}/clusterroles`,
    body: {
      metadata: { name: 'agg2' },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { x: 'y' } },
          { matchExpressions: [{ key: 'a', operator: 'Bad' }] },
        ],
      },
      rules: [{ verbs: ['get'], resources: ['pods'], apiGroups: [''] }],
    },
  },
  {
    name: 'invalid rolebinding',
    token: 'admin-token',
    method: 'POST',
    path: `${RBAC}/namespaces/default/rolebindings`,
    body: {
      metadata: { name: 'rb:ok' },
      roleRef: { kind: 'Foo', name: '' },
      subjects: [
        { kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: 'x' },
        { kind: 'User', name: '', apiGroup: 'y' },
        { kind: 'Group', name: 'g' },
        { kind: 'Robot', name: 'r' },
        { kind: 'ServiceAccount', name: 'ok' },
      ],
    },
  },
  {
    name: 'invalid clusterrolebinding',
    token: 'admin-token',
    method: 'POST',
    path: `${RBAC}/clusterrolebindings`,
    body: {
      metadata: { name: 'crb' },
      roleRef: { kind: 'Role', name: 'a/b', apiGroup: 'foo' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
    },
  },
  {
    name: 'clusterrolebinding defaults',
    token: 'admin-token',
    method: 'POST',
    path: `${RBAC}/clusterrolebindings`,
    body: {
      metadata: { name: 'crb2' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'ServiceAccount', name: 'sa', namespace: 'default' },
        { kind: 'User', name: 'u' },
      ],
    },
  },
  {
    name: 'roleRef is immutable',
    token: 'admin-token',
    method: 'PATCH',
    path: `${RBAC}/clusterrolebindings/crb2`,
    contentType: MERGE,
    body: { roleRef: { name: 'edit' } },
  },
  {
    name: 'role created by PUT, empty rules',
    token: 'admin-token',
    method: 'PUT',
    path: `${RBAC}/namespaces/default/roles/put-created`,
    body: { metadata: { name: 'put-created' }, rules: [] },
  },
  {
    name: 'binding table',
    token: 'admin-token',
    method: 'GET',
    path: `${RBAC}/clusterrolebindings/crb2`,
    headers: { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
    compare: 'table',
  },
  // OwnerReferencesPermissionEnforcement and create by update
  {
    name: 'blockOwnerDeletion without finalizers',
    token: 'bob-token',
    method: 'POST',
    path: '/api/v1/namespaces/default/secrets',
    body: {
      metadata: {
        name: 'child',
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: '{owner-uid}',
            blockOwnerDeletion: true,
            controller: true,
          },
        ],
      },
    },
  },
  {
    name: 'owner reference without blocking',
    token: 'bob-token',
    method: 'POST',
    path: '/api/v1/namespaces/default/secrets',
    body: {
      metadata: {
        name: 'child2',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '{owner-uid}', controller: true },
        ],
      },
    },
  },
  {
    name: 'changing references without delete',
    token: 'bob-token',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/secrets/child2',
    contentType: MERGE,
    body: {
      metadata: {
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: '{owner-uid}',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
    },
  },
  {
    name: 'blocking reference to an unknown kind',
    token: 'bob-token',
    method: 'POST',
    path: '/api/v1/namespaces/default/secrets',
    body: {
      metadata: {
        name: 'child3',
        ownerReferences: [
          { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '123', blockOwnerDeletion: true },
        ],
      },
    },
  },
  {
    name: 'apply creating with a blocking reference',
    token: 'bob-token',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/secrets/child4?fieldManager=m',
    contentType: APPLY,
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'child4',
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: '{owner-uid}',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
    },
  },
  {
    name: 'apply creating without create',
    token: 'carol-token',
    method: 'PATCH',
    path: '/api/v1/namespaces/default/configmaps/ssa-new?fieldManager=m',
    contentType: APPLY,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-new' } },
  },
];

const USERS = { ...TOKENS, 'carol-token': { name: 'carol' } };

const real = selectedBackends().find((b) => b.name === 'real');
const suite = 'RBAC: the embedded server answers as kube-apiserver v1.24 does';

async function exchange(base: string, ca: string | undefined, c: Case, ownerUid: string): Promise<Reply> {
  const body =
    c.body === undefined ? undefined : JSON.parse(JSON.stringify(c.body).replaceAll('{owner-uid}', ownerUid));
  return call(base, c.method, c.path, {
    ...(body !== undefined ? { body } : {}),
    ...(c.contentType !== undefined ? { contentType: c.contentType } : {}),
    ...(ca !== undefined ? { ca } : {}),
    headers: {
      ...(c.token === '' ? {} : { Authorization: `Bearer ${c.token}` }),
      ...(c.headers as Record<string, string> | undefined),
    },
  });
}

async function run(base: string, ca: string | undefined): Promise<Answer[]> {
  for (const s of SETUP) {
    const r = await call(base, 'POST', s.path, {
      body: s.body,
      headers: { Authorization: 'Bearer admin-token' },
      ...(ca !== undefined ? { ca } : {}),
    });
    if (r.status !== 201) throw new Error(`setup ${s.path} answered ${String(r.status)}: ${r.text}`);
  }
  const owner = await call(base, 'GET', '/api/v1/namespaces/default/configmaps/owner', {
    headers: { Authorization: 'Bearer admin-token' },
    ...(ca !== undefined ? { ca } : {}),
  });
  const answers: Answer[] = [];
  for (const c of CASES)
    answers.push(answerOf(await exchange(base, ca, c, String(owner.body?.metadata?.uid)), c));
  return answers;
}

if (real?.enabled !== true) {
  describe.skip(`${suite} — skipped: ${real?.reason ?? 'the real tier is off'}`, () => {
    it('compares every case', () => undefined);
  });
} else {
  describe(suite, () => {
    let embedded: ApiServer | undefined;
    let plane: ControlPlane | undefined;
    let ours: Answer[] = [];
    let theirs: Answer[] = [];

    beforeAll(async () => {
      plane = await startControlPlane({
        users: USERS,
        controllerManager: ['clusterrole-aggregation'],
        enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'],
      });
      embedded = await startApiServer({
        auth: { tokens: USERS },
        enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'],
      });
      // kube-controller-manager aggregates admin/edit/view shortly after it starts
      const cp = plane;
      for (let i = 0; i < 600; i++) {
        const admin = await call(cp.url, 'GET', `${RBAC}/clusterroles/admin`, {
          headers: { Authorization: `Bearer ${cp.token}` },
          ca: cp.ca,
        });
        if (Array.isArray(admin.body?.rules) && admin.body.rules.length > 0) break;
        await new Promise((r) => setImmediate(r));
      }
      theirs = await run(cp.url, cp.ca);
      ours = await run(embedded.url, undefined);
    }, 180_000);
    afterAll(async () => {
      await embedded?.stop();
      await plane?.stop();
    }, 60_000);

    it.each(CASES.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
      expect(ours[i]).toEqual(theirs[i]);
    });
  });
}
