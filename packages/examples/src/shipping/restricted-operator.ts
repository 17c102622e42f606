/**
 * Runs a shipped example the way its Deployment does — `rxkube run`'s module loading, the
 * Deployment's environment (leader election on, the lease in `rxkube-system`), its ServiceAccount's
 * token — against `@rxkube/testing`'s API server authorizing with RBAC: an admin applies the
 * checked-in `deploy/namespace.yaml` and `deploy/rbac.yaml` as kubectl would, and the server decides
 * every request of the operator from those Roles and bindings (resourceNames, subresources,
 * `create` for a server-side apply that creates, OwnerReferencesPermissionEnforcement for
 * `blockOwnerDeletion`). The server's audit log records each request with its decision. The CRD is
 * installed first by the admin (kustomize applies `deploy/crd.yaml` before the operator starts), so
 * the operator's own `mgr.ensureCrd` only updates it — with the `get`/`patch` that `rbac.yaml`
 * grants on that CRD.
 *
 * For tests; the proof that the shipped RBAC is enough.
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOperatorModule } from '@rxkube/cli';
import type { KubeObject, ControllerResult, Manager } from '@rxkube/kube';
import {
  KubeClient,
  createLogger,
  ensureCrd,
  loadKubeConfigFile,
  settingsFromEnv,
  withSettings,
} from '@rxkube/kube';
import type { ApiServerOptions, AuditEvent, BackendName, TestCluster } from '@rxkube/testing';
import { startApiServer, startControlPlane } from '@rxkube/testing';
import type { Observable } from 'rxjs';
import { filter, firstValueFrom, throwError, timeout } from 'rxjs';
import { stringify } from 'yaml';
import { exampleFile } from '../paths.js';
import { operatorModule } from './generate.js';
import type { Grant } from './grants.js';
import { grantKey, grantsFor, serviceAccountUser } from './grants.js';
import type { Manifest, ShippedExample } from './manifests.js';
import { OPERATOR_NAMESPACE, parseManifests } from './manifests.js';

/** The operator's bearer token on the test API server. */
export const OPERATOR_TOKEN = 'op-token';
const ADMIN_TOKEN = 'admin-token';
/** A failure bound for waits (they end on an outcome, this only turns a hang into a message). */
const FAILURE_BOUND_MS = 20_000;
const MAX_RESULTS_PER_WAIT = 2_000;

