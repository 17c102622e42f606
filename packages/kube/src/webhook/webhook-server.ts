/**
 * The webhook server: admission (`admission.k8s.io/v1` AdmissionReview) and conversion
 * (`apiextensions.k8s.io/v1` ConversionReview) handlers served over HTTPS, in-process.
 *
 * ## Paths (controller-runtime's)
 * - `/validate-<group with . as ->-<version>-<kind lowercased>`: {@link WebhookServer.validate}
 *   (`/validate--v1-configmap` for the core group).
 * - `/mutate-…` likewise: {@link WebhookServer.mutate}.
 * - `/convert`: every {@link WebhookServer.convert} registration, dispatched by group and kind.
 *
 * ## Failure kinds
 * - A handler that throws: denied with code 500 and the error's message (the API server then
 *   answers the write with it); logged with the webhook's path. Never a crash.
 * - A handler past its deadline (`timeoutMs`, below the configuration's `timeoutSeconds` so the
 *   API server hears a clear answer instead of its own timeout): denied with code 504 naming the
 *   deadline; its AbortSignal is aborted.
 * - A body that is not an AdmissionReview/ConversionReview: HTTP 400 naming what is wrong.
 * - A conversion function that throws: `result.status: Failure` with its message.
 *
 * ## Guarantees
 * - TLS only; the certificate files are re-read when they change, new connections use the new
 *   pair, and a broken pair keeps the old one (logged).
 * - `stop()` refuses new connections, lets requests in flight answer, then closes the sockets.
 * - Metrics: `controller_runtime_webhook_requests_total{webhook,code}`,
 *   `controller_runtime_webhook_requests_in_flight{webhook}`,
 *   `controller_runtime_webhook_latency_seconds{webhook}`.
 * - Object contents are never logged (they may hold Secret data).
 *
 * @module
 */
import type { FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { dirname } from 'node:path';

import type { Draft } from 'immer';
import { Immer } from 'immer';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { SchedulerLike, Subscription } from 'rxjs';
import { asyncScheduler, defer, firstValueFrom } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type { WebhookTracing } from '../controller/tracing.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import type { KubeObject, ResourceType } from '../types.js';
import type { WebhookCertificates } from './certificates.js';
import type { EnsureCertificatesOptions } from './ensure-certificates.js';
import { withDeadline } from './internal/deadline.js';
import { certificateRenewals } from './internal/renewal.js';
import { WebhookMetrics } from './internal/metrics.js';
import { createJsonPatch } from './json-patch.js';
import type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionVerdict,
  ConversionReview,
} from './types.js';

// Builtins through process.getBuiltinModule, not ESM imports: an ES namespace of node:fs, https or
// tls runs their lazy getters, paid by every importer of the root entry (the Manager imports this)
const { watch: watchFs } = process.getBuiltinModule('node:fs');
const { createServer } = process.getBuiltinModule('node:https');
const { createSecureContext } = process.getBuiltinModule('node:tls');

const OPERATOR = 'WebhookServer';
/**
 * Drafts of request objects nobody else holds: freezing the result would only cost time.
 */
const drafts = new Immer({ autoFreeze: false });
/**
 * controller-runtime's webhook port.
 *
 * ## Example
 * ```ts
 * import { DEFAULT_WEBHOOK_PORT } from '@rxkube/kube/webhook';
 * const port = Number(process.env['WEBHOOK_PORT'] ?? DEFAULT_WEBHOOK_PORT);
 * ```
 */
export const DEFAULT_WEBHOOK_PORT = 9443;
/**
 * Below the webhook configurations' default `timeoutSeconds` (10).
 *
 * ## Example
 * ```ts
 * import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '@rxkube/kube/webhook';
 * const timeoutSeconds = Math.ceil(DEFAULT_WEBHOOK_TIMEOUT_MS / 1000) + 1; // 10, the configurations' default
 * ```
 */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 9000;
const MAX_BODY_BYTES = 3 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_RENEWAL_RETRY_MS = 60_000;
const DRAIN_MS = 10_000;

/**
 * Where the serving certificate comes from.
 *
 * ## Example
 * ```ts
 * import type { WebhookTls } from '@rxkube/kube/webhook';
 * const tls: WebhookTls = { certFile: '/certs/tls.crt', keyFile: '/certs/tls.key' };
 * ```
 */
export type WebhookTls =
  /**
   * PEM files (cert-manager's Secret mounted), re-read when they change.
   */
  | { readonly certFile: string; readonly keyFile: string }
  /**
   * PEM strings (generated, see `generateWebhookCertificates`).
   */
  | { readonly cert: string; readonly key: string }
  /**
   * Self-managed: a CA kept in a Secret, the serving certificate issued from it at start and
   * renewed before it expires while the server runs (`ensureWebhookCertificates` on the server's
   * scheduler), swapped in without a restart; the CA bundle injected where `inject` says. Needs
   * `client` (the Manager passes its own).
   */
  | { readonly selfManaged: SelfManagedCertificates };

