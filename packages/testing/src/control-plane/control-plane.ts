/**
 * `startControlPlane()`: a real Kubernetes control plane for tests, the way controller-runtime's
 * envtest starts one — etcd, kube-apiserver and optionally kube-controller-manager from the
 * binaries in `KUBEBUILDER_ASSETS`, on free loopback ports, with a serving certificate the API
 * server generates, an RSA service-account key pair and an admin token. It returns the same handle
 * shape as `startApiServer()` (URL, kubeconfig, token, reads, stop), so a test can take either.
 *
 * What it does not do: schedule or run pods (no scheduler, no kubelet — Pods stay Pending), reach
 * anything but 127.0.0.1 (the Service range is 127.100.0.0/24), or keep any state after `stop()`.
 *
 * @module
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { KubeConfig } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';

import { AdminClient } from '../cluster/admin-client.js';
import type { TestCluster } from '../cluster/cluster.js';
import { clusterReads } from '../cluster/cluster.js';
import { KubeletSimulator } from '../cluster/kubelet-simulator.js';
import type { ControlPlaneBinary } from './assets.js';
import { findControlPlaneAssets } from './assets.js';
import type { Child } from './processes.js';
import { freePorts, startChild, waitUntil } from './processes.js';

/**
 * A user the API server authenticates by bearer token (`--token-auth-file`).
 *
 * ## Example
 * ```ts
 * const cp = await startControlPlane({ users: { 'reader-token': { name: 'reader', groups: ['readers'] } } });
 * ```
 */
export interface ControlPlaneUser {
  readonly name: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
}

/**
 * Options of {@link startControlPlane}; every field has a default.
 *
 * ## Example
 * ```ts
 * const options: ControlPlaneOptions = {
 *   controllerManager: ['garbagecollector', 'namespace'],
 *   enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'],
 * };
 * const cp = await startControlPlane(options);
 * ```
 */
export interface ControlPlaneOptions {
  /** Directory of the binaries; default `KUBEBUILDER_ASSETS`. */
  readonly assetsDir?: string;
  /**
   * Start kube-controller-manager too (garbage collection, namespace deletion, ReplicaSets, Jobs,
   * CronJobs, ServiceAccounts…). `true` starts its default controllers; a list is passed as
   * `--controllers`. Default false (as envtest: an API server alone).
   */
  readonly controllerManager?: boolean | readonly string[];
  /**
   * A stand-in kubelet (there are no nodes): every Pod is marked Running and Ready over HTTP, so
   * kube-controller-manager's own ReplicaSet and Deployment controllers complete rollouts as on a
   * cluster — what the embedded server's `simulateDeployments` shows, reached the real way.
   * Starts kube-controller-manager even when `controllerManager` is not set. Default false.
   */
  readonly simulatePods?: boolean;
  /** Extra users by token (the admin is always there). */
  readonly users?: Readonly<Record<string, ControlPlaneUser>>;
  /** `--authorization-mode`; default `RBAC` (the admin is in `system:masters`). */
  readonly authorizationMode?: string;
  /** `--enable-admission-plugins` (e.g. `OwnerReferencesPermissionEnforcement`). */
  readonly enableAdmissionPlugins?: readonly string[];
  /**
   * `--disable-admission-plugins`; default `['ServiceAccount']`, as envtest: without the
   * ServiceAccount admission plugin a Pod can be created before the namespace's `default`
   * ServiceAccount exists.
   */
  readonly disableAdmissionPlugins?: readonly string[];
  /** More kube-apiserver flags, e.g. `['--watch-cache=false']`. */
  readonly apiServerArgs?: readonly string[];
  /** More kube-controller-manager flags. */
  readonly controllerManagerArgs?: readonly string[];
  /** How long start-up may take (default 60 s). */
  readonly startTimeoutMs?: number;
  /** Where to write the kubeconfig (default: inside the run directory). */
  readonly kubeconfigPath?: string;
}

/**
 * A running control plane.
 *
 * ## Example
 * ```ts
 * const cp: ControlPlane = await startControlPlane();
 * console.log(cp.url, cp.processes.map((p) => `${p.name}:${p.pid}`), `logs in ${cp.dir}`);
 * await cp.restartApiServer(); // open watches end; old resourceVersions get 410
 * await cp.stop();
 * ```
 */
