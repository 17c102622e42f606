/**
 * Test backends: the same integration test runs against the embedded API server and against a
 * real control plane. `RXKUBE_TEST_BACKEND` chooses (`embedded`, `real` or `both`); unset, the
 * embedded tier always runs and the real tier runs when `KUBEBUILDER_ASSETS` holds the binaries.
 *
 * @module
 */
import type { TestCluster } from '../cluster/cluster.js';
import { controlPlaneAssetsAvailable } from '../control-plane/assets.js';
import type { ControlPlane, ControlPlaneOptions } from '../control-plane/control-plane.js';
import { startControlPlane } from '../control-plane/control-plane.js';
import type { ApiServer, ApiServerOptions } from '../server.js';
import { startApiServer } from '../server.js';

/**
 * The two kinds of API server a test can run against.
 *
 * ## Example
 * ```ts
 * const name: BackendName = process.env['CI'] ? 'real' : 'embedded';
 * const backend = await startTestBackend(name);
 * ```
 */
export type BackendName = 'embedded' | 'real';

/**
 * Whether a backend runs in this test run, and why not.
 *
 * ## Example
 * ```ts
 * for (const b of selectedBackends()) {
 *   console.log(b.name, b.enabled ? 'runs' : `skipped: ${b.reason}`);
 * }
 * ```
 */
export interface BackendSelection {
  readonly name: BackendName;
  readonly enabled: boolean;
  /** Why it does not run (and how to enable it). */
  readonly reason?: string;
  /** The user asked for it explicitly (`RXKUBE_TEST_BACKEND`): unavailable is then an error. */
  readonly required: boolean;
}

/**
 * The environment variable choosing backends: `embedded`, `real` or `both` (unset: embedded,
 * plus real when `KUBEBUILDER_ASSETS` holds the binaries).
 *
 * ## Example
 * ```ts
 * const backends = selectedBackends({ ...process.env, [TEST_BACKEND_ENV]: 'embedded' });
 * ```
 */
export const TEST_BACKEND_ENV = 'RXKUBE_TEST_BACKEND';

/**
 * How to turn the real tier on, for messages.
 *
 * ## Example
 * ```ts
 * if (!controlPlaneAssetsAvailable().available) console.log(`real tier off; to run it, ${REAL_TIER_HOW}`);
 * ```
 */
export const REAL_TIER_HOW =
  'set KUBEBUILDER_ASSETS to a directory with kube-apiserver, etcd and kube-controller-manager ' +
  '(envtest binaries, e.g. `setup-envtest use 1.24.x -p path`)';

/**
 * The backends of this run, from `RXKUBE_TEST_BACKEND` and `KUBEBUILDER_ASSETS`.
 *
 * ## Example
 * ```ts
 * selectedBackends({ RXKUBE_TEST_BACKEND: 'both', KUBEBUILDER_ASSETS: '/opt/envtest' });
 * // [{ name: 'embedded', enabled: true, … }, { name: 'real', enabled: true, … }]
 * ```
 *
 * @throws {RangeError} for a value other than `embedded`, `real` or `both`.
 */
export function selectedBackends(env: NodeJS.ProcessEnv = process.env): BackendSelection[] {
  const raw = (env[TEST_BACKEND_ENV] ?? '').trim();
  if (raw !== '' && raw !== 'embedded' && raw !== 'real' && raw !== 'both') {
    throw new RangeError(
      `${TEST_BACKEND_ENV}=${raw} is not a test backend: use embedded, real or both (unset: embedded, plus real when KUBEBUILDER_ASSETS is set)`,
    );
  }
  const assets = controlPlaneAssetsAvailable(undefined, env['KUBEBUILDER_ASSETS'] ?? '');
  const embedded: BackendSelection =
    raw === 'real'
      ? { name: 'embedded', enabled: false, required: false, reason: `${TEST_BACKEND_ENV}=real` }
      : { name: 'embedded', enabled: true, required: raw !== '' };
  let real: BackendSelection;
  if (raw === 'embedded') {
    real = { name: 'real', enabled: false, required: false, reason: `${TEST_BACKEND_ENV}=embedded` };
  } else if (assets.available) {
    real = { name: 'real', enabled: true, required: raw !== '' };
  } else {
    real = {
      name: 'real',
      enabled: raw !== '', // asked for: run, and fail with the assets error
      required: raw !== '',
      // the first sentence only: how to turn the tier on is said once, at the start of the run
      reason: `real-server tier off: ${assets.reason.split(/\.\s/)[0] ?? assets.reason}`,
    };
  }
  return [embedded, real];
}