/**
 * Self-managed certificates: {@link EnsureCertificatesOptions} and how soon a failed renewal is
 * tried again.
 *
 * ## Example
 * ```ts
 * import type { SelfManagedCertificates } from '@rxkube/kube/webhook';
 * const certificates: SelfManagedCertificates = {
 *   secret: { namespace: 'widget-system', name: 'widget-webhook-certs' },
 *   hosts: ['widget-webhook.widget-system.svc'],
 *   inject: { validating: ['widget'], mutating: ['widget'] },
 * };
 * ```
 */
export interface SelfManagedCertificates extends Omit<EnsureCertificatesOptions, 'now'> {
  /** After a failed renewal (a 403, the API server away), try again after this long (ms, default 60000). */
  readonly retryMs?: number;
}

/**
 * What a webhook server serves, as plain data: its registrations, its port, and where its
 * self-managed certificates live — what `rxkube rbac` turns into manifests and RBAC.
 *
 * ## Example
 * ```ts
 * import type { WebhookDescription, WebhookServer } from '@rxkube/kube/webhook';
 * declare const server: WebhookServer;
 * const d: WebhookDescription = server.describe();
 * console.log(d.listenPort, d.admissionWebhooks.length, d.certificates?.secret.name);
 * ```
 */
export interface WebhookDescription {
  readonly admissionWebhooks: readonly AdmissionRegistration[];
  readonly conversionWebhooks: readonly ConversionRegistration[];
  /** The configured port (default 9443; 0 when a free one is picked). */
  readonly listenPort: number;
  /** The self-managed certificates' Secret and injection targets, when `tls.selfManaged`. */
  readonly certificates?: Pick<SelfManagedCertificates, 'secret' | 'inject'>;
}

/**
 * Options of {@link WebhookServer}.
 *
 * ## Example
 * ```ts
 * import type { WebhookServerOptions } from '@rxkube/kube/webhook';
 * const options: WebhookServerOptions = {
 *   port: 9443,
 *   tls: { certFile: '/tmp/k8s-webhook-server/serving-certs/tls.crt', keyFile: '/tmp/k8s-webhook-server/serving-certs/tls.key' },
 * };
 * ```
 */
export interface WebhookServerOptions {
  /**
   * Port (default 9443; 0 picks a free one).
   */
  readonly port?: number;
  /**
   * Bind address (default `0.0.0.0`: the API server reaches it through a Service).
   */
  readonly host?: string;
  readonly tls: WebhookTls;
  /**
   * Logger (the Manager passes its own).
   */
  readonly log?: Logger;
  /**
   * Metrics registry (the Manager passes its own); without it no metrics.
   */
  readonly registry?: Registry;
  /**
   * Default deadline of a handler (ms), default 9000.
   */
  readonly timeoutMs?: number;
  /**
   * Handler deadlines and the certificate renewal timer run on it (the Manager passes its own).
   */
  readonly scheduler?: SchedulerLike;
  /**
   * The client of `tls.selfManaged` (the Manager passes its own).
   */
  readonly client?: KubeClient;

  /**
   * Traces each request in a SERVER span continuing the API server's `traceparent` header, the
   * handler running in its context (`webhookTracing(tracer)` from `@rxkube/kube/trace`). Default: off.
   */
  readonly tracing?: WebhookTracing;
}

/**
 * Options of one admission registration.
 *
 * ## Example
 * ```ts
 * import type { AdmissionHandlerOptions } from '@rxkube/kube/webhook';
 * const options: AdmissionHandlerOptions = { timeoutMs: 4000 }; // timeoutSeconds: 5 in the configuration
 * ```
 */
export interface AdmissionHandlerOptions {
  /**
   * The handler's deadline in ms (default the server's); keep it below the configuration's `timeoutSeconds`.
   */
  readonly timeoutMs?: number;
  /**
   * The path (default controller-runtime's `/validate-…`/`/mutate-…`).
   */
  readonly path?: string;
}

/**
 * A validating handler: decides on a request; may be async; gets an AbortSignal aborted at its deadline.
 *
 * ## Example
 * ```ts
 * import { allowed, denied, type ValidateHandler } from '@rxkube/kube/webhook';
 * import type { KubeObject } from '@rxkube/kube';
 * const noDelete: ValidateHandler<KubeObject> = (req) =>
 *   req.operation === 'DELETE' ? denied('protected') : allowed();
 * ```
 */
export type ValidateHandler<T extends KubeObject> = (
  request: AdmissionRequest<T>,
  signal: AbortSignal,
) => AdmissionVerdict | Promise<AdmissionVerdict>;

/**
 * A mutating handler: an immer recipe changing the draft of the object; rxkube answers with the
 * RFC 6902 patch from the request's object to the result.
 *
 * ## Example
 * ```ts
 * import type { MutateRecipe } from '@rxkube/kube/webhook';
 * import type { KubeObject } from '@rxkube/kube';
 * const label: MutateRecipe<KubeObject> = (draft) => {
 *   draft.metadata.labels = { ...draft.metadata.labels, team: 'a' };
 * };
 * ```
 */
