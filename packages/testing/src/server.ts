/**
 * `startApiServer()`: an in-memory Kubernetes API server speaking the real HTTP wire protocol, with
 * a kubeconfig pointing at it, fault injection and direct state helpers for tests.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { KubeConfig } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';

import type { ServiceResolver } from './admission/webhooks.js';
import type { AuditEvent } from './audit.js';
import { AuditLog } from './audit.js';
import type { AuthOptions, RequestUser } from './auth.js';
import { ADMIN_USER, authenticate } from './auth.js';
import { AdminClient } from './cluster/admin-client.js';
import type { TestCluster } from './cluster/cluster.js';
import { clusterReads } from './cluster/cluster.js';
import { DeploymentController } from './controllers/deployments.js';
import { Controllers } from './controllers/gc.js';
import { PvcProtectionController } from './controllers/pvc-protection.js';
import { ResourceQuotaController } from './controllers/resource-quota.js';
import { Faults } from './faults.js';
import { Engine } from './handlers/engine.js';
import type { WatchSession } from './handlers/watch.js';
import type { HandlerEnv } from './http/handlers.js';
import { handleResource } from './http/handlers.js';
import { negotiateErrorMedia } from './http/negotiate.js';
import type { Route } from './http/request.js';
import { parsePath } from './http/request.js';
import type { ResponseContext } from './http/respond.js';
import { sendJson, sendPageNotFound, sendStatus, sendText } from './http/respond.js';
import { OpenApiDocuments } from './openapi/documents.js';
import { serveOpenApi } from './openapi/handler.js';
import { requestAttributes } from './rbac/attributes.js';
import { forbiddenError } from './rbac/forbidden.js';
import { ImpersonationHeaderError, impersonate } from './rbac/impersonation.js';
import type { InstalledAuthorization } from './rbac/engine/install.js';
import { installAuthorization } from './rbac/engine/install.js';
import { limitRangerDefaults } from './admission/limit-ranger.js';
import type { AdmissionPlugin } from './rbac/engine/owner-references.js';
import { CrdController } from './registry/crds.js';
import { Registry } from './registry/registry.js';
import type { ResourceType } from './registry/types.js';
import {
  ApiError,
  failure,
  internalError,
  serviceUnavailable,
  tooManyRequests,
  unauthorized,
} from './status.js';
import type { KObj } from './store/object.js';
import { clone } from './store/object.js';
import { ObjectStore } from './store/store.js';
import { preload } from './preload.js';
import type { KindDefinition } from './registry/custom-kinds.js';
import { customKindType, KindDefinitionError } from './registry/custom-kinds.js';

/**
 * Where log lines go.
 *
 * ## Example
 * ```ts
 * const lines: string[] = [];
 * const logger: ApiServerLogger = { error: (message) => lines.push(message) };
 * const server = await startApiServer({ logger });
 * ```
 */
export interface ApiServerLogger {
  debug?(message: string): void;
  error(message: string, error?: unknown): void;
}

/**
 * Options of {@link startApiServer}; every field has a default.
 *
 * ## Example
 * ```ts
 * const options: ApiServerOptions = { tls: true, simulateDeployments: true, namespaceDeletionDelayMs: 0 };
 * const server = await startApiServer(options);
 * ```
 */
