/**
 * Runs a shipped example the way its Deployment does — `rxkube run`'s module loading, the
 * Deployment's environment (leader election on, the lease in `rxkube-system`), its ServiceAccount's
 * token — against `@rxkube/testing`'s API server authorizing with exactly the checked-in
 * `deploy/rbac.yaml`, through a {@link startRecordingProxy} that logs every request and its status.
 * The CRD is installed first by an admin (kustomize applies `deploy/crd.yaml` before the operator
 * starts), so the operator's own `mgr.ensureCrd` only updates it — with the `get`/`patch` that
 * `rbac.yaml` grants on that CRD.
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
import type { ApiServer, ApiServerOptions } from '@rxkube/testing';
import { startApiServer } from '@rxkube/testing';
import type { Observable } from 'rxjs';
import { filter, firstValueFrom, throwError, timeout } from 'rxjs';
import { stringify } from 'yaml';
import { exampleFile } from '../paths.js';
import { operatorModule } from './generate.js';
import type { Grant } from './grants.js';
import { authRulesFor, grantsFor, serviceAccountUser } from './grants.js';
import type { Manifest, ShippedExample } from './manifests.js';
import { OPERATOR_NAMESPACE, parseManifests } from './manifests.js';
import type { RecordedRequest, RecordingProxy } from './recording-proxy.js';
import { startRecordingProxy } from './recording-proxy.js';

/** The operator's bearer token on the test API server. */
export const OPERATOR_TOKEN = 'op-token';
const ADMIN_TOKEN = 'admin-token';
/** A failure bound for waits (they end on an outcome, this only turns a hang into a message). */
const FAILURE_BOUND_MS = 20_000;
const MAX_RESULTS_PER_WAIT = 2_000;

/** A running restricted operator and everything around it. */
export interface RestrictedOperator {
  readonly server: ApiServer;
  readonly proxy: RecordingProxy;
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
  /** The operator's requests answered 401 or 403. */
  refused(): RecordedRequest[];
  /**
   * The operator's requests that only `resourceNames` grants cover, for a name none of them lists
   * (or for no name, a list or a create). `@rxkube/testing`'s authorizer ignores `resourceNames`
   * (see `authRulesFor`), so this stands in for kube-apiserver's check.
   */
  outsideResourceNames(): RecordedRequest[];
  /** Resolves once `check()` holds, re-checked after every reconcile result. */
  until(what: string, check: () => boolean | Promise<boolean>): Promise<void>;
  /** Stops the manager (drain, lease release), the proxy and the server. */
  stop(): Promise<void>;
}

/** Options of {@link startRestrictedOperator}. */
export interface RestrictedOperatorOptions {
  /** More options of the API server (not `auth`). */
  readonly server?: Omit<ApiServerOptions, 'auth'>;
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
  const url = exampleFile(example.name, 'deploy/rbac.yaml');
  return parseManifests(readFileSync(url, 'utf8'), fileURLToPath(url));
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

/** Whether only grants limited by `resourceNames` match `r`, and none of them lists its name. */
function outsideResourceNames(r: RecordedRequest, grants: readonly Grant[]): boolean {
  const res = r.resource;
  if (res === undefined) return false;
  const resource = res.subresource !== undefined ? `${res.resource}/${res.subresource}` : res.resource;
  const matching = grants.filter(
    (g) =>
      g.group === res.group &&
      g.resource === resource &&
      g.verb === r.verb &&
      (g.namespace === undefined || g.namespace === res.namespace),
  );
  return (
    matching.length > 0 &&
    matching.every(
      (g) => g.resourceNames !== undefined && (res.name === undefined || !g.resourceNames.includes(res.name)),
    )
  );
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
  const grants = grantsFor(deployRbacManifests(example), example.name, OPERATOR_NAMESPACE);
  const server = await startApiServer({
    ...options.server,
    auth: {
      tokens: { [ADMIN_TOKEN]: { name: 'admin', groups: ['system:masters'] }, [OPERATOR_TOKEN]: user },
      allow: authRulesFor(grants, user),
    },
  });
  const admin = KubeClient.fromKubeConfig(server.kubeConfig);
  const proxy = await startRecordingProxy(server.url);
  const cleanup: (() => unknown)[] = [() => server.stop(), () => proxy.close(), () => admin.close()];
  try {
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATOR_NAMESPACE } });
    if (example.crd !== undefined) await ensureCrd(admin, exampleFile(example.name, 'deploy/crd.yaml'));
    await options.before?.(admin);

    const dir = mkdtempSync(join(tmpdir(), `rxkube-${example.name}-sa-`));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'proxy', cluster: { server: proxy.url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: example.name, user: { token: OPERATOR_TOKEN } }],
        contexts: [{ name: 'sa', context: { cluster: 'proxy', user: example.name } }],
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
    return {
      server,
      proxy,
      admin,
      mgr,
      grants,
      results,
      logs,
      example,
      refused: () => proxy.requests.filter((r) => r.status === 401 || r.status === 403),
      outsideResourceNames: () => proxy.requests.filter((r) => outsideResourceNames(r, grants)),
      until: async (what, check) => {
        if (await check()) return;
        const bounded = mgr.results$.pipe(
          timeout({
            first: FAILURE_BOUND_MS,
            with: () =>
              throwError(
                () =>
                  new Error(
                    `${example.name}: ${what} did not happen; refused requests: ${JSON.stringify(
                      proxy.requests.filter((r) => r.status === 401 || r.status === 403).slice(-5),
                    )}; last log lines: ${logs.slice(-3).join('')}`,
                  ),
              ),
          }),
        );
        // Bounded by results too: a controller requeueing forever must not spin the test forever.
        for (let seen = 0; seen < MAX_RESULTS_PER_WAIT; seen++) {
          await firstValueFrom(bounded);
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