export interface ControlPlane extends TestCluster {
  readonly port: number;
  /** PEM of the CA of the API server's serving certificate. */
  readonly ca: string;
  /** The run directory: data, certificates, keys and each component's log (`*.log`). */
  readonly dir: string;
  /** etcd's client URL. */
  readonly etcdUrl: string;
  /** The processes it runs, by name and PID (for diagnostics; `stop()` kills them). */
  readonly processes: readonly { readonly name: string; readonly pid: number | undefined }[];
  /** Tokens of the extra users given in the options. */
  readonly users: Readonly<Record<string, ControlPlaneUser>>;
  /**
   * Kills kube-apiserver and starts it again on the same port with the same etcd: every open
   * watch ends, the watch cache starts empty, so a watch resumed from an older resourceVersion
   * gets `410 Gone` — a real server's restart. `options.whileDown` runs while kube-apiserver is
   * down (connections refused) and the start waits for it: a test makes the outage last until a
   * condition holds (its clients have backed off), not for a fixed time. Resolves once
   * kube-apiserver answers `/readyz` with `ok` again.
   */
  restartApiServer(options?: { readonly whileDown?: () => Promise<void> }): Promise<void>;
}

const ADMIN = 'admin';

/**
 * Starts etcd, kube-apiserver and (optionally) kube-controller-manager on loopback.
 *
 * ## Example
 * ```ts
 * const cp = await startControlPlane({ controllerManager: true }); // KUBEBUILDER_ASSETS must be set
 * const client = KubeClient.fromKubeConfig(cp.kubeConfig);
 * await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } });
 * await cp.stop();
 * ```
 *
 * Each start has its own ports and run directory (etcd's data in `/dev/shm` when it exists, which
 * keeps etcd's fsyncs cheap), so parallel test files do not collide. Every process is killed by
 * PID on `stop()`, on process exit, and by a watchdog if this process dies without exiting.
 *
 * @throws {ControlPlaneAssetsError} when the binaries are missing (naming them and how to get them).
 * @throws {Error} when a component does not come up, with the end of its log.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const withKcm =
    options.simulatePods === true ||
    (options.controllerManager !== undefined && options.controllerManager !== false);
  const needed: ControlPlaneBinary[] = [
    'etcd',
    'kube-apiserver',
    ...(withKcm ? (['kube-controller-manager'] as const) : []),
  ];
  const assets = findControlPlaneAssets(needed, options.assetsDir);
  const dir = mkdtempSync(join(tmpdir(), 'rxkube-control-plane-'));
  const shm = existsSync('/dev/shm') ? mkdtempSync(join('/dev/shm', 'rxkube-etcd-')) : undefined;
  const plane = new ControlPlaneImpl(assets, dir, shm, options);
  try {
    await plane.start(withKcm);
  } catch (e) {
    await plane.stop();
    throw e;
  }
  return plane;
}

class ControlPlaneImpl implements ControlPlane {
  readonly token = randomBytes(24).toString('hex');
  readonly users: Record<string, ControlPlaneUser>;
  url = '';
  port = 0;
  ca = '';
  etcdUrl = '';
  kubeconfigPath: string;
  kubeConfig = new KubeConfig();
  list: TestCluster['list'] = () => Promise.reject(new Error('control plane not started'));
  get: TestCluster['get'] = () => Promise.reject(new Error('control plane not started'));
  private etcd: Child | undefined;
  private apiServer: Child | undefined;
  private controllerManager: Child | undefined;
  private apiServerArgs: string[] = [];
  private admin: AdminClient | undefined;
  private simulator: KubeletSimulator | undefined;
  private stopped = false;

  constructor(
    private readonly assets: string,
    readonly dir: string,
    private readonly etcdDir: string | undefined,
    private readonly options: ControlPlaneOptions,
  ) {
    this.kubeconfigPath = options.kubeconfigPath ?? join(dir, 'kubeconfig');
    this.users = { ...(options.users ?? {}) };
  }

  async start(withKcm: boolean): Promise<void> {
    const timeout = this.options.startTimeoutMs ?? 60_000;
    const [etcdPort, peerPort, apiPort, kcmPort] = await freePorts(4);
    this.port = apiPort ?? 0;
    this.url = `https://127.0.0.1:${this.port}`;
    this.etcdUrl = `http://127.0.0.1:${String(etcdPort)}`;
    const peerUrl = `http://127.0.0.1:${String(peerPort)}`;

    // etcd
    const etcdData = join(this.etcdDir ?? this.dir, 'etcd');
    this.etcd = startChild(
      'etcd',
      join(this.assets, 'etcd'),
      [
        `--data-dir=${etcdData}`,
        `--listen-client-urls=${this.etcdUrl}`,
        `--advertise-client-urls=${this.etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=default=${peerUrl}`,
        '--log-level=warn',
      ],
      join(this.dir, 'etcd.log'),
    );
    const etcdHealth = new AdminClient({ url: this.etcdUrl, token: '' });
    await waitUntil(
      'etcd answered /health',
      async () =>
        (await etcdHealth.request('GET', '/health', undefined, 'application/json', 2_000)).status === 200,
      this.etcd,
      timeout,
    );
    etcdHealth.close();

    // keys and tokens
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const saKey = join(this.dir, 'sa.key');
    const saPub = join(this.dir, 'sa.pub');
    writeFileSync(saKey, privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
    writeFileSync(saPub, publicKey.export({ type: 'spki', format: 'pem' }));
    const tokens = [
      csvLine(this.token, { name: ADMIN, uid: 'admin-uid', groups: ['system:masters'] }),
      ...Object.entries(this.users).map(([token, user]) => csvLine(token, user)),
    ];
    const tokenFile = join(this.dir, 'tokens.csv');
    writeFileSync(tokenFile, tokens.join('\n') + '\n', { mode: 0o600 });
    const certDir = join(this.dir, 'certs');
    mkdirSync(certDir);

    // kube-apiserver
    this.apiServerArgs = [
      `--etcd-servers=${this.etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${this.port}`,
      `--cert-dir=${certDir}`,
      `--token-auth-file=${tokenFile}`,
      `--service-account-issuer=${this.url}`,
      `--service-account-key-file=${saPub}`,
      `--service-account-signing-key-file=${saKey}`,
      `--authorization-mode=${this.options.authorizationMode ?? 'RBAC'}`,
      '--service-cluster-ip-range=127.100.0.0/24',
      '--endpoint-reconciler-type=none',
      '--allow-privileged=true',
      `--disable-admission-plugins=${(this.options.disableAdmissionPlugins ?? ['ServiceAccount']).join(',')}`,
      ...(this.options.enableAdmissionPlugins !== undefined && this.options.enableAdmissionPlugins.length > 0
        ? [`--enable-admission-plugins=${this.options.enableAdmissionPlugins.join(',')}`]
        : []),
      '--profiling=false',
      // CRD x-kubernetes-validations (CEL) are alpha in 1.24: on, as in 1.25+ (fixtures/cel/README.md)
      '--feature-gates=CustomResourceValidationExpressions=true',
      ...(this.options.apiServerArgs ?? []),
    ];
    await this.startApiServer(timeout);

    this.writeKubeconfig();
    const reads = clusterReads(this.adminClient());
    this.list = reads.list;
    this.get = reads.get;
    // /readyz answers ok before the bootstrap controller has created the `default` namespace
    // (seen within ~30 ms): a test's first write there would get 404
    await waitUntil(
      'the default namespace exists',
      async () => (await this.get('namespaces', undefined, 'default')) !== undefined,
      this.apiServer!,
      timeout,
      10,
    );

    // kube-controller-manager
    if (withKcm) {
      const controllers = Array.isArray(this.options.controllerManager)
        ? (this.options.controllerManager as readonly string[])
        : ['*'];
      this.controllerManager = startChild(
        'kube-controller-manager',
        join(this.assets, 'kube-controller-manager'),
        [
          `--kubeconfig=${this.kubeconfigPath}`,
          '--bind-address=127.0.0.1',
          `--secure-port=${String(kcmPort)}`,
          `--cert-dir=${join(this.dir, 'kcm-certs')}`,
          '--leader-elect=false',
          `--service-account-private-key-file=${saKey}`,
          `--root-ca-file=${join(certDir, 'apiserver.crt')}`,
          `--controllers=${controllers.join(',')}`,
          // one identity for every controller: no wait for per-controller ServiceAccount tokens
          '--use-service-account-credentials=false',
          ...(this.options.controllerManagerArgs ?? []),
        ],
        join(this.dir, 'kube-controller-manager.log'),
      );
      // it serves /healthz with a certificate it generates into its cert dir: trust exactly that one
      const kcmCert = join(this.dir, 'kcm-certs', 'kube-controller-manager.crt');
      let kcmHealth: AdminClient | undefined;
      try {
        await waitUntil(
          'kube-controller-manager answered /healthz',
          async () => {
            if (kcmHealth === undefined) {
              if (!existsSync(kcmCert)) return false;
              kcmHealth = new AdminClient({
                url: `https://127.0.0.1:${String(kcmPort)}`,
                token: this.token,
                ca: readFileSync(kcmCert, 'utf8'),
              });
            }
            return (
              (await kcmHealth.request('GET', '/healthz', undefined, 'application/json', 2_000)).status ===
              200
            );
          },
          this.controllerManager,
          timeout,
        );
      } finally {
        kcmHealth?.close();
      }
    }
    if (this.options.simulatePods === true) {
      this.simulator = new KubeletSimulator(this.adminClient());
      await this.simulator.start();
    }
  }

  private async startApiServer(timeout: number): Promise<void> {
    this.apiServer = startChild(
      'kube-apiserver',
      join(this.assets, 'kube-apiserver'),
      this.apiServerArgs,
      join(this.dir, 'kube-apiserver.log'),
    );
    const certFile = join(this.dir, 'certs', 'apiserver.crt');
    let ready: AdminClient | undefined;
    try {
      await waitUntil(
        'kube-apiserver answered /readyz with ok',
        async () => {
          if (ready === undefined) {
            if (!existsSync(certFile)) return false;
            // the generated file holds the serving certificate and the CA that signed it
            this.ca = readFileSync(certFile, 'utf8');
            ready = new AdminClient({ url: this.url, token: this.token, ca: this.ca });
          }
          const r = await ready.request('GET', '/readyz', undefined, 'application/json', 2_000);
          return r.status === 200 && String(r.body).trim() === 'ok';
        },
        this.apiServer,
        timeout,
      );
    } finally {
      ready?.close();
    }
  }

  async restartApiServer(options: { readonly whileDown?: () => Promise<void> } = {}): Promise<void> {
    if (this.stopped) throw new Error('restartApiServer: the control plane is stopped');
    await this.simulator?.pause();
    await this.apiServer?.kill();
    try {
      await options.whileDown?.();
    } finally {
      await this.startApiServer(this.options.startTimeoutMs ?? 60_000);
      this.simulator?.resume();
    }
  }

  get processes(): { name: string; pid: number | undefined }[] {
    return [this.etcd, this.apiServer, this.controllerManager]
      .filter((c): c is Child => c !== undefined)
      .map((c) => ({ name: c.name, pid: c.process.pid }));
  }

  private adminClient(): AdminClient {
    this.admin ??= new AdminClient({ url: this.url, token: this.token, ca: this.ca });
    return this.admin;
  }

  private writeKubeconfig(): void {
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'rxkube-control-plane',
          cluster: {
            server: this.url,
            'certificate-authority-data': Buffer.from(this.ca).toString('base64'),
          },
        },
      ],
      users: [{ name: ADMIN, user: { token: this.token } }],
      contexts: [
        {
          name: 'rxkube-control-plane',
          context: { cluster: 'rxkube-control-plane', user: ADMIN, namespace: 'default' },
        },
      ],
      'current-context': 'rxkube-control-plane',
    };
    writeFileSync(this.kubeconfigPath, toYaml(doc), { mode: 0o600 });
    this.kubeConfig = new KubeConfig();
    this.kubeConfig.loadFromFile(this.kubeconfigPath);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.simulator?.stop();
    this.admin?.close();
    // SIGKILL: the state is thrown away, and a graceful kube-apiserver keeps watches open for 60 s
    await this.controllerManager?.kill();
    await this.apiServer?.kill();
    await this.etcd?.kill();
    rmSync(this.dir, { recursive: true, force: true });
    if (this.etcdDir !== undefined) rmSync(this.etcdDir, { recursive: true, force: true });
  }
}

function csvLine(token: string, user: ControlPlaneUser): string {
  const groups = user.groups ?? [];
  const uid = user.uid ?? `${user.name}-uid`;
  return [token, user.name, uid, ...(groups.length > 0 ? [`"${groups.join(',')}"`] : [])].join(',');
}