export type MutateRecipe<T extends KubeObject> = (
  draft: Draft<T>,
  request: AdmissionRequest<T>,
  signal: AbortSignal,
) => void | T | Promise<void | T>;

/**
 * Conversions of one kind between its versions, hub and spoke (controller-runtime's `conversion.Hub`):
 * every spoke converts to and from the hub; spoke to spoke goes through the hub. Functions are pure:
 * they get a copy and return the converted object (apiVersion and metadata are set by rxkube).
 *
 * ## Example
 * ```ts
 * import type { Conversion } from '@rxkube/kube/webhook';
 * const widgetConversion: Conversion = {
 *   hub: 'v2',
 *   spokes: {
 *     v1: {
 *       toHub: (o) => ({ ...o, spec: { replicas: (o.spec as { size: number }).size } }),
 *       fromHub: (o) => ({ ...o, spec: { size: (o.spec as { replicas: number }).replicas } }),
 *     },
 *   },
 * };
 * ```
 */
export interface Conversion {
  /**
   * The hub version (often the storage version).
   */
  readonly hub: string;
  readonly spokes: Readonly<
    Record<
      string,
      { readonly toHub: (o: KubeObject) => KubeObject; readonly fromHub: (o: KubeObject) => KubeObject }
    >
  >;
}

/**
 * One registered admission webhook, as the manifests generator needs it.
 *
 * ## Example
 * ```ts
 * import type { WebhookServer } from '@rxkube/kube/webhook';
 * declare const server: WebhookServer;
 * for (const r of server.admissionWebhooks) console.log(r.type, r.path, r.resource.kind);
 * ```
 */
export interface AdmissionRegistration {
  readonly type: 'validating' | 'mutating';
  readonly path: string;
  readonly resource: ResourceType;
  readonly timeoutMs: number;
}

/**
 * One registered conversion, as the manifests generator needs it.
 *
 * ## Example
 * ```ts
 * import type { WebhookServer } from '@rxkube/kube/webhook';
 * declare const server: WebhookServer;
 * for (const c of server.conversionWebhooks) console.log(`${c.kind}.${c.group} hub ${c.conversion.hub}`);
 * ```
 */
export interface ConversionRegistration {
  readonly path: '/convert';
  readonly group: string;
  readonly kind: string;
  readonly conversion: Conversion;
}

interface AdmissionEntry extends AdmissionRegistration {
  readonly handle: (
    request: AdmissionRequest,
    signal: AbortSignal,
  ) => Promise<Omit<AdmissionResponse, 'uid'>>;
}

/**
 * Serves admission and conversion webhooks over HTTPS. `mgr.webhooks(options)` makes one that
 * starts and stops with the Manager; a standalone one is started with {@link WebhookServer.start}.
 *
 * ## Example
 * ```ts
 * import { WebhookServer, allowed, denied, generateWebhookCertificates } from '@rxkube/kube/webhook';
 * import type { Resource } from '@rxkube/kube';
 * type Widget = Resource<{ size: number; color?: string }>;
 * const widgetType = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;
 * const certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
 * const server = new WebhookServer({ host: '127.0.0.1', port: 0, tls: certs })
 *   .validate<Widget>(widgetType, (req) => ((req.object?.spec?.size ?? 0) <= 10 ? allowed() : denied('size > 10')))
 *   .mutate<Widget>(widgetType, (draft) => {
 *     if (draft.spec !== undefined) draft.spec.color ??= 'blue';
 *   });
 * await server.start();
 * // server.url('/validate-example-com-v1-widget') goes into the ValidatingWebhookConfiguration
 * await server.stop();
 * ```
 */
export class WebhookServer {
  private readonly options: WebhookServerOptions;
  private readonly admission = new Map<string, AdmissionEntry>();
  private readonly conversions = new Map<string, ConversionRegistration>();
  private readonly scheduler: SchedulerLike;
  private readonly metrics: WebhookMetrics | undefined;
  private server: Server | undefined;
  private watcher: FSWatcher | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly inFlight = new Set<Promise<void>>();
  private boundPort: number | undefined;
  private stopping: Promise<void> | undefined;
  private reloading: Promise<void> = Promise.resolve();
  private issued: WebhookCertificates | undefined;
  private renewals: Subscription | undefined;