export interface ApiServerOptions {
  /** TCP port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Listen address (default 127.0.0.1). */
  readonly host?: string;
  /** Serve HTTPS with the checked-in test CA (kubeconfig carries certificate-authority-data). */
  readonly tls?: boolean;
  /**
   * Bearer tokens, and RBAC objects to create at start: with it requests are authenticated by token
   * and authorized by RBAC from the Roles and bindings stored in the server (the bootstrap policy
   * included). Without it every request is admin and allowed.
   */
  readonly auth?: AuthOptions;
  /**
   * Admission plugins to enable besides the defaults (kube-apiserver's `--enable-admission-plugins`):
   * `OwnerReferencesPermissionEnforcement`. They check permissions, so they act with `auth` only.
   */
  readonly enableAdmissionPlugins?: readonly AdmissionPlugin[];
  /**
   * Where the admission webhooks' `clientConfig.service` references are reached (default:
   * `https://127.0.0.1:<service port>`, verifying the name `<name>.<namespace>.svc`). Webhooks
   * registered in ValidatingWebhookConfigurations and MutatingWebhookConfigurations are called on
   * every matching write, as kube-apiserver calls them.
   */
  readonly resolveService?: ServiceResolver;
  /**
   * Keep an audit log (kube-apiserver's at level Metadata: user, verb, object, code, authorization
   * decision and reason), read with {@link ApiServer.auditEvents}; at most `maxEvents` (default
   * 100,000), the oldest dropped first. Off by default.
   */
  readonly audit?: { readonly maxEvents?: number };
  /** Garbage collection of ownerReferences (default true). */
  readonly gc?: boolean;
  /** Namespace existence/termination checks and the namespace controller (default true). */
  readonly namespaceLifecycle?: boolean;
  /**
   * How long a deleted namespace stays Terminating before its content is removed (default 200 ms;
   * the real namespace controller takes seconds). 0 removes it on the next tick.
   */
  readonly namespaceDeletionDelayMs?: number;
  /**
   * Simulate the Deployment controller (default false): after a Deployment is created or changed,
   * its status is written as a real cluster shows it once the rollout finished and every pod is
   * ready (`observedGeneration`, `replicas`, `updatedReplicas`, `readyReplicas`,
   * `availableReplicas`, `Available` and `Progressing` conditions), through the status path as
   * `kube-controller-manager`. Off: Deployment status never moves (there are no pods).
   */
  readonly simulateDeployments?: boolean;
  /**
   * Serve streaming lists (WatchList, KEP-3157) as Kubernetes 1.34 does, its feature gate on by
   * default (default true): `sendInitialEvents` with `resourceVersionMatch=NotOlderThan`, the
   * initial events, then the bookmark annotated `k8s.io/initial-events-end`. `false`: as
   * Kubernetes 1.24, which refuses `resourceVersionMatch` on a watch (422) and ignores
   * `sendInitialEvents`. See fixtures/watch-list/README.md.
   */
  readonly watchList?: boolean;
  /** Events kept for watch resume and historical reads (default 10,000). */
  readonly watchHistory?: number;
  /** BOOKMARK period on watches with allowWatchBookmarks (default 60,000 ms). */
  readonly bookmarkIntervalMs?: number;
  /** Periodic compaction interval: continue tokens older than this get 410 (default 300,000 ms). */
  readonly continueTokenTtlMs?: number;
  /** Live events queued per slow watch before it is closed (default 10,000). */
  readonly maxQueuedWatchEvents?: number;
  /** Request body limit (default 3 MiB, like kube-apiserver). */
  readonly maxBodyBytes?: number;
  /** Where to write the kubeconfig (default: a new temp directory). */
  readonly kubeconfigPath?: string;
  /** Logger (default: errors to console.error). */
  readonly logger?: ApiServerLogger;
  /**
   * Kinds to serve besides the built-in ones and CRDs (a built-in the server does not emulate, or
   * any type a test needs), with their schema and subresources; see {@link KindDefinition}. A
   * definition that cannot be served fails the start with a `KindDefinitionError`.
   */
  readonly kinds?: readonly KindDefinition[];
  /** CustomResourceDefinitions created at start; the start waits until each is served. */
  readonly crds?: readonly KObj[];
  /**
   * Objects created at start, after `crds` (Namespaces first), as `kubectl create` would; the first
   * refusal fails the start with a `PreloadError` naming the object.
   */
  readonly objects?: readonly KObj[];
}

/**
 * A running API server. It is a {@link TestCluster} like a real control plane (`url`, kubeconfig,
 * token, `list`/`get` over HTTP, `stop`), plus what only an in-memory server can offer: fault
 * injection, synchronous reads of its state, restarts.
 *
 * ## Example
 * ```ts
 * const server: ApiServer = await startApiServer();
 * process.env['KUBECONFIG'] = server.kubeconfigPath; // kubectl and client-node find it
 * server.faults.dropWatches();
 * console.log(server.objects('configmaps', 'default').length, server.resourceVersion);
 * await server.stop();
 * ```
 */