/** One request of the operator, from the server's audit log. */
export interface OperatorRequest {
  /** Path and query, as sent. */
  readonly url: string;
  /** The answer's code (a watch: 200 when it opened). */
  readonly status: number;
  /** The authorizer's verb: get, list, watch, create, update, patch, delete, deletecollection. */
  readonly verb: string;
  /** `undefined` for non-resource requests (discovery, /version, /openapi). */
  readonly resource?: {
    readonly group: string;
    readonly version: string;
    readonly resource: string;
    readonly subresource?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
  /** The authorizer's reason (`RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "x" to …`). */
  readonly reason: string;
}

/** A running restricted operator and everything around it. */
export interface RestrictedOperator {
  /** Which API server it runs against. */
  readonly backend: BackendName;
  /** The API server (reads as the admin). */
  readonly cluster: TestCluster;
  /** A `system:masters` client: plays the user (creates namespaces, samples, …). */
  readonly admin: KubeClient;
  /** The manager, built as `rxkube run` builds it, with the operator's token. */
  readonly mgr: Manager;
  /** What the manifests grant the ServiceAccount (what the API server allows). */
  readonly grants: readonly Grant[];
  /** Every reconcile result so far. */
  readonly results: readonly ControllerResult[];
  /** Every log line of the manager (JSON, level `debug`). */
  readonly logs: readonly string[];
  /** The example being run. */
  readonly example: ShippedExample;
  /** Every request of the operator so far, in order (the server's audit log). */
  requests(): OperatorRequest[];
  /** The operator's requests answered 401 or 403. */
  refused(): OperatorRequest[];
  /**
   * The operator's resource requests the authorizer allowed through anything but `rbac.yaml`'s own
   * bindings (a bootstrap binding such as `system:basic-user`): none, for RBAC that is the
   * operator's whole permission.
   */
  allowedOutsideItsRbac(): OperatorRequest[];
  /**
   * The grants of `rbac.yaml` (as {@link grantKey}s) no request of the operator used so far; a
   * server-side apply that created an object (a PATCH answered 201) used `create` as well, which
   * the server authorized for it.
   */
  unusedGrants(): string[];
  /** Resolves once `check()` holds, re-checked after every reconcile result. */
  until(what: string, check: () => boolean | Promise<boolean>): Promise<void>;
  /** Stops the manager (drain, lease release) and the API server. */
  stop(): Promise<void>;
}

/** Options of {@link startRestrictedOperator}. */
export interface RestrictedOperatorOptions {
  /**
   * The embedded server (default) or a real control plane (`startControlPlane()`, binaries from
   * `KUBEBUILDER_ASSETS`, kube-controller-manager running, its audit log written to a file).
   */
  readonly backend?: BackendName;
  /** Simulated Deployment rollouts (there is no kubelet on either backend). */
  readonly simulateDeployments?: boolean;
  /** More options of the embedded server (not `auth`, `audit` or admission plugins). */
  readonly server?: Omit<ApiServerOptions, 'auth' | 'audit' | 'enableAdmissionPlugins'>;
  /** Run as admin before the operator starts (e.g. create namespaces the scenario needs). */
  readonly before?: (admin: KubeClient) => Promise<void>;
}

/**
 * The RBAC manifests of `<example>/deploy/` (all of it is in `rbac.yaml`).
 *
 * ## Example
 * ```ts
 * grantsFor(deployRbacManifests(example), example.name, OPERATOR_NAMESPACE);
 * ```
 */
export function deployRbacManifests(example: ShippedExample): Manifest[] {
  return deployManifests(example, 'rbac.yaml');
}

/**
 * The environment the Deployment gives the container: its `value`s, the downward-API fields
 * resolved for pod `<name>-0` in `rxkube-system`.
 *
 * ## Example
 * ```ts
 * deploymentEnv(example)['RXKUBE_LEADER_ELECT']; // 'true'
 * ```
 */
export function deploymentEnv(example: ShippedExample): Record<string, string> {
  const url = exampleFile(example.name, 'deploy/deployment.yaml');
  const [deployment] = parseManifests(readFileSync(url, 'utf8'), fileURLToPath(url));
  const spec = deployment?.['spec'] as
    | {
        template: {
          spec: {
            containers: {
              env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
            }[];
          };
        };
      }
    | undefined;
  const env: Record<string, string> = {};
  for (const e of spec?.template.spec.containers[0]?.env ?? []) {
    const path = e.valueFrom?.fieldRef?.fieldPath;
    if (e.value !== undefined) env[e.name] = e.value;
    else if (path === 'metadata.name') env[e.name] = `${example.name}-0`;
    else if (path === 'metadata.namespace') env[e.name] = OPERATOR_NAMESPACE;
  }
  return env;
}

/** The operator's requests in an audit log. */
function operatorRequests(events: readonly AuditEvent[], user: string): OperatorRequest[] {
  return events
    .filter((e) => (e.impersonatedUser ?? e.user).username === user)
    .map((e) => {
      const ref = e.objectRef;
      return {
        url: e.requestURI,
        status: e.responseStatus.code,
        verb: e.verb,
        reason: e.annotations['authorization.k8s.io/reason'] ?? '',
        ...(ref !== undefined
          ? {
              resource: {
                group: ref.apiGroup ?? '',
                version: ref.apiVersion,
                resource: ref.resource,
                ...(ref.subresource !== undefined ? { subresource: ref.subresource } : {}),
                ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
                ...(ref.name !== undefined ? { name: ref.name } : {}),
              },
            }
          : {}),
      };
    });
}

/** An API server for the run, and where its audit events are read. */
interface RunCluster {
  readonly cluster: TestCluster;
  /** The CA of its serving certificate (a real control plane), for the operator's kubeconfig. */
  readonly ca?: string;
  /** The audit log so far. */
  audit(): AuditEvent[];
}

/** An audit policy logging one user's requests at level Metadata, once each (on completion). */
function auditPolicy(user: string): string {
  return stringify({
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived', 'ResponseStarted'],
    rules: [{ level: 'Metadata', users: [user] }, { level: 'None' }],
  });
}

async function startCluster(
  backend: BackendName,
  user: string,
  options: RestrictedOperatorOptions,
): Promise<RunCluster> {
  const saUser = {
    name: user,
    // a ServiceAccount token authenticates as the account, in its groups
    groups: ['system:serviceaccounts', `system:serviceaccounts:${OPERATOR_NAMESPACE}`],
  };
  // on by default in OpenShift: blockOwnerDeletion needs update on the owner's finalizers
  const plugins = ['OwnerReferencesPermissionEnforcement'] as const;
  if (backend === 'embedded') {
    const server = await startApiServer({
      ...options.server,
      ...(options.simulateDeployments === true ? { simulateDeployments: true } : {}),
      auth: {
        tokens: { [ADMIN_TOKEN]: { name: 'admin', groups: ['system:masters'] }, [OPERATOR_TOKEN]: saUser },
      },
      audit: {},
      enableAdmissionPlugins: plugins,
    });
    return { cluster: server, audit: () => server.auditEvents() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-restricted-audit-'));
  const policy = join(dir, 'policy.yaml');
  const log = join(dir, 'audit.log');
  writeFileSync(policy, auditPolicy(user));
  const plane = await startControlPlane({
    users: { [OPERATOR_TOKEN]: saUser },
    controllerManager: true,
    // a stand-in kubelet marks Pods ready, so kube-controller-manager completes rollouts
    ...(options.simulateDeployments === true ? { simulatePods: true } : {}),
    enableAdmissionPlugins: plugins,
    apiServerArgs: [`--audit-policy-file=${policy}`, `--audit-log-path=${log}`, '--audit-log-mode=blocking'],
  });
  const cluster: TestCluster = {
    ...plane,
    url: plane.url,
    kubeconfigPath: plane.kubeconfigPath,
    kubeConfig: plane.kubeConfig,
    token: plane.token,
    list: (r, ns) => plane.list(r, ns),
    get: (r, ns, n) => plane.get(r, ns, n),
    stop: async () => {
      await plane.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return {
    cluster,
    ca: plane.ca,
    audit: () => {
      let text: string;
      try {
        text = readFileSync(log, 'utf8');
      } catch {
        return []; // nothing logged yet
      }
      return text
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => {
          const e = JSON.parse(l) as AuditEvent;
          return { ...e, annotations: e.annotations ?? {} };
        });
    },
  };
}

/** The grant keys a request used (with and without its namespace). */
function usedGrantKeys(r: OperatorRequest): string[] {
  const res = r.resource;
  if (res === undefined || r.status === 401 || r.status === 403) return [];
  const resource = res.subresource !== undefined ? `${res.resource}/${res.subresource}` : res.resource;
  const verbs =
    r.verb === 'patch' && r.status === 201
      ? ['patch', 'create']
      : streamingList(r)
        ? ['watch', 'list']
        : [r.verb];
  return verbs.flatMap((verb) => {
    const base = { group: res.group, resource, verb };
    return res.namespace !== undefined
      ? [grantKey(base), grantKey({ ...base, namespace: res.namespace })]
      : [grantKey(base)];
  });
}

/**
 * A streaming list (WatchList: a watch with `sendInitialEvents=true`) is authorized as `watch`
 * alone, but it stands in for the watcher's paged list: a server without WatchList (the real
 * tier's v1.24) answers the same watcher with `list` requests, so rbac.yaml's `list` is used.
 */
function streamingList(r: OperatorRequest): boolean {
  if (r.verb !== 'watch') return false;
  const query = new URL(r.url, 'http://audit.invalid').searchParams;
  return query.get('sendInitialEvents') === 'true';
}

/** Applies manifests as an admin with kubectl would (server-side apply, forced). */
async function applyAsAdmin(admin: KubeClient, objects: readonly Manifest[]): Promise<void> {
  for (const o of objects) await admin.apply(o, { fieldManager: 'kubectl', force: true });
}

/** `deploy/<file>` of an example, parsed. */
function deployManifests(example: ShippedExample, file: string): Manifest[] {
  const url = exampleFile(example.name, `deploy/${file}`);
  return parseManifests(readFileSync(url, 'utf8'), fileURLToPath(url));
}

const waitFor = <T>(source: Observable<T>, what: string, check: (v: T) => boolean): Promise<T> =>
  firstValueFrom(
    source.pipe(
      filter(check),
      timeout({ first: FAILURE_BOUND_MS, with: () => throwError(() => new Error(`${what} did not happen`)) }),
    ),
  );

/**
 * Starts the example as its Deployment would run it, restricted to its shipped RBAC; resolves
 * once it leads and every cache is synced.
 *
 * ## Example
 * ```ts
 * const op = await startRestrictedOperator(SHIPPED_EXAMPLES[0]);
 * try { … await op.until('copied', () => …); expect(op.refused()).toEqual([]); } finally { await op.stop(); }
 * ```
 */
export async function startRestrictedOperator(
  example: ShippedExample,
  options: RestrictedOperatorOptions = {},
): Promise<RestrictedOperator> {
  const user = serviceAccountUser(example.name, OPERATOR_NAMESPACE);
  const rbac = deployRbacManifests(example);
  const grants = grantsFor(rbac, example.name, OPERATOR_NAMESPACE);
  const backend = options.backend ?? 'embedded';
  const run = await startCluster(backend, user, options);
  const { cluster } = run;
  const admin = KubeClient.fromKubeConfig(cluster.kubeConfig);
  const cleanup: (() => unknown)[] = [() => cluster.stop(), () => admin.close()];
  try {
    // what `kubectl apply -k deploy/` does before the operator's pod starts
    await applyAsAdmin(admin, deployManifests(example, 'namespace.yaml'));
    await applyAsAdmin(admin, rbac);
    if (example.crd !== undefined) await ensureCrd(admin, exampleFile(example.name, 'deploy/crd.yaml'));
    await options.before?.(admin);

    const dir = mkdtempSync(join(tmpdir(), `rxkube-${example.name}-sa-`));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'test',
            cluster:
              run.ca !== undefined
                ? {
                    server: cluster.url,
                    'certificate-authority-data': Buffer.from(run.ca).toString('base64'),
                  }
                : // plain HTTP: nothing to verify (client-node wants it said)
                  { server: cluster.url, 'insecure-skip-tls-verify': true },
          },
        ],
        users: [{ name: example.name, user: { token: OPERATOR_TOKEN } }],
        contexts: [{ name: 'sa', context: { cluster: 'test', user: example.name } }],
        'current-context': 'sa',
      }),
      { mode: 0o600 },
    );
    const client = KubeClient.fromKubeConfig(loadKubeConfigFile(kubeconfig));
    rmSync(dir, { recursive: true, force: true });
    cleanup.unshift(() => client.close());