  /**
   * @throws {InvalidArgumentError} for a bad option.
   */
  constructor(options: WebhookServerOptions) {
    if (options === null || typeof options !== 'object') {
      throw new InvalidArgumentError(OPERATOR, 'options', options, 'must be an object with tls');
    }
    const tls = options.tls as Partial<Record<'certFile' | 'keyFile' | 'cert' | 'key', unknown>> | undefined;
    const files = typeof tls?.certFile === 'string' && typeof tls.keyFile === 'string';
    const pems = typeof tls?.cert === 'string' && typeof tls.key === 'string';
    const selfManaged = (tls as { selfManaged?: unknown } | undefined)?.selfManaged;
    if (!files && !pems && (selfManaged === null || typeof selfManaged !== 'object')) {
      throw new InvalidArgumentError(
        OPERATOR,
        'tls',
        '(not shown)',
        'must be { certFile, keyFile } (PEM files, e.g. a cert-manager Secret mounted), { cert, key } (PEM strings from generateWebhookCertificates) or { selfManaged: { secret, hosts } }',
      );
    }
    if (selfManaged !== undefined) {
      const { validForDays = 365, renewBeforeDays = 30 } = selfManaged as Partial<SelfManagedCertificates>;
      if (!(validForDays > renewBeforeDays)) {
        throw new InvalidArgumentError(
          OPERATOR,
          'tls.selfManaged.validForDays',
          validForDays,
          `must be longer than renewBeforeDays (${String(renewBeforeDays)}): a certificate due for renewal as soon as it is issued would be renewed forever`,
        );
      }
    }
    if (selfManaged !== undefined && options.client === undefined) {
      throw new InvalidArgumentError(
        OPERATOR,
        'client',
        undefined,
        "is needed with tls.selfManaged (it reads and writes the certificates Secret); mgr.webhooks(…) passes the manager's",
      );
    }
    if (options.timeoutMs !== undefined) checkTimeout('timeoutMs', options.timeoutMs);
    this.options = options;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.metrics = options.registry !== undefined ? new WebhookMetrics(options.registry) : undefined;
  }

  /**
   * Registers a validating handler for a resource type at `/validate-<group>-<version>-<kind>`.
   *
   * ## Example
   * ```ts
   * import { WebhookServer, allowed, denied } from '@rxkube/kube/webhook';
   * declare const server: WebhookServer;
   * server.validate({ apiVersion: 'v1', kind: 'ConfigMap' }, (req) =>
   *   req.object?.metadata.name?.startsWith('x-') === true ? denied('x- names are reserved') : allowed());
   * ```
   * @throws {InvalidArgumentError} for a duplicate path, a bad type or timeout, or after `start()`.
   */
  validate<T extends KubeObject>(
    type: ResourceType<T>,
    handler: ValidateHandler<T>,
    options: AdmissionHandlerOptions = {},
  ): this {
    this.checkHandler('validate', handler);
    return this.addAdmission('validating', type, options, async (request, signal) => {
      const verdict = await handler(request as AdmissionRequest<T>, signal);
      return verdictResponse(verdict);
    });
  }

  /**
   * Registers a mutating handler (an immer recipe) at `/mutate-<group>-<version>-<kind>`: the answer
   * carries the RFC 6902 JSON patch from the request's object to the recipe's result.
   *
   * ## Example
   * ```ts
   * import { WebhookServer } from '@rxkube/kube/webhook';
   * declare const server: WebhookServer;
   * server.mutate({ apiVersion: 'v1', kind: 'ConfigMap' }, (draft) => {
   *   draft.metadata.labels = { ...draft.metadata.labels, 'example.com/seen': 'true' };
   * });
   * ```
   * @throws {InvalidArgumentError} for a duplicate path, a bad type or timeout, or after `start()`.
   */
  mutate<T extends KubeObject>(
    type: ResourceType<T>,
    recipe: MutateRecipe<T>,
    options: AdmissionHandlerOptions = {},
  ): this {
    this.checkHandler('mutate', recipe);
    return this.addAdmission('mutating', type, options, async (request, signal) => {
      const object = request.object;
      if (object === undefined) return { allowed: true };
      // createDraft/finishDraft: the recipe may be async (immer's produce only takes sync recipes)
      const draft = drafts.createDraft(object as T);
      const returned = await recipe(draft, request as AdmissionRequest<T>, signal);
      const finished = drafts.finishDraft(draft) as T;
      const mutated = returned === undefined ? finished : returned;
      const patch = createJsonPatch(object, mutated);
      if (patch.length === 0) return { allowed: true };
      return {
        allowed: true,
        patchType: 'JSONPatch',
        patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
      };
    });
  }

  /**
   * Registers the conversions of a kind, served at `/convert` (the CRD's
   * `spec.conversion.webhook.clientConfig`).
   *
   * ## Example
   * ```ts
   * import { WebhookServer } from '@rxkube/kube/webhook';
   * declare const server: WebhookServer;
   * server.convert({ group: 'example.com', kind: 'Widget' }, {
   *   hub: 'v2',
   *   spokes: { v1: { toHub: (o) => o, fromHub: (o) => o } },
   * });
   * ```
   * @throws {InvalidArgumentError} for a kind registered twice, a malformed conversion, or after `start()`.
   */
  convert(kind: { readonly group: string; readonly kind: string }, conversion: Conversion): this {
    this.checkOpen('convert');
    const key = `${kind.group}/${kind.kind}`;
    if (this.conversions.has(key))
      throw new InvalidArgumentError(`${OPERATOR}.convert`, 'kind', key, 'must be registered once');
    if (
      typeof conversion?.hub !== 'string' ||
      conversion.hub === '' ||
      typeof conversion.spokes !== 'object'
    ) {
      throw new InvalidArgumentError(
        `${OPERATOR}.convert`,
        'conversion',
        conversion,
        'must be { hub: "<version>", spokes: { <version>: { toHub, fromHub } } }',
      );
    }
    for (const [version, spoke] of Object.entries(conversion.spokes)) {
      if (typeof spoke.toHub !== 'function' || typeof spoke.fromHub !== 'function') {
        throw new InvalidArgumentError(
          `${OPERATOR}.convert`,
          `spokes.${version}`,
          spoke,
          'must have toHub and fromHub functions',
        );
      }
    }
    this.conversions.set(key, { path: '/convert', group: kind.group, kind: kind.kind, conversion });
    return this;
  }

