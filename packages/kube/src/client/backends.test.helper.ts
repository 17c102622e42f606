/**
 * Test helper for suites that run on both backends (`describeEachBackend`): what the embedded API
 * server and a real control plane do differently, behind one call each — open watch counts, users
 * with limited permissions and granting them more, and making a resumed watch get 410.
 */
import { request } from 'node:https';

import { KubeConfig } from '@kubernetes/client-node';
import type { TestBackend } from '@rxkube/testing';
import type { TestBackendOptions } from '@rxkube/testing/backends';

import { KubeClient } from './kube-client.js';

/** The admin's token on the embedded server when a suite adds users (the kubeconfig carries it). */
const ADMIN_TOKEN = 'admin';

/**
 * Users known by token on both backends, without any permission (RBAC on both denies everything
 * not granted). Pass `options` to `describeEachBackend` and grant with {@link permit}.
 *
 * ## Example
 * ```ts
 * const users = limitedUsers({ 'op-token': 'operator' });
 * describeEachBackend('…', (b) => { … }, { ...users.options });
 * ```
 */
export function limitedUsers(users: Readonly<Record<string, string>>): {
  readonly options: {
    readonly embedded: NonNullable<TestBackendOptions['embedded']>;
    readonly real: NonNullable<TestBackendOptions['real']>;
  };
} {
  return {
    options: {
      embedded: {
        auth: { tokens: { [ADMIN_TOKEN]: { name: 'admin', groups: ['system:masters'] }, ...users } },
      },
      real: {
        users: Object.fromEntries(Object.entries(users).map(([token, name]) => [token, { name }])),
      },
    },
  };
}

/** A permission to grant: RBAC's PolicyRule for one user, in a namespace or cluster-wide. */
export interface Permission {
  readonly user: string;
  readonly verbs: readonly string[];
  /** API group, '' for the core group. */
  readonly group: string;
  /** Resources, `widgets/status` for a subresource. */
  readonly resources: readonly string[];
  readonly resourceNames?: readonly string[];
  /** Omitted: cluster-wide (a ClusterRole and ClusterRoleBinding). */
  readonly namespace?: string;
}

let grants = 0;

/**
 * Grants `permission` as a cluster admin does, on both backends: a Role and RoleBinding
 * (ClusterRole and ClusterRoleBinding without a namespace) written by the admin. The embedded
 * server authorizes with them at once; a real RBAC authorizer reads its informer cache (wait for
 * the outcome).
 */
export async function permit(admin: KubeClient, permission: Permission): Promise<void> {
  const name = `rxkube-test-grant-${++grants}`;
  const ns = permission.namespace;
  const rbac = 'rbac.authorization.k8s.io/v1';
  await admin.create({
    apiVersion: rbac,
    kind: ns !== undefined ? 'Role' : 'ClusterRole',
    metadata: { name, ...(ns !== undefined ? { namespace: ns } : {}) },
    rules: [
      {
        apiGroups: [permission.group],
        resources: [...permission.resources],
        verbs: [...permission.verbs],
        ...(permission.resourceNames !== undefined ? { resourceNames: [...permission.resourceNames] } : {}),
      },
    ],
  });
  await admin.create({
    apiVersion: rbac,
    kind: ns !== undefined ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: { name, ...(ns !== undefined ? { namespace: ns } : {}) },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: ns !== undefined ? 'Role' : 'ClusterRole',
      name,
    },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: permission.user }],
  });
}

/** A client authenticating with `token` instead of the admin's. */
export function clientAs(cluster: TestBackend, token: string): KubeClient {
  // a copy: the backend's own KubeConfig stays the admin's
  const kc = new KubeConfig();
  kc.loadFromString(cluster.kubeConfig.exportConfig());
  kc.users = kc.users.map((u) => ({ ...u, token }));
  return KubeClient.fromKubeConfig(kc);
}

/**
 * Watches the API server is serving now: the embedded server's count (all resources), or on a
 * real one `apiserver_longrunning_requests{verb="WATCH"}` of `resource` (e.g. `configmaps`,
 * `leases`), summed over scopes unless `scope` names one (`namespace` for a namespaced watch,
 * `cluster` for an all-namespaces one).
 *
 * Compare with a count taken before, and wait for the difference rather than sampling it once:
 * other clients watch too — kube-controller-manager's informers (cluster scope) and the API
 * servers' own authentication configmap watches in `kube-system` (namespace scope) — and each
 * re-opens its watch every 5–10 minutes (client-go's reflector), so a single sample can catch one
 * of them between close and re-open. A namespaced `scope` keeps the controller manager's out.
 */
export async function openWatches(
  cluster: TestBackend,
  resource: string,
  scope?: 'namespace' | 'cluster',
): Promise<number> {
  if (cluster.apiServer !== undefined) return cluster.apiServer.openWatches;
  const labels: Record<string, string> = { verb: 'WATCH', resource };
  if (scope !== undefined) labels['scope'] = scope;
  return metricSum(cluster, 'apiserver_longrunning_requests', labels);
}

/**
 * The sum of a metric's samples whose labels include `labels`, read from a real kube-apiserver's
 * `/metrics` as the admin (e.g. `apiserver_request_total` with `{ verb: 'LIST', resource:
 * 'configmaps' }`: requests counted when they end).
 */
export async function metricSum(
  cluster: TestBackend,
  name: string,
  labels: Readonly<Record<string, string>>,
): Promise<number> {
  const plane = cluster.controlPlane;
  if (plane === undefined) throw new Error(`metricSum(${name}): metrics of a real API server only`);
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(
      new URL('/metrics', plane.url),
      { headers: { Authorization: `Bearer ${plane.token}` }, ca: plane.ca },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve(body));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.lastIndexOf('}'));
    const have = labelText.split(/,(?=[a-z_]+=")/);
    if (!wanted.every((w) => have.includes(w))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/**
 * Ends every open watch and makes the next one resumed from an old resourceVersion get `410
 * Gone`: the embedded server's `expireNextWatch()` and `dropWatches()` faults, or a real restart
 * of kube-apiserver (its watch cache starts over at the current resourceVersion, so a watch from
 * an older one has expired — when something was written since the watcher's last event).
 */
export async function expireWatches(cluster: TestBackend): Promise<void> {
  if (cluster.apiServer !== undefined) {
    cluster.apiServer.faults.expireNextWatch();
    cluster.apiServer.faults.dropWatches();
    return;
  }
  await restartApiServer(cluster);
}

/**
 * Restarts the API server: every open watch ends and the server is unreachable for a moment (the
 * embedded server keeps its state and history; a real kube-apiserver's watch cache starts over,
 * so watches resumed from before may get 410).
 */
export async function restartApiServer(cluster: TestBackend): Promise<void> {
  if (cluster.apiServer !== undefined) return cluster.apiServer.restart();
  if (cluster.controlPlane === undefined) throw new Error('restartApiServer: no control plane');
  return cluster.controlPlane.restartApiServer();
}
