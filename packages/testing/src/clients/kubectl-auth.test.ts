/**
 * `kubectl auth can-i` (SelfSubjectAccessReview; `--list`: SelfSubjectRulesReview), `--as` and
 * `--as-group` (impersonation), `kubectl create role|rolebinding` and `get -o wide` of bindings,
 * driven with the kubectl binary of this machine as the users of `internal/rbac-cluster.ts`
 * (`--token`), on each test backend; the expected output was recorded from kube-apiserver v1.24
 * with kubectl 1.32.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, expect } from 'vitest';
import { parse, stringify } from 'yaml';

import type { TestCluster } from '../cluster/cluster.js';
import { ALICE_RBAC, TOKENS } from '../internal/rbac-cluster.js';
import { Kubectl } from './kubectl.js';
import { kubectlFound, kubectlSuite } from './suite.js';

/** Where the users' kubeconfigs are written; removed after the file's tests. */
const TMP = mkdtempSync(join(tmpdir(), 'rxkube-kubectl-user-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** kubectl as another user of the token file: its own kubeconfig, with that token. */
function kubectlAs(cluster: TestCluster, token: string): Kubectl {
  const config = parse(readFileSync(cluster.kubeconfigPath, 'utf8')) as {
    users: { user: { token?: string } }[];
  };
  for (const u of config.users) u.user = { token };
  const path = join(mkdtempSync(join(TMP, 'user-')), 'kubeconfig');
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return new Kubectl(kubectlFound.found ? kubectlFound.path : 'kubectl', path);
}

/** Runs kubectl as the user of `token`. */
async function runAs(cluster: TestCluster, token: string, args: string[]): ReturnType<Kubectl['run']> {
  const k = kubectlAs(cluster, token);
  try {
    return await k.run(args);
  } finally {
    k.dispose();
  }
}

const IMPERSONATOR_RBAC = [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
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
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'imp' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonator' },
    subjects: [{ kind: 'User', name: 'impersonator', apiGroup: 'rbac.authorization.k8s.io' }],
  },
];

const manifests = [...ALICE_RBAC, ...IMPERSONATOR_RBAC].map((o) => stringify(o)).join('---\n');

kubectlSuite(
  'kubectl auth can-i and RBAC objects',
  // the same token file on both backends: alice, bob, the impersonator, a ServiceAccount; HTTPS, as
  // kubectl sends no bearer token to a plain-HTTP server
  { embedded: { tls: true, auth: { tokens: TOKENS } }, real: { users: TOKENS } },
  (it) => {
    it('applies RBAC objects as the admin (the kubeconfig user)', async ({ kubectl }) => {
      // default flags: kubectl validates the manifests against the server's OpenAPI document
      const r = await kubectl.run(['apply', '-f', '-'], { input: manifests });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout.split('\n').filter((l) => l !== '')).toEqual([
        'role.rbac.authorization.k8s.io/cm-reader created',
        'rolebinding.rbac.authorization.k8s.io/alice-cm created',
        'clusterrole.rbac.authorization.k8s.io/node-reader created',
        'clusterrolebinding.rbac.authorization.k8s.io/devs-nodes created',
        'rolebinding.rbac.authorization.k8s.io/alice-ghost created',
        'clusterrole.rbac.authorization.k8s.io/impersonator created',
        'clusterrolebinding.rbac.authorization.k8s.io/imp created',
      ]);
    });

    it('can-i answers yes (exit 0) and no with the authorizer’s reason (exit 1)', async ({
      kubectl,
      cluster,
    }) => {
      const alice = async (...args: string[]) => runAs(cluster, 'alice-token', ['auth', 'can-i', ...args]);
      expect(await alice('get', 'configmaps')).toMatchObject({ code: 0, stdout: 'yes\n' });
      expect(await alice('get', 'secrets')).toMatchObject({
        code: 1,
        stdout: 'no - RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found\n',
      });
      expect(await alice('get', 'secrets/s1')).toMatchObject({ code: 0, stdout: 'yes\n' });
      expect(await alice('list', 'secrets')).toMatchObject({ code: 1 });
      expect(await alice('get', 'pods', '-n', 'kube-system')).toMatchObject({ code: 1, stdout: 'no\n' });
      const nodes = await alice('get', 'nodes');
      expect(nodes).toMatchObject({ code: 0, stdout: 'yes\n' });
      // kubectl warns from discovery, on both: Nodes are cluster-scoped
      expect(nodes.stderr).toContain("Warning: resource 'nodes' is not namespace scoped");
      expect(await alice('get', '/metrics')).toMatchObject({ code: 0, stdout: 'yes\n' });
      expect(await kubectl.run(['auth', 'can-i', '*', '*'])).toMatchObject({ code: 0, stdout: 'yes\n' });
      expect(await runAs(cluster, 'bob-token', ['auth', 'can-i', 'create', 'pods'])).toMatchObject({
        code: 1,
        stdout: 'no\n',
      });
    });

    it('can-i --list prints the rules of the namespace (SelfSubjectRulesReview)', async ({ cluster }) => {
      const r = await runAs(cluster, 'alice-token', ['auth', 'can-i', '--list']);
      expect(r.code).toBe(0);
      const [header, ...rows] = r.stdout.split('\n').filter((l) => l !== '');
      expect(header?.split(/\s{2,}/)).toEqual(['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
      const cells = rows.map((l) =>
        l
          .trim()
          .split(/\s{2,}/)
          .join(' | '),
      );
      // the order follows the authorizer's visit of bindings (an informer's order on a real server)
      expect(cells.sort()).toEqual(
        [
          'deployments.apps/status | [] | [] | [*]',
          'selfsubjectaccessreviews.authorization.k8s.io | [] | [] | [create]',
          'selfsubjectrulesreviews.authorization.k8s.io | [] | [] | [create]',
          'configmaps | [] | [] | [get list watch]',
          'secrets | [] | [s1] | [get update]',
          'nodes | [] | [] | [get]',
          ...['/api/*', '/api', '/apis/*', '/apis', '/openapi/*', '/openapi', '/logs/*', '/metrics'].map(
            (u) => `[${u}] | [] | [get]`,
          ),
          // system:discovery and system:public-info-viewer both grant these
          ...['/healthz', '/livez', '/readyz', '/version/', '/version'].flatMap((u) => [
            `[${u}] | [] | [get]`,
            `[${u}] | [] | [get]`,
          ]),
        ].sort(),
      );
    });

    it('--as and --as-group impersonate, with the impersonate verb; the real 403 otherwise', async ({
      cluster,
    }) => {
      const imp = async (...args: string[]) => runAs(cluster, 'imp-token', args);
      expect(await imp('auth', 'can-i', 'get', 'configmaps', '--as', 'alice')).toMatchObject({
        code: 0,
        stdout: 'yes\n',
      });
      expect(await imp('auth', 'can-i', 'get', 'nodes', '--as', 'alice', '--as-group', 'devs')).toMatchObject(
        {
          code: 0,
          stdout: 'yes\n',
        },
      );
      const other = await imp('auth', 'can-i', 'get', 'nodes', '--as', 'alice', '--as-group', 'other');
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(
        'Error from server (Forbidden): groups "other" is forbidden: User "impersonator" cannot impersonate resource "groups" in API group "" at the cluster scope',
      );
      // with no discovery cache, kubectl discovers as bob first and reports that 403 as `unknown`
      // (the same on a real server)
      const fresh = await imp('get', 'configmaps', '--as', 'bob');
      expect(fresh.code).toBe(1);
      expect(fresh.stderr).toContain('Error from server (Forbidden): unknown');
      const warm = kubectlAs(cluster, 'imp-token');
      try {
        expect((await warm.run(['get', 'configmaps', '-n', 'kube-public'])).code).toBe(1); // discovery cached
        const bob = await warm.run(['get', 'configmaps', '--as', 'bob']);
        expect(bob.code).toBe(1);
        expect(bob.stderr).toContain(
          'Error from server (Forbidden): users "bob" is forbidden: User "impersonator" cannot impersonate resource "users" in API group "" at the cluster scope',
        );
      } finally {
        warm.dispose();
      }
      const sa = await imp(
        'get',
        'configmaps',
        '-n',
        'default',
        '--as',
        'system:serviceaccount:rxkube-system:copyrator',
      );
      expect(sa.stderr).toContain(
        'Error from server (Forbidden): configmaps is forbidden: User "system:serviceaccount:rxkube-system:copyrator" cannot list resource "configmaps" in API group "" in the namespace "default"',
      );
      const uid = await imp('auth', 'can-i', 'get', 'pods', '--as', 'alice', '--as-uid', '1');
      expect(uid.stderr).toContain(
        'Error from server (Forbidden): uids.authentication.k8s.io "1" is forbidden: User "impersonator" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
      );
    });

    it('create role/rolebinding generators, and get -o wide of bindings (printer columns)', async ({
      kubectl,
      cluster,
    }) => {
      const role = await kubectl.run(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']);
      expect(role).toMatchObject({ code: 0, stdout: 'role.rbac.authorization.k8s.io/pod-reader created\n' });
      const binding = await kubectl.run([
        'create',
        'rolebinding',
        'read-pods',
        '--role=pod-reader',
        '--user=bob',
        '--group=devs',
        '--serviceaccount=default:robot',
      ]);
      expect(binding).toMatchObject({
        code: 0,
        stdout: 'rolebinding.rbac.authorization.k8s.io/read-pods created\n',
      });
      expect(await runAs(cluster, 'bob-token', ['auth', 'can-i', 'list', 'pods'])).toMatchObject({
        code: 0,
        stdout: 'yes\n',
      });
      const wide = await kubectl.run(['get', 'rolebinding', 'read-pods', '-o', 'wide']);
      const [header, row] = wide.stdout.split('\n');
      expect(header?.split(/\s+/)).toEqual(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
      const cells = row?.split(/\s+/) ?? [];
      expect([cells[0], cells[1], cells[3], cells[4], cells[5]]).toEqual([
        'read-pods',
        'Role/pod-reader',
        'bob',
        'devs',
        'default/robot',
      ]);
    });

    it('escalation prevention: a Role granting more than its creator holds is refused', async ({
      kubectl,
      cluster,
    }) => {
      await kubectl.run([
        'create',
        'role',
        'role-maker',
        '--verb=create',
        '--resource=roles.rbac.authorization.k8s.io',
      ]);
      await kubectl.run(['create', 'rolebinding', 'bob-role-maker', '--role=role-maker', '--user=bob']);
      const r = await runAs(cluster, 'bob-token', [
        'create',
        'role',
        'too-much',
        '--verb=get',
        '--resource=secrets',
      ]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'roles.rbac.authorization.k8s.io "too-much" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
      );
    });
  },
);