  /**
   * The admission webhooks registered, in order.
   */
  get admissionWebhooks(): readonly AdmissionRegistration[] {
    return [...this.admission.values()].map(({ type, path, resource, timeoutMs }) => ({
      type,
      path,
      resource,
      timeoutMs,
    }));
  }

  /**
   * The conversions registered, in order.
   */
  get conversionWebhooks(): readonly ConversionRegistration[] {
    return [...this.conversions.values()];
  }

  /**
   * The registrations, port and self-managed certificates as plain data (`rxkube rbac`).
   *
   * ## Example
   * ```ts
   * import { WebhookServer, webhookManifests } from '@rxkube/kube/webhook';
   * declare const server: WebhookServer;
   * const m = webhookManifests(server.describe(), { name: 'op', namespace: 'op-system' });
   * ```
   */
  describe(): WebhookDescription {
    const tls = this.options.tls;
    return {
      admissionWebhooks: this.admissionWebhooks,
      conversionWebhooks: this.conversionWebhooks,
      listenPort: this.options.port ?? DEFAULT_WEBHOOK_PORT,
      ...('selfManaged' in tls
        ? {
            certificates: {
              secret: tls.selfManaged.secret,
              ...(tls.selfManaged.inject !== undefined ? { inject: tls.selfManaged.inject } : {}),
            },
          }
        : {}),
    };
  }

  /**
   * The port listened on, once started.
   */
  get port(): number | undefined {
    return this.boundPort;
  }

  /**
   * The `https://host:port/path` URL of a path, once started (`clientConfig.url` in tests).
   *
   * ## Example
   * ```ts
   * import { WebhookServer } from '@rxkube/kube/webhook';
   * declare const server: WebhookServer;
   * const url = server.url('/convert');
   * ```
   * @throws {Error} before `start()`.
   */
  url(path: string): string {
    if (this.boundPort === undefined)
      throw new Error(`${OPERATOR}.url(${path}): the server is not started; await start() first`);
    const host =
      this.options.host === undefined || this.options.host === '0.0.0.0' ? '127.0.0.1' : this.options.host;
    return `https://${host.includes(':') ? `[${host}]` : host}:${String(this.boundPort)}${path}`;
  }