export interface ApiServer extends TestCluster {
  /** `http://127.0.0.1:PORT` (or https). */
  readonly url: string;
  readonly port: number;
  /** Path of the kubeconfig file pointing at this server. */
  readonly kubeconfigPath: string;
  /** A `@kubernetes/client-node` KubeConfig loaded from {@link kubeconfigPath}. */
  readonly kubeConfig: KubeConfig;
  /** The admin bearer token written into the kubeconfig. */
  readonly token: string;
  /** Fault injection. */
  readonly faults: Faults;
  /** The current global resourceVersion. */
  readonly resourceVersion: number;
  /** Number of open watch streams. */
  readonly openWatches: number;
  /**
   * Objects of a resource as stored (wire form, resource given as `configmaps`,
   * `deployments.apps` or `widgets.example.com`), optionally in one namespace, in key order.
   */
  objects(resource: string, namespace?: string): KObj[];
  /** One object, or undefined. */
  object(resource: string, namespace: string | undefined, name: string): KObj | undefined;
  /** The audit log so far, oldest first (empty unless started with `audit`). */
  auditEvents(): AuditEvent[];
  /** Drops all connections and listens again on the same port; state kept, history compacted. */
  restart(): Promise<void>;
  /** Stops the server and removes the temporary kubeconfig. */
  stop(): Promise<void>;
}

const PKG_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Reads the checked-in test CA, server certificate and key (PEM) that `startApiServer({ tls: true })`
 * serves with — not secret, for tests only.
 *
 * ## Example
 * ```ts
 * import * as https from 'node:https';
 * const server = await startApiServer({ tls: true });
 * const res = await new Promise((resolve) =>
 *   https.get(`${server.url}/version`, { ca: testCertificates().ca }, resolve),
 * );
 * ```
 */
export function testCertificates(): { ca: string; cert: string; key: string } {
  const dir = join(PKG_ROOT, 'certs');
  return {
    ca: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    cert: readFileSync(join(dir, 'server.crt'), 'utf8'),
    key: readFileSync(join(dir, 'server.key'), 'utf8'),
  };
}

const VERSION_INFO = {
  major: '1',
  minor: '24',
  gitVersion: 'v1.24.0+rxkube',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2022-05-03T13:36:49Z',
  goVersion: 'go1.18.1',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const HEALTH_CHECKS = {
  healthz: [
    'ping',
    'log',
    'etcd',
    'poststarthook/start-apiextensions-controllers',
    'poststarthook/crd-informer-synced',
  ],
  livez: [
    'ping',
    'log',
    'etcd',
    'poststarthook/start-apiextensions-controllers',
    'poststarthook/crd-informer-synced',
  ],
  readyz: [
    'ping',
    'log',
    'etcd',
    'informer-sync',
    'poststarthook/start-apiextensions-controllers',
    'poststarthook/crd-informer-synced',
  ],
} as const;

/**
 * Starts an in-memory Kubernetes API server.
 *
 * ## Example
 * ```ts
 * import { CoreV1Api } from '@kubernetes/client-node';
 * const server = await startApiServer();
 * const api = server.kubeConfig.makeApiClient(CoreV1Api);
 * await api.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'a' } } });
 * await server.stop();
 * ```
 */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const s = new ApiServerImpl(options);
  try {
    await s.preload(options.crds ?? [], options.objects ?? []);
  } catch (e) {
    await s.stop();
    throw e;
  }
  await s.listen(options.port ?? 0);
  s.writeKubeconfig();
  return s;
}

class ApiServerImpl implements ApiServer {
  readonly store: ObjectStore;
  readonly registry = new Registry();
  private readonly openapi = new OpenApiDocuments(this.registry);
  readonly engine: Engine;
  readonly faults: Faults;
  readonly token: string;
  kubeconfigPath = '';
  kubeConfig = new KubeConfig();
  port = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Set<WatchSession>();
  private readonly controllers: Controllers;
  private readonly deployments: DeploymentController | undefined;
  private readonly pvcProtection: PvcProtectionController;
  private readonly resourceQuota: ResourceQuotaController;
  private readonly crds: CrdController;
  private readonly authorization: InstalledAuthorization;
  private readonly auditLog: AuditLog | undefined;
  private readonly env: HandlerEnv;
  private readonly logger: ApiServerLogger;
  private readonly host: string;
  private readonly tls: { ca: string; cert: string; key: string } | undefined;
  private readonly pfHeaders = {
    'X-Kubernetes-Pf-Flowschema-Uid': randomUUID(),
    'X-Kubernetes-Pf-Prioritylevel-Uid': randomUUID(),
  };
  private tempDir: string | undefined;
  private compactionTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private admin: AdminClient | undefined;
  private httpReads: Pick<TestCluster, 'list' | 'get'> | undefined;