/**
 * Options of {@link startTestBackend}, shared by both backends where they mean the same.
 *
 * ## Example
 * ```ts
 * const options: TestBackendOptions = { simulateDeployments: true, embedded: { tls: true } };
 * const backend = await startTestBackend('embedded', options);
 * ```
 */
export interface TestBackendOptions {
  /**
   * Deployment rollouts complete although no pod runs: the embedded server's `simulateDeployments`
   * writes the rolled-out status (and ReplicaSets); on a real control plane a stand-in kubelet
   * marks every Pod Running and Ready (`simulatePods`) and kube-controller-manager's own
   * controllers roll out — through the intermediate states a cluster shows.
   */
  readonly simulateDeployments?: boolean;
  /**
   * kube-controller-manager on the real backend (garbage collection, namespace deletion — what the
   * embedded server always emulates). Default true, so both backends behave alike.
   */
  readonly controllerManager?: boolean;
  /** More options of the embedded server. */
  readonly embedded?: ApiServerOptions;
  /** More options of the control plane. */
  readonly real?: ControlPlaneOptions;
}

/**
 * A started backend: a {@link TestCluster} that says which one it is.
 *
 * ## Example
 * ```ts
 * const backend: TestBackend = await startTestBackend('embedded');
 * backend.apiServer?.faults.dropWatches(); // only the embedded server injects faults
 * await backend.controlPlane?.restartApiServer(); // only a real control plane restarts its process
 * await backend.stop();
 * ```
 */
export interface TestBackend extends TestCluster {
  readonly name: BackendName;
  /** The embedded server (fault injection, direct state) — undefined on the real backend. */
  readonly apiServer: ApiServer | undefined;
  /** The control plane (`restartApiServer()`) — undefined on the embedded backend. */
  readonly controlPlane: ControlPlane | undefined;
}

/**
 * Starts one backend.
 *
 * ## Example
 * ```ts
 * const backend = await startTestBackend('real', { simulateDeployments: true });
 * const client = KubeClient.fromKubeConfig(backend.kubeConfig);
 * // …
 * await backend.stop();
 * ```
 *
 * @throws {ControlPlaneAssetsError} for `real` without binaries.
 */
export async function startTestBackend(
  name: BackendName,
  options: TestBackendOptions = {},
): Promise<TestBackend> {
  if (name === 'embedded') {
    const server = await startApiServer({
      ...(options.simulateDeployments === true ? { simulateDeployments: true } : {}),
      ...options.embedded,
    });
    return backendOf('embedded', server, server, undefined);
  }
  const plane = await startControlPlane({
    controllerManager: options.controllerManager ?? true,
    ...(options.simulateDeployments === true ? { simulatePods: true } : {}),
    ...options.real,
  });
  return backendOf('real', plane, undefined, plane);
}

function backendOf(
  name: BackendName,
  cluster: TestCluster,
  apiServer: ApiServer | undefined,
  controlPlane: ControlPlane | undefined,
): TestBackend {
  return {
    name,
    apiServer,
    controlPlane,
    get url() {
      return cluster.url;
    },
    get kubeconfigPath() {
      return cluster.kubeconfigPath;
    },
    get kubeConfig() {
      return cluster.kubeConfig;
    },
    get token() {
      return cluster.token;
    },
    list: (resource, namespace) => cluster.list(resource, namespace),
    get: (resource, namespace, n) => cluster.get(resource, namespace, n),
    stop: () => cluster.stop(),
  };
}