    const logs: string[] = [];
    const env = { ...deploymentEnv(example), RXKUBE_HEALTH_PORT: '0', RXKUBE_METRICS_PORT: '0' };
    // What `rxkube run` does: load the module, lay the environment over the defaults, setup().
    const runnable = await loadOperatorModule(operatorModule(example.name));
    const mgr = await runnable.manager(
      withSettings(
        {
          client,
          name: runnable.name ?? example.name,
          healthPort: 8081,
          metricsPort: 8080,
          log: createLogger({
            name: example.name,
            level: 'debug',
            destination: { write: (line: string) => void logs.push(line) },
          }),
        },
        settingsFromEnv(env),
      ),
    );
    const results: ControllerResult[] = [];
    mgr.results$.subscribe((r) => results.push(r));
    await mgr.start();
    cleanup.unshift(() => mgr.stop());
    await waitFor(mgr.leadership$, `${example.name}: leading`, (leading) => leading);
    for (const target of mgr.targets()) {
      await waitFor(
        mgr.registry.watch<KubeObject>(target).store.ready$,
        `${example.name}: cache synced`,
        Boolean,
      );
    }
    const ownBindings = new Set(
      rbac
        .filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')
        .map((o) =>
          o.kind === 'RoleBinding'
            ? `RoleBinding "${o.metadata.name}/${o.metadata.namespace ?? ''}"`
            : `ClusterRoleBinding "${o.metadata.name}"`,
        ),
    );
    const refused = (): OperatorRequest[] =>
      operatorRequests(run.audit(), user).filter((r) => r.status === 401 || r.status === 403);
    return {
      backend,
      cluster,
      admin,
      mgr,
      grants,
      results,
      logs,
      example,
      requests: () => operatorRequests(run.audit(), user),
      refused,
      allowedOutsideItsRbac: () =>
        operatorRequests(run.audit(), user).filter((r) => {
          if (r.resource === undefined || r.status === 401 || r.status === 403) return false;
          const by = /^RBAC: allowed by ((?:Cluster)?RoleBinding "[^"]*") of /.exec(r.reason)?.[1];
          return by === undefined || !ownBindings.has(by);
        }),
      unusedGrants: () => {
        const used = new Set(operatorRequests(run.audit(), user).flatMap(usedGrantKeys));
        return [...new Set(grants.map((g) => grantKey(g)))].filter((k) => !used.has(k));
      },
      until: async (what, check) => {
        // Results that arrive while a check is awaiting its HTTP answer must not be missed: the
        // wait below starts only when no result came since the last check (`results` is filled by
        // a subscription held from the start), else it checks again at once.
        let checkedAt = results.length;
        if (await check()) return;
        const bounded = mgr.results$.pipe(
          timeout({
            first: FAILURE_BOUND_MS,
            with: () =>
              throwError(
                () =>
                  new Error(
                    `${example.name}: ${what} did not happen; refused requests: ${JSON.stringify(
                      refused().slice(-5),
                    )}; last log lines: ${logs.slice(-3).join('')}`,
                  ),
              ),
          }),
        );
        // Bounded by results too: a controller requeueing forever must not spin the test forever.
        for (let seen = 0; seen < MAX_RESULTS_PER_WAIT; seen++) {
          if (results.length === checkedAt) await firstValueFrom(bounded);
          checkedAt = results.length;
          if (await check()) return;
        }
        throw new Error(`${example.name}: ${what} did not happen within ${MAX_RESULTS_PER_WAIT} reconciles`);
      },
      stop: async () => {
        for (const step of cleanup) await step();
      },
    };
  } catch (error) {
    for (const step of cleanup) await step();
    throw error;
  }
}