  constructor(private readonly options: ApiServerOptions) {
    this.logger = options.logger ?? { error: (m, e) => console.error(`[rxkube-apiserver] ${m}`, e ?? '') };
    this.host = options.host ?? '127.0.0.1';
    this.tls = options.tls ? testCertificates() : undefined;
    this.auditLog = options.audit ? new AuditLog(options.audit.maxEvents ?? 100_000) : undefined;
    this.store = new ObjectStore(options.watchHistory ?? 10_000);
    const namespaceLifecycle = options.namespaceLifecycle ?? true;
    const gc = options.gc ?? true;
    this.engine = new Engine(this.store, {
      namespaceLifecycle,
      now: () => Date.now(),
      continueTokenTtlMs: options.continueTokenTtlMs ?? 300_000,
    });
    const log = (m: string, e: unknown): void => this.logger.error(m, e);
    this.crds = new CrdController(this.engine, this.registry, log);
    // a CRD deleted or changed tears down its storage, which ends the watches on its resources
    this.crds.onStorageReplaced = (crd) => {
      for (const w of [...this.watches]) if (w.crd === crd) w.endAfterQueued();
    };
    this.controllers = new Controllers(
      this.engine,
      this.registry,
      { gc, namespaceLifecycle, namespaceDeletionDelayMs: options.namespaceDeletionDelayMs ?? 200 },
      log,
    );
    this.pvcProtection = new PvcProtectionController(this.engine, this.registry, log);
    this.deployments = options.simulateDeployments
      ? new DeploymentController(this.engine, this.registry, log)
      : undefined;
    this.faults = new Faults({
      dropWatches: () => {
        const all = [...this.watches];
        for (const w of all) w.drop();
        return all.length;
      },
      stallWatches: () => [...this.watches].filter((w) => w.stall()).length,
      cutWatches: () => [...this.watches].filter((w) => w.cutNext()).length,
      pendingCuts: () => [...this.watches].filter((w) => w.cutArmed).length,
      expireWatches: () => [...this.watches].filter((w) => w.expire()).length,
      malformWatches: () =>
        [...this.watches].filter((w) => {
          w.onMalformedLine = () => {
            this.faults.counts.malformedLines++;
          };
          return w.sendMalformedLine();
        }).length,
      compact: () => {
        const before = this.store.compactedRevision;
        const revision = this.store.compact();
        return { revision, advanced: revision > before };
      },
      restart: () => this.restart(),
    });
    const admin = options.auth
      ? Object.entries(options.auth.tokens).find(
          ([, u]) => typeof u !== 'string' && (u.groups ?? []).includes('system:masters'),
        )?.[0]
      : undefined;
    this.token = admin ?? 'rxkube-testing-admin';
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) this.seedNamespace(ns);
    this.authorization = installAuthorization(
      this.engine,
      this.registry,
      {
        rbac: options.auth !== undefined,
        ...(options.enableAdmissionPlugins !== undefined
          ? { admissionPlugins: options.enableAdmissionPlugins }
          : {}),
      },
      log,
    );
    // LimitRanger (on by default in kube-apiserver): mutating admission, before the registry's checks
    const limitRanger = limitRangerDefaults(this.engine.store);
    // ResourceQuota (on by default): the last validating admission plugin, and the quota controller
    this.resourceQuota = new ResourceQuotaController(this.engine, this.registry, log);
    const registryChecks = this.engine.hooks;
    this.engine.hooks = {
      ...registryChecks,
      beforeValidate: (w) => {
        limitRanger(w);
        registryChecks.beforeValidate?.(w);
      },
      admit: (w) => {
        registryChecks.admit?.(w);
        this.resourceQuota.admit(w);
      },
    };
    this.env = {
      engine: this.engine,
      registry: this.registry,
      authorizer: this.authorization.authorizer,
      gc,
      maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
      maxQueuedWatchEvents: options.maxQueuedWatchEvents ?? 10_000,
      watchList: options.watchList ?? true,
      watches: this.watches,
      takeWatchExpiry: () => this.faults.takeWatchExpiry(),
      onStreamCut: () => {
        this.faults.counts.streamsCut++;
      },
      ...(options.resolveService !== undefined ? { resolveService: options.resolveService } : {}),
    };
    (options.kinds ?? []).forEach((def, i) => {
      const t = customKindType(def, i);
      if (
        this.registry.lookup(t.group, t.version, t.resource) ||
        this.registry.byKind(t.apiVersion, t.kind)
      ) {
        throw new KindDefinitionError(
          `kinds[${String(i)}] (${t.kind}): ${t.resource}.${t.group || 'core'}/${t.version} is already served; remove it from kinds`,
        );
      }
      this.registry.add(t);
    });
    this.store.compact();
    const ttl = options.continueTokenTtlMs ?? 300_000;
    let mark = this.store.resourceVersion;
    this.compactionTimer = setInterval(() => {
      this.store.compact(mark);
      mark = this.store.resourceVersion;
    }, ttl);
    this.compactionTimer.unref();
  }

  /** Creates the start-up CRDs and objects (`preload.ts`). */
  async preload(crds: readonly KObj[], objects: readonly KObj[]): Promise<void> {
    if (crds.length === 0 && objects.length === 0) return;
    await preload(this.engine, this.registry, crds, objects);
  }

  private seedNamespace(name: string): void {
    const t = this.nsType();
    this.engine.create(
      t,
      undefined,
      { kind: 'Namespace', apiVersion: 'v1', metadata: { name } },
      { manager: 'kube-apiserver' },
    );
  }

  private nsType(): ResourceType {
    const t = this.registry.lookup('', 'v1', 'namespaces');
    if (!t) throw new Error('namespaces type missing');
    return t;
  }

  get url(): string {
    return `${this.tls ? 'https' : 'http'}://${this.host}:${String(this.port)}`;
  }

  get resourceVersion(): number {
    return this.store.resourceVersion;
  }

  get openWatches(): number {
    return this.watches.size;
  }

  async listen(port: number): Promise<void> {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((e: unknown) => {
        this.logger.error('unhandled request failure', e);
        if (!res.headersSent) sendStatus(res, internalError('internal error'), { headers: {} });
        else res.destroy();
      });
    };
    const server = this.tls
      ? createHttpsServer({ cert: this.tls.cert, key: this.tls.key }, handler)
      : createHttpServer(handler);
    server.keepAliveTimeout = 60_000;
    server.on(this.tls ? 'secureConnection' : 'connection', (sock: Socket) => {
      this.sockets.add(sock);
      sock.on('close', () => this.sockets.delete(sock));
    });
    server.on('clientError', (_err, sock) => {
      if (!sock.destroyed) sock.destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : port;
    this.server = server;
  }

  writeKubeconfig(): void {
    if (!this.options.kubeconfigPath) this.tempDir = mkdtempSync(join(tmpdir(), 'rxkube-apiserver-'));
    this.kubeconfigPath = this.options.kubeconfigPath ?? join(this.tempDir ?? tmpdir(), 'kubeconfig');
    const cluster: Record<string, string> = { server: this.url };
    if (this.tls) cluster['certificate-authority-data'] = Buffer.from(this.tls.ca).toString('base64');
    // plain HTTP: client-node refuses http:// unless TLS verification is marked off (nothing to verify)
    const clusterEntry: Record<string, unknown> = this.tls
      ? cluster
      : { ...cluster, 'insecure-skip-tls-verify': true };
    const doc = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'rxkube-testing', cluster: clusterEntry }],
      users: [{ name: 'rxkube-testing', user: { token: this.token } }],
      contexts: [
        {
          name: 'rxkube-testing',
          context: { cluster: 'rxkube-testing', user: 'rxkube-testing', namespace: 'default' },
        },
      ],
      'current-context': 'rxkube-testing',
    };
    writeFileSync(this.kubeconfigPath, toYaml(doc), { mode: 0o600 });
    const kc = new KubeConfig();
    kc.loadFromFile(this.kubeconfigPath);
    this.kubeConfig = kc;
  }

  private apiHeaders(user: RequestUser | undefined): Record<string, string> {
    const h: Record<string, string> = { 'Audit-Id': randomUUID() };
    if (user && !user.anonymous) Object.assign(h, this.pfHeaders);
    return h;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const pathWithQuery = url.pathname + url.search;
    const delay = this.faults.takeDelay(method, pathWithQuery);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (await this.faults.takeStall(method, pathWithQuery, res)) return;
    if (res.destroyed) return;
    let user: RequestUser | undefined = ADMIN_USER;
    if (this.options.auth) user = authenticate(this.options.auth, req.headers.authorization);
    const ctx: ResponseContext = { headers: this.apiHeaders(user) };
    const audit = this.auditLog?.begin(ctx.headers['Audit-Id'] ?? randomUUID(), req, res);
    if (user) audit?.authenticated(user);
    // errors are written in the encoding the client accepts (responsewriters.ErrorNegotiated)
    const errorMedia = negotiateErrorMedia(req.headers.accept);
    const injected = this.faults.takeFailure(method, pathWithQuery);
    if (injected) {
      req.resume();
      const retry = injected.retryAfterSeconds ?? 1;
      if (injected.status === 429)
        sendStatus(res, tooManyRequests(retry), ctx, { 'Retry-After': String(retry) }, errorMedia);
      else if (injected.status === 503)
        sendStatus(res, serviceUnavailable(), ctx, { 'Retry-After': String(retry) }, errorMedia);
      else sendStatus(res, internalError('Internal error occurred: injected fault'), ctx, {}, errorMedia);
      return;
    }
    const route = parsePath(url.pathname);
    try {
      if (!user) {
        req.resume();
        sendStatus(res, unauthorized(), { headers: { 'Audit-Id': randomUUID() } }, {}, errorMedia);
        return;
      }
      // the filter chain of kube-apiserver: impersonation, then authorization, then routing
      const { authorizer } = this.authorization;
      try {
        const acting = impersonate(req, user, authorizer);
        if (acting !== user) audit?.impersonated(acting);
        user = acting;
      } catch (e) {
        if (!(e instanceof ImpersonationHeaderError)) throw e;
        req.resume();
        sendText(res, 500, `${e.message}\n`, ctx);
        return;
      }
      const attributes = requestAttributes(user, method, url.pathname, url.searchParams);
      const decision = authorizer.authorize(attributes);
      audit?.authorized(attributes, decision);
      if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
      await this.dispatch(req, res, route, url.searchParams, user, ctx);
    } catch (e) {
      if (e instanceof ApiError) {
        req.resume();
        sendStatus(res, e.status, ctx, e.headers, errorMedia);
        return;
      }
      this.logger.error(`${method} ${pathWithQuery} failed`, e);
      req.resume();
      sendStatus(
        res,
        internalError(`Internal error occurred: ${e instanceof Error ? e.message : String(e)}`),
        ctx,
        {},
        errorMedia,
      );
    }
  }

  private async dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    query: URLSearchParams,
    user: RequestUser,
    ctx: ResponseContext,
  ): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    if (route.kind !== 'resource' && method !== 'GET' && method !== 'HEAD') {
      if (route.kind === 'unknown') sendPageNotFound(res, ctx);
      else
        throw new ApiError(
          failure(
            405,
            'MethodNotAllowed',
            'the server does not allow this method on the requested resource',
            {},
          ),
        );
      return;
    }
    switch (route.kind) {
      case 'version':
        sendJson(res, 200, VERSION_INFO, ctx);
        return;
      case 'health': {
        const checks: readonly string[] = HEALTH_CHECKS[route.endpoint];
        if (route.check !== undefined) {
          if (!checks.includes(route.check)) sendPageNotFound(res, ctx);
          else sendText(res, 200, 'ok', ctx);
          return;
        }
        if (query.has('verbose')) {
          sendText(
            res,
            200,
            checks.map((c) => `[+]${c} ok`).join('\n') + `\n${route.endpoint} check passed\n`,
            ctx,
          );
        } else sendText(res, 200, 'ok', ctx);
        return;
      }
      case 'api':
        sendJson(res, 200, this.registry.apiVersions(`${this.host}:${String(this.port)}`), ctx);
        return;
      case 'apis':
        sendJson(res, 200, this.registry.apiGroupList(), ctx);
        return;
      case 'group': {
        const g = this.registry.apiGroup(route.group);
        if (g) sendJson(res, 200, g, ctx);
        else sendPageNotFound(res, ctx);
        return;
      }
      case 'groupVersion': {
        const doc = this.registry.apiResourceList(route.group, route.version);
        if (doc) sendJson(res, 200, doc, ctx);
        else sendPageNotFound(res, ctx);
        return;
      }
      case 'openapi':
        serveOpenApi(this.openapi, { path: route.path, accept: req.headers.accept, query, res, ctx });
        return;
      case 'resource':
        await handleResource(this.env, { req, res, route, query, user, ctx });
        return;
      case 'unknown':
        sendPageNotFound(res, ctx);
        return;
    }
  }

  private resolve(resource: string): ResourceType | undefined {
    const dot = resource.indexOf('.');
    const plural = dot < 0 ? resource : resource.slice(0, dot);
    const group = dot < 0 ? '' : resource.slice(dot + 1);
    return this.registry.all().find((t) => t.resource === plural && t.group === group);
  }

  auditEvents(): AuditEvent[] {
    return this.auditLog?.events() ?? [];
  }

  objects(resource: string, namespace?: string): KObj[] {
    const t = this.resolve(resource);
    if (!t)
      throw new RangeError(
        `objects: unknown resource "${resource}"; use e.g. "configmaps", "deployments.apps" or "widgets.example.com"`,
      );
    const prefix = namespace !== undefined && t.namespaced ? `${namespace}/` : '';
    const out: KObj[] = [];
    for (const k of this.store.sortedKeys(t.storageKey)) {
      if (prefix && !k.startsWith(prefix)) continue;
      const o = this.store.get(t.storageKey, k);
      if (o) out.push(clone(this.engine.present(t, o)));
    }
    return out;
  }

  object(resource: string, namespace: string | undefined, name: string): KObj | undefined {
    const t = this.resolve(resource);
    if (!t)
      throw new RangeError(
        `object: unknown resource "${resource}"; use e.g. "configmaps", "deployments.apps" or "widgets.example.com"`,
      );
    const o = this.store.get(t.storageKey, this.engine.keyOf(t, namespace, name));
    return o ? clone(this.engine.present(t, o)) : undefined;
  }

  private async closeServer(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const w of [...this.watches]) w.drop();
    for (const sock of this.sockets) sock.destroy();
    this.sockets.clear();
    if (server) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  async restart(): Promise<void> {
    if (this.stopped) throw new Error('restart: the server was stopped');
    await this.closeServer();
    this.store.compact();
    this.faults.counts.restarts++;
    await this.listen(this.port);
  }

  /** Reads over HTTP as the admin, like a real control plane's (see {@link TestCluster.list}). */
  list(resource: string, namespace?: string): Promise<KObj[]> {
    return this.reads().list(resource, namespace);
  }

  get(resource: string, namespace: string | undefined, name: string): Promise<KObj | undefined> {
    return this.reads().get(resource, namespace, name);
  }

  private reads(): Pick<TestCluster, 'list' | 'get'> {
    if (this.httpReads === undefined) {
      this.admin = new AdminClient({
        url: this.url,
        token: this.token,
        ...(this.tls !== undefined ? { ca: this.tls.ca } : {}),
      });
      this.httpReads = clusterReads(this.admin);
    }
    return this.httpReads;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.admin?.close();
    if (this.compactionTimer) clearInterval(this.compactionTimer);
    this.controllers.stop();
    this.authorization.stop();
    this.deployments?.stop();
    this.pvcProtection.stop();
    this.resourceQuota.stop();
    this.crds.stop();
    await this.closeServer();
    if (this.tempDir) rmSync(this.tempDir, { recursive: true, force: true });
  }
}
