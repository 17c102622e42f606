/**
 * The users and RBAC objects this package's authorization tests share — the same set the expected
 * answers were recorded with on a real kube-apiserver v1.24 (`--authorization-mode=RBAC`, a token
 * file with these users). Not exported.
 *
 * @module
 */
import type { AuthUser } from '../auth.js';
import type { Reply } from './test-client.js';
import { call } from './test-client.js';

/** Bearer tokens → users, as in the recording's token file. */
export const TOKENS: Readonly<Record<string, AuthUser>> = {
  'admin-token': { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] },
  'alice-token': { name: 'alice', uid: 'alice-uid', groups: ['devs'] },
  'bob-token': { name: 'bob', uid: 'bob-uid' },
  'op-token': {
    name: 'system:serviceaccount:rxkube-system:copyrator',
    uid: 'sa-uid',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:rxkube-system'],
  },
  'imp-token': { name: 'impersonator', uid: 'imp-uid' },
};

const RBAC = 'rbac.authorization.k8s.io';

/**
 * alice: a Role in `default` (configmaps read, secret `s1` get/update, `deployments/status` all),
 * the ClusterRole `node-reader` (nodes get, `/metrics` and `/logs/*`) through her group `devs`, and
 * a RoleBinding to the missing ClusterRole `ghost` (so denials carry its error).
 */
export const ALICE_RBAC = [
  {
    apiVersion: `${RBAC}/v1`,
    kind: 'Role',
    metadata: { name: 'cm-reader', namespace: 'default' },
    rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['s1'], verbs: ['get', 'update'] },
      { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['*'] },
    ],
  },
  {
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: { name: 'alice-cm', namespace: 'default' },
    roleRef: { apiGroup: RBAC, kind: 'Role', name: 'cm-reader' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: RBAC }],
  },
  {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name: 'node-reader' },
    rules: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get'] },
      { nonResourceURLs: ['/metrics', '/logs/*'], verbs: ['get'] },
    ],
  },
  {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'devs-nodes' },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'node-reader' },
    subjects: [{ kind: 'Group', name: 'devs', apiGroup: RBAC }],
  },
  {
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: { name: 'alice-ghost', namespace: 'default' },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'ghost' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: RBAC }],
  },
];

/** A request as the user of `token` (`''`: anonymous). */
export function as(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string | string[]> = {},
  contentType?: string,
): Promise<Reply> {
  return call(base, method, path, {
    ...(body !== undefined ? { body } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
    headers: {
      ...(token === '' ? {} : { Authorization: `Bearer ${token}` }),
      ...(headers as Record<string, string>),
    },
  });
}