  /**
   * Listens (HTTPS) and, with certificate files, watches them for changes.
   *
   * @throws {Error} when the certificates cannot be read or the port cannot be bound.
   */
  async start(): Promise<void> {
    if (this.server !== undefined) throw new Error(`${OPERATOR}: start() called twice`);
    const tlsOption = this.options.tls;
    if ('selfManaged' in tlsOption) {
      this.issued = await this.ensureCertificates(tlsOption.selfManaged, new Date(this.scheduler.now()));
    }
    const pair = await this.readPair();
    const tracing = this.options.tracing;
    const server = createServer({ ...pair, minVersion: 'TLSv1.2' }, (req, res) =>
      this.track(
        tracing === undefined
          ? this.serve(req, res)
          : tracing(
              { method: req.method ?? '', path: (req.url ?? '/').split('?')[0] ?? '/', headers: req.headers },
              () => this.serve(req, res).then(() => res.statusCode),
            ).then(() => undefined),
      ),
    );
    this.server = server;
    server.on('secureConnection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? DEFAULT_WEBHOOK_PORT, this.options.host ?? '0.0.0.0', () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      this.server = undefined;
      throw new Error(
        `${OPERATOR}: cannot listen on ${this.options.host ?? '0.0.0.0'}:${String(this.options.port ?? DEFAULT_WEBHOOK_PORT)}: ${error instanceof Error ? error.message : String(error)} — pick a free port (0 for any)`,
        { cause: error },
      );
    });
    this.boundPort = (server.address() as AddressInfo).port;
    const tls = this.options.tls;
    if ('selfManaged' in tls && this.issued !== undefined)
      this.renewCertificates(tls.selfManaged, this.issued);
    if ('certFile' in tls) {
      // Secrets mounted as volumes swap a `..data` symlink: watch the folder, not the files
      this.watcher = watchFs(dirname(tls.certFile), () => void this.reloadCertificates());
      this.watcher.on('error', (error) =>
        this.options.log?.warn(
          { error },
          'webhook certificate watch failed; certificates are no longer reloaded',
        ),
      );
    }
    this.options.log?.info(
      {
        port: this.boundPort,
        webhooks: [...this.admission.keys()],
        conversions: [...this.conversions.keys()],
      },
      'webhook server started',
    );
  }

  /**
   * Serves a new certificate and key (PEM) from the next connection on, without a restart — after
   * `ensureWebhookCertificates` renewed them.
   *
   * ## Example
   * ```ts
   * import { WebhookServer, type WebhookCertificates } from '@rxkube/kube/webhook';
   * declare const server: WebhookServer;
   * declare const renewed: WebhookCertificates;
   * server.setCertificate({ cert: renewed.cert, key: renewed.key });
   * ```
   * @throws {Error} for a pair that does not load (the current one stays).
   */
  setCertificate(pair: { readonly cert: string; readonly key: string }): void {
    createSecureContext(pair); // throws for a mismatched or partial pair
    this.server?.setSecureContext({ ...pair, minVersion: 'TLSv1.2' });
    this.options.log?.info('webhook serving certificate replaced');
  }

  /**
   * Re-reads the certificate files now (also done when they change); a pair that does not load
   * keeps the current one, logged.
   *
   * ## Example
   * ```ts
   * import { WebhookServer } from '@rxkube/kube/webhook';
   * declare const server: WebhookServer;
   * await server.reloadCertificates();
   * ```
   */
  reloadCertificates(): Promise<void> {
    this.reloading = this.reloading.then(async () => {
      const server = this.server;
      if (server === undefined) return;
      try {
        const pair = await this.readPair();
        createSecureContext(pair); // throws for a mismatched or partial pair
        server.setSecureContext({ ...pair, minVersion: 'TLSv1.2' });
        this.options.log?.info('webhook serving certificate reloaded');
      } catch (error) {
        this.options.log?.warn(
          { error: error instanceof Error ? error.message : String(error) },
          'webhook serving certificate could not be reloaded; serving the previous one',
        );
      }
    });
    return this.reloading;
  }

  /**
   * Stops accepting connections, lets requests in flight answer (up to 10 s), closes. Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    this.watcher?.close();
    this.renewals?.unsubscribe();
    const server = this.server;
    if (server === undefined) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => (timeout = setTimeout(resolve, DRAIN_MS))),
    ]);
    clearTimeout(timeout);
    for (const s of this.sockets) s.destroy();
    await closed;
    await this.reloading;
    this.options.log?.info('webhook server stopped');
  }

  private async readPair(): Promise<{ cert: string; key: string }> {
    const tls = this.options.tls;
    if ('cert' in tls) return { cert: tls.cert, key: tls.key };
    if ('selfManaged' in tls) {
      if (this.issued === undefined) throw new Error(`${OPERATOR}: no self-managed certificate issued yet`);
      return { cert: this.issued.cert, key: this.issued.key };
    }
    const [cert, key] = await Promise.all([readFile(tls.certFile, 'utf8'), readFile(tls.keyFile, 'utf8')]);
    return { cert, key };
  }

  private async ensureCertificates(
    options: SelfManagedCertificates,
    now: Date,
  ): Promise<WebhookCertificates> {
    // loaded with the first self-managed certificate (with node-forge's signing, its Secret and
    // CA-bundle injection), not by every importer of the Manager: most servers mount theirs
    const { ensureWebhookCertificates } = await import('./ensure-certificates.js');
    const { retryMs: _retryMs, ...ensure } = options;
    // checked by the constructor
    const client = this.options.client as KubeClient;
    return ensureWebhookCertificates(client, { ...ensure, now });
  }

  /** The renewal timer of self-managed certificates: each renewal is swapped in at once. */
  private renewCertificates(options: SelfManagedCertificates, first: WebhookCertificates): void {
    this.renewals = certificateRenewals(
      first,
      (now) => this.ensureCertificates(options, now),
      {
        renewBeforeMs: (options.renewBeforeDays ?? 30) * DAY_MS,
        retryMs: options.retryMs ?? DEFAULT_RENEWAL_RETRY_MS,
      },
      this.scheduler,
    ).subscribe((renewal) => {
      if (renewal.type === 'renewed') {
        const { cert, key } = renewal.certificates;
        try {
          this.setCertificate({ cert, key });
        } catch (error) {
          this.options.log?.warn(
            { error: error instanceof Error ? error.message : String(error) },
            'renewed webhook serving certificate does not load; serving the current one',
          );
          return;
        }
        this.issued = renewal.certificates;
        this.options.log?.info(
          { notAfter: renewal.certificates.notAfter.toISOString() },
          'webhook serving certificate renewed',
        );
      } else {
        this.options.log?.warn(
          {
            error: renewal.error instanceof Error ? renewal.error.message : String(renewal.error),
            retryInMs: renewal.retryInMs,
          },
          'webhook serving certificate renewal failed; serving the current one, retrying',
        );
      }
    });
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private checkOpen(method: string): void {
    if (this.server !== undefined)
      throw new InvalidArgumentError(
        `${OPERATOR}.${method}`,
        'handler',
        '(function)',
        'must be registered before start()',
      );
  }

  private checkHandler(method: string, handler: unknown): void {
    this.checkOpen(method);
    if (typeof handler !== 'function')
      throw new InvalidArgumentError(`${OPERATOR}.${method}`, 'handler', handler, 'must be a function');
  }

  private addAdmission(
    kind: 'validating' | 'mutating',
    resource: ResourceType,
    options: AdmissionHandlerOptions,
    handle: AdmissionEntry['handle'],
  ): this {
    const method = kind === 'validating' ? 'validate' : 'mutate';
    if (typeof resource?.apiVersion !== 'string' || typeof resource.kind !== 'string') {
      throw new InvalidArgumentError(
        `${OPERATOR}.${method}`,
        'type',
        resource,
        'must be { apiVersion, kind }',
      );
    }
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    checkTimeout(`${method}.timeoutMs`, timeoutMs);
    const path = options.path ?? defaultPath(method, resource);
    if (!path.startsWith('/') || path === '/convert') {
      throw new InvalidArgumentError(
        `${OPERATOR}.${method}`,
        'path',
        path,
        'must start with "/" and not be /convert',
      );
    }
    if (this.admission.has(path))
      throw new InvalidArgumentError(`${OPERATOR}.${method}`, 'path', path, 'must be unique in this server');
    this.admission.set(path, {
      type: kind,
      path,
      resource: { apiVersion: resource.apiVersion, kind: resource.kind },
      timeoutMs,
      handle,
    });
    return this;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const entry = this.admission.get(path);
    const known = entry !== undefined || (path === '/convert' && this.conversions.size > 0);
    const label = known ? path : 'unknown';
    const started = performance.now();
    this.metrics?.inFlight.inc({ webhook: label });
    let code = 500;
    try {
      if (!known) {
        code = 404;
        return sendText(res, 404, `no webhook at ${path}`);
      }
      if (req.method !== 'POST') {
        code = 405;
        return sendText(res, 405, `${req.method ?? ''} ${path}: webhooks take POST`);
      }
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith('application/json')) {
        code = 400;
        return sendText(res, 400, `${path}: content-type ${type || '(none)'} is not application/json`);
      }
      let body: unknown;
      try {
        body = JSON.parse((await readBody(req)).toString('utf8'));
      } catch (error) {
        code = 400;
        return sendText(
          res,
          400,
          `${path}: the body is not JSON: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      const answer = entry !== undefined ? await this.admit(entry, body) : this.convertReview(body);
      code = answer.code;
      if (typeof answer.body === 'string') return sendText(res, answer.code, answer.body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    } finally {
      this.metrics?.inFlight.dec({ webhook: label });
      this.metrics?.latency.observe({ webhook: label }, (performance.now() - started) / 1000);
      this.metrics?.requests.inc({ webhook: label, code: String(code) });
    }
  }

  private async admit(
    entry: AdmissionEntry,
    body: unknown,
  ): Promise<{ code: number; body: AdmissionReview | string }> {
    const review = body as Partial<AdmissionReview> | null;
    const request = review?.request;
    if (
      review?.apiVersion !== 'admission.k8s.io/v1' ||
      review.kind !== 'AdmissionReview' ||
      typeof request?.uid !== 'string'
    ) {
      return {
        code: 400,
        body: `${entry.path}: expected an admission.k8s.io/v1 AdmissionReview with request.uid`,
      };
    }
    const log = this.options.log;
    const outcome = await firstValueFrom(
      withDeadline((signal) => defer(() => entry.handle(request, signal)), entry.timeoutMs, this.scheduler),
    );
    let response: Omit<AdmissionResponse, 'uid'>;
    if ('value' in outcome) response = outcome.value;
    else if ('timedOut' in outcome) {
      const message = `${entry.type} webhook ${entry.path} did not answer within its deadline of ${String(entry.timeoutMs)} ms`;
      log?.warn({ webhook: entry.path, uid: request.uid, timeoutMs: entry.timeoutMs }, message);
      response = { allowed: false, status: { code: 504, message, reason: 'Timeout' } };
    } else {
      const reason = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      const message = `${entry.type} webhook ${entry.path} failed: ${reason}`;
      log?.warn({ webhook: entry.path, uid: request.uid, error: reason }, 'webhook handler threw');
      response = { allowed: false, status: { code: 500, message, reason: 'InternalError' } };
    }
    log?.debug(
      {
        webhook: entry.path,
        uid: request.uid,
        operation: request.operation,
        namespace: request.namespace,
        name: request.name,
        allowed: response.allowed,
        patched: response.patch !== undefined,
      },
      'admission request',
    );
    return {
      code: 200,
      body: {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: request.uid, ...response },
      },
    };
  }

  private convertReview(body: unknown): { code: number; body: ConversionReview | string } {
    const review = body as Partial<ConversionReview> | null;
    const request = review?.request;
    if (
      review?.apiVersion !== 'apiextensions.k8s.io/v1' ||
      review.kind !== 'ConversionReview' ||
      typeof request?.uid !== 'string' ||
      typeof request.desiredAPIVersion !== 'string' ||
      !Array.isArray(request.objects)
    ) {
      return {
        code: 400,
        body: '/convert: expected an apiextensions.k8s.io/v1 ConversionReview with request.uid, desiredAPIVersion and objects',
      };
    }
    const respond = (
      response: Omit<NonNullable<ConversionReview['response']>, 'uid'>,
    ): { code: number; body: ConversionReview } => ({
      code: 200,
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        response: { uid: request.uid, ...response },
      },
    });
    try {
      const objects: readonly KubeObject[] = request.objects;
      const convertedObjects = objects.map((o) => this.convertOne(o, request.desiredAPIVersion));
      return respond({ convertedObjects, result: { status: 'Success' } });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.options.log?.warn({ webhook: '/convert', uid: request.uid, error: message }, 'conversion failed');
      return respond({ convertedObjects: [], result: { status: 'Failure', message } });
    }
  }

  private convertOne(object: KubeObject, desired: string): KubeObject {
    // the object was parsed from this request: nobody else holds it, no copy needed
    const lookup = (group: string, kind: string): Conversion | undefined =>
      this.conversions.get(`${group}/${kind}`)?.conversion;
    return convertObject(object, desired, lookup, false);
  }
}

/**
 * Converts one object to `desired` (`group/version`) with the registered conversion of its kind,
 * through the hub; keeps metadata (only labels and annotations may change, as kube-apiserver
 * requires) and sets apiVersion.
 *
 * ## Example
 * ```ts
 * import { convertObject, type Conversion } from '@rxkube/kube/webhook';
 * declare const gadgetConversion: Conversion;
 * const v2 = convertObject(
 *   { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 1 } },
 *   'example.com/v2',
 *   () => gadgetConversion,
 * );
 * ```
 *
 * @param copy whether to hand the conversion functions a copy (default true; false for objects nobody else holds).
 * @throws {Error} naming the kind and versions when no conversion applies.
 */
export function convertObject(
  object: KubeObject,
  desired: string,
  lookup: (group: string, kind: string) => Conversion | undefined,
  copy = true,
): KubeObject {
  const [fromGroup, fromVersion] = splitApiVersion(object.apiVersion ?? '');
  const [toGroup, toVersion] = splitApiVersion(desired);
  const kind = object.kind ?? '';
  const name = `${kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name ?? ''}`;
  if (fromGroup !== toGroup)
    throw new Error(`cannot convert ${name} from ${String(object.apiVersion)} to ${desired}: another group`);
  if (fromVersion === toVersion) return object;
  const conversion = lookup(fromGroup, kind);
  if (conversion === undefined)
    throw new Error(`no conversion registered for ${fromGroup}/${kind} (convert ${name} to ${desired})`);
  const own = (o: KubeObject): KubeObject => (copy ? structuredClone<KubeObject>(o) : o);
  const step = (version: string, dir: 'toHub' | 'fromHub'): ((o: KubeObject) => KubeObject) => {
    const spoke = conversion.spokes[version];
    if (spoke === undefined) {
      throw new Error(
        `cannot convert ${name} from ${String(object.apiVersion)} to ${desired}: version ${version} is neither the hub (${conversion.hub}) nor a spoke`,
      );
    }
    return spoke[dir];
  };
  let hub = fromVersion === conversion.hub ? own(object) : step(fromVersion, 'toHub')(own(object));
  hub = { ...hub, apiVersion: `${fromGroup}/${conversion.hub}` };
  let out = toVersion === conversion.hub ? hub : step(toVersion, 'fromHub')(hub);
  out = {
    ...out,
    apiVersion: desired,
    kind,
    metadata: {
      ...object.metadata,
      ...(out.metadata?.labels !== undefined ? { labels: out.metadata.labels } : {}),
      ...(out.metadata?.annotations !== undefined ? { annotations: out.metadata.annotations } : {}),
    },
  };
  return out;
}

function splitApiVersion(apiVersion: string): [string, string] {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

/**
 * controller-runtime's `generateValidatePath`/`generateMutatePath`.
 */
export function defaultPath(method: 'validate' | 'mutate', type: ResourceType): string {
  const [group, version] = splitApiVersion(type.apiVersion);
  return `/${method}-${group.replaceAll('.', '-')}-${version}-${type.kind.toLowerCase()}`;
}

function verdictResponse(verdict: AdmissionVerdict): Omit<AdmissionResponse, 'uid'> {
  if (verdict === null || typeof verdict !== 'object' || typeof verdict.allowed !== 'boolean') {
    throw new Error('the handler returned no verdict: return allowed(...) or denied(message)');
  }
  const warnings =
    verdict.warnings !== undefined && verdict.warnings.length > 0 ? { warnings: verdict.warnings } : {};
  if (verdict.allowed) return { allowed: true, ...warnings };
  return {
    allowed: false,
    status: {
      code: verdict.code ?? 403,
      ...(verdict.message !== undefined ? { message: verdict.message } : {}),
    },
    ...warnings,
  };
}

function checkTimeout(name: string, ms: number): void {
  // kube-apiserver: timeoutSeconds between 1 and 30
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms >= 30_000) {
    throw new InvalidArgumentError(
      OPERATOR,
      name,
      ms,
      'must be an integer number of ms below 30000 (timeoutSeconds is at most 30)',
    );
  }
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error(`body larger than ${String(MAX_BODY_BYTES)} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
