/**
 * `Manager`: runs an operator's controllers the way production expects — controller-runtime's
 * Manager. It shares one watch per resource/namespace/selector between its controllers, reconciles
 * only while it leads (Lease election, optional), keeps caches warm on standby, serves `/healthz`,
 * `/readyz` and `/metrics`, logs one line per reconcile, and shuts down gracefully: intake stops,
 * reconciles in flight and their status writes finish (up to a deadline), the lease is released.
 *
 * What it does not do: install signal handlers unless asked (`run()` does), exit the process on
 * a lost lease (it cancels the work and campaigns again), or manage CRDs (do that in `setup`).
 *
 * @module
 */
import type { Logger } from 'pino';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import {
  asyncScheduler,
  BehaviorSubject,
  catchError,
  defer,
  EMPTY,
  finalize,
  firstValueFrom,
  from,
  combineLatest,
  distinctUntilChanged,
  ignoreElements,
  map,
  of,
  merge,
  race,
  ReplaySubject,
  retry,
  tap,
  Subject,
  switchMap,
  takeUntil,
  timer,
} from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type {
  Controller,
  ControllerOptions,
  ControllerReconcile,
  ControllerResult,
} from '../controller/controller.js';
import { controller } from '../controller/controller.js';
import type { ControllerPlan } from '../controller/validate-options.js';
import { planController } from '../controller/validate-options.js';
import type { EnsureCrdOptions, EnsureCrdResult } from '../crd/ensure-crd.js';
import type { CrdInput } from '../crd/load-crd.js';
import { eventPortFromClient } from '../events/event-port.js';
import { EventRecorder } from '../events/event-recorder.js';
import { isForbidden, isUnauthorized } from '../errors.js';
import type { LeaderElectionAttempt, LeaderElectionOptions } from '../leader/leader-elector.js';
import { defaultIdentity, LeaderElector } from '../leader/leader-elector.js';
import { ControllerMetrics, resourceLabel } from '../ops/metrics.js';
import { controllerLogger, createLogger, logReconcile } from '../ops/logging.js';
import type { ProbeCheck, ProbeServer } from '../ops/probes.js';
import { startProbeServer, WatchHealthChecks } from '../ops/probes.js';
import { WatchFailureLog } from '../ops/watch-failure-log.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { watchTargetKey } from '../reflector/watch-registry.js';
import type { KubeObject } from '../types.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
import type { WatcherConfig } from '../watcher/config.js';
import { assertNumber, InvalidArgumentError } from '../internal/invalid-argument.js';
import { CrdInstaller } from './crd-installer.js';
import type { ManagedController, ManagedControllerOptions, ManagerDescription } from './registration.js';
import { isRegistrationName } from './registration.js';

const OPERATOR = 'Manager';
/** First restart delay of a controller whose pipeline died; doubles per failure in a row. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 60_000;
/** A restarted controller that runs this long without failing ends its failure streak. */
const RESTART_RESET_MS = 60_000;
/** Failures in a row after which `/healthz` fails (the kubelet then restarts the pod). */
export const MAX_CONTROLLER_FAILURES = 5;
/** controller-runtime's graceful shutdown timeout: 30 s. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

/** Leader election settings of a {@link Manager}; `leaseName` defaults to the manager's name. */
export interface ManagerLeaderElectionOptions extends Partial<LeaderElectionOptions> {
  /** The elector's clock and timers (a virtual-time scheduler in tests). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** Options of {@link Manager}. */
export interface ManagerOptions {
  /** The API client every controller uses. */
  readonly client: KubeClient;
  /** The operator's name: logger name, default lease name, Event `reportingController` prefix. */
  readonly name: string;
  /**
   * Namespaces to watch. Default: all. With several, each controller watches every one of them
   * (one watch per namespace and kind, read as one cache: `ctx.cache` and `watches[].map`'s context
   * answer across all of them); controllers that set their own `namespace` keep it; a
   * cluster-scoped primary kind runs cluster-wide, with its owned and mapped watches.
   */
  readonly namespaces?: readonly string[];
  /** Default `concurrency` of controllers that do not set one. Default 1. */
  readonly concurrency?: number;
  /** Lease-based leader election; `true` for the defaults. Default off (controller-runtime's). */
  readonly leaderElection?: boolean | ManagerLeaderElectionOptions;
  /** Port of `/healthz`, `/readyz` (and `/metrics` when `metricsPort` is not set); `false`/absent: none. */
  readonly healthPort?: number | false;
  /** Port of `/metrics` alone; `false`/absent: metrics are served on `healthPort` (if any). */
  readonly metricsPort?: number | false;
  /** Interface the probe and metrics servers bind; default all. */
  readonly host?: string;
  /** The logger; default `createLogger({ name, level: logLevel })`. */
  readonly log?: Logger;
  /** Level of the default logger (else `RXKUBE_LOG_LEVEL`, `LOG_LEVEL`, `info`). */
  readonly logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long `stop()` lets reconciles in flight finish; default 30 s. */
  readonly shutdownTimeoutMs?: number;
  /** Metrics; default a new `ControllerMetrics` (its own prom-client Registry). */
  readonly metrics?: ControllerMetrics;
  /** Watcher settings of every watch (backoff, page size, idle timeout, …). */
  readonly watcher?: Omit<WatcherConfig, 'health'>;
  /** Keep caches listed and watched while not leading, so a new leader starts at once. Default true. */
  readonly warmStandby?: boolean;
  /** Time source of the shutdown deadline and the controllers' timers. */
  readonly scheduler?: SchedulerLike;
}

/** What {@link Manager.stop} resolves with. */
export interface ShutdownReport {
  /** Every reconcile in flight finished before the deadline. */
  readonly drained: boolean;
  /** Reconciles cancelled at the deadline. */
  readonly cancelled: number;
  /** Scheduler time the shutdown took. */
  readonly durationMs: number;
}

/** The Manager could not start (a probe or metrics port could not be bound); `cause` says why. */
export class ManagerStartError extends Error {
  readonly _tag = 'ManagerStartError' as const;
  override readonly name = 'ManagerStartError';
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

type State = 'new' | 'started' | 'stopping' | 'stopped';

/**
 * Runs controllers together: shared watches, leader election, metrics, probes, logs, graceful
 * shutdown.
 *
 * ## Example
 * ```ts
 * const mgr = new Manager({ client: KubeClient.default(), name: 'widget-operator',
 *   leaderElection: true, healthPort: 8081, metricsPort: 8080 });
 * mgr.add<Widget>('widget', { for: widgetType, status: { fieldManager: 'widgets' }, events: true }, reconcile);
 * await mgr.start();
 * process.once('SIGTERM', () => void mgr.stop().then(() => process.exit(0)));
 * ```
 *
 * ## Semantics
 * - `add` before `start`; names are unique (they label metrics and logs).
 * - `start()`: probe/metrics servers listen, caches start listing (warm standby), leader election
 *   starts; controllers run while leading (at once without election). Each reconcile waits for
 *   its controller's caches (WaitForCacheSync).
 * - Losing the lease: every controller run is unsubscribed at once (reconciles in flight are
 *   cancelled, timers dropped); winning it again starts them afresh from the warm caches.
 * - `stop()`: intake stops, in-flight reconciles and queued status writes finish up to
 *   `shutdownTimeoutMs`, then anything left is cancelled; Event writes are flushed; the lease is
 *   released; servers close. Idempotent.
 *
 * ## Guarantees
 * - One upstream watch per target for all controllers (the shared registry).
 * - No reconcile runs while not leading (with election), nor after `stop()` began taking intake away.
 */
export class Manager {
  /** The API client. */
  readonly client: KubeClient;
  /** The operator's name. */
  readonly name: string;
  /** The structured logger (secrets redacted). */
  readonly log: Logger;
  /** The metrics (controller-runtime names) on their registry. */
  readonly metrics: ControllerMetrics;
  /** The shared watches. */
  readonly registry: WatchRegistry;
  /** This replica's identity (lease holder, Event `reportingInstance`). */
  readonly identity: string;
  /** The elector, when leader election is on. */
  readonly elector: LeaderElector | undefined;
  /** Whether this replica may reconcile: `true` without election; replays the current value. */
  readonly leadership$: Observable<boolean>;
  /** Every reconcile result of every controller, tagged with its controller's name (hot). */
  readonly results$: Observable<ControllerResult>;

  private readonly options: ManagerOptions;
  private readonly scheduler: SchedulerLike;
  private readonly watchHealth = new WatchHealthChecks();
  private readonly watchFailures: WatchFailureLog;
  private readonly controllers: ManagedController[] = [];
  private readonly runnables: { name: string; run: () => Observable<unknown>; leaderElection: boolean }[] =
    [];
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly crds: CrdInstaller;
  private readonly results = new Subject<ControllerResult>();
  private readonly shutdown = new ReplaySubject<void>(1);
  private readonly subscriptions: Subscription[] = [];
  private servers: ProbeServer[] = [];
  private state: State = 'new';
  private running = 0;
  private work: { done: Promise<void>; subscription: Subscription } | undefined;
  private stopping: Promise<ShutdownReport> | undefined;
  private lastElectionError: { at: number; error: unknown } | undefined;
  private electionFailing = false;
  /** `apiVersion/kind` of primary kinds discovery reports cluster-scoped. */
  private readonly clusterScoped = new Set<string>();
  /** The controllers built at start, by registration name. */
  private readonly built = new Map<string, Controller<KubeObject>>();
  /** Consecutive pipeline failures of each controller (the restart safety net). */
  private readonly failures = new Map<string, { count: number; error: unknown }>();

  /** @throws {InvalidArgumentError} for a bad option. */
  constructor(options: ManagerOptions) {
    validate(options);
    this.options = options;
    this.client = options.client;
    this.name = options.name;
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.log =
      options.log ??
      createLogger({
        name: options.name,
        ...(options.logLevel !== undefined ? { level: options.logLevel } : {}),
      });
    this.metrics = options.metrics ?? new ControllerMetrics({ scheduler: this.scheduler });
    this.watchFailures = new WatchFailureLog(this.log);
    this.crds = new CrdInstaller(options.client, options.name, this.log, this.scheduler);
    this.registry = new WatchRegistry(
      options.client,
      {
        ...(options.watcher !== undefined ? { watcher: options.watcher } : {}),
        health: (target, health) => {
          this.metrics.recordWatchHealth(target, health);
          this.watchHealth.record(target, health);
          this.watchFailures.record(target, health);
        },
      },
      this.scheduler,
    );
    const election = options.leaderElection;
    if (election === undefined || election === false) {
      this.identity = defaultIdentity();
      this.elector = undefined;
      this.leadership$ = new BehaviorSubject(true).asObservable();
    } else {
      const { scheduler, ...settings } = election === true ? {} : election;
      this.elector = new LeaderElector(
        options.client,
        { leaseName: options.name, ...settings },
        scheduler ?? asyncScheduler,
      );
      this.identity = this.elector.identity;
      this.leadership$ = this.elector.leadership$;
    }
    this.results$ = this.results.asObservable();
  }

  /** The registered controllers, in order. */
  get registered(): readonly ManagedController[] {
    return this.controllers;
  }

  /** The namespaces to watch (`undefined`: all). */
  get namespaces(): readonly string[] | undefined {
    return this.options.namespaces;
  }

  /** Reconciles running now, across controllers. */
  get inFlight(): number {
    return this.running;
  }

  /**
   * Registers a controller (controller-runtime `ctrl.NewControllerManagedBy(mgr).For(…).Complete(r)`).
   *
   * ## Example
   * ```ts
   * mgr.add<Widget>('widget', { for: { apiVersion: 'example.com/v1', kind: 'Widget' },
   *   owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }], status: { fieldManager: 'widgets' } }, reconcile);
   * ```
   * @throws {InvalidArgumentError} after `start()`, for a duplicate or malformed name, or an option
   *   `controller()` refuses.
   */
  add<T extends KubeObject>(
    name: string,
    options: ManagedControllerOptions<T>,
    reconcile: ControllerReconcile<T>,
  ): this {
    if (this.state !== 'new') {
      throw new InvalidArgumentError(`${OPERATOR}.add`, 'name', name, 'must be added before start()');
    }
    if (!isRegistrationName(name)) {
      throw new InvalidArgumentError(
        `${OPERATOR}.add`,
        'name',
        name,
        'must be a lower-case name of letters, digits and "-" (it labels metrics and logs)',
      );
    }
    if (this.controllers.some((c) => c.name === name)) {
      throw new InvalidArgumentError(`${OPERATOR}.add`, 'name', name, 'must be unique in this manager');
    }
    if (typeof reconcile !== 'function') {
      throw new InvalidArgumentError(
        `${OPERATOR}.add`,
        'reconcile',
        reconcile,
        'must be a function (request, ctx) => ObservableInput<Action>',
      );
    }
    const registration: ManagedController = {
      name,
      options: options as unknown as ManagedControllerOptions<KubeObject>,
      reconcile: reconcile as unknown as ControllerReconcile<KubeObject>,
    };
    // Check the options now, not at start: planning builds nothing.
    this.plan(registration);
    this.controllers.push(registration);
    return this;
  }

  /**
   * Installs (or updates) a CRD the operator owns — `ensureCrd` with the manager's name as field
   * manager — and remembers it, so {@link managerRbac} grants `get` and `patch` on that CRD (by
   * name) instead of leaving a 403 for the first start in a cluster. Call it from `setup`.
   *
   * Refused by the API server (401/403: the operator's RBAC does not allow it yet), it resolves
   * `undefined` instead of rejecting: the operator starts and stays unready — `/readyz` names the
   * CRD and the permission, one warning is logged — and the installation is retried with backoff
   * (1 s doubling to 30 s) until it succeeds, then one line says so. Controllers of the CRD's
   * kind wait meanwhile (their watch reports the kind as not served).
   *
   * ## Example
   * ```ts
   * export async function setup(mgr: Manager) {
   *   await mgr.ensureCrd(new URL('../crd.yaml', import.meta.url));
   *   mgr.add('widget', { for: widgetType }, reconcile);
   * }
   * ```
   * @returns the installed CRD and its resources, or `undefined` when refused (installing later).
   * @throws what `ensureCrd` throws otherwise (`InvalidCrdError`, `CrdNotEstablishedError`, other
   *   API errors).
   */
  async ensureCrd(crd: CrdInput, options: EnsureCrdOptions = {}): Promise<EnsureCrdResult | undefined> {
    return this.crds.ensure(crd, options);
  }

  /** Names of the CRDs installed (or being installed) through {@link ensureCrd}. */
  get installedCrds(): readonly string[] {
    return this.crds.installed;
  }

  /**
   * Registers something else to run with the manager (controller-runtime's `mgr.Add(runnable)`):
   * `run()` is subscribed when the manager starts — while leading, unless `leaderElection: false`
   * — and unsubscribed when leadership is lost and after `stop()` drained the controllers. A
   * runnable that errors is logged and ends; it never stops the manager.
   *
   * ## Example
   * ```ts
   * mgr.addRunnable('journal', () =>
   *   mgr.registry.watch({ resource: { apiVersion: 'v1', kind: 'Namespace' } }).events$.pipe(
   *     tap((e) => mgr.log.info({ type: e.type }, 'namespace event')),
   *   ),
   * );
   * ```
   * @throws {InvalidArgumentError} after `start()`, for a duplicate or malformed name, or a `run`
   *   that is not a function.
   */
  addRunnable(
    name: string,
    run: () => Observable<unknown>,
    options: { readonly leaderElection?: boolean } = {},
  ): this {
    if (this.state !== 'new') {
      throw new InvalidArgumentError(`${OPERATOR}.addRunnable`, 'name', name, 'must be added before start()');
    }
    if (!isRegistrationName(name)) {
      throw new InvalidArgumentError(
        `${OPERATOR}.addRunnable`,
        'name',
        name,
        'must be a lower-case name of letters, digits and "-"',
      );
    }
    if (this.runnables.some((r) => r.name === name)) {
      throw new InvalidArgumentError(
        `${OPERATOR}.addRunnable`,
        'name',
        name,
        'must be unique in this manager',
      );
    }
    if (typeof run !== 'function') {
      throw new InvalidArgumentError(
        `${OPERATOR}.addRunnable`,
        'run',
        run,
        'must be a function () => Observable',
      );
    }
    this.runnables.push({ name, run, leaderElection: options.leaderElection !== false });
    return this;
  }

  /**
   * Looks up, through discovery, which controllers' primary kinds are cluster-scoped: those run
   * once cluster-wide even when `namespaces` is set. `start()` calls it; call it yourself before
   * {@link targets} is needed earlier (e.g. for RBAC). A kind discovery does not know yet (a CRD
   * not installed) counts as namespaced; its watch then reports the missing kind on `/readyz`.
   */
  async resolveScopes(): Promise<void> {
    if (this.options.namespaces === undefined || this.options.namespaces.length === 0) return;
    for (const c of this.controllers) {
      try {
        const resource = await this.client.discovery.resolve(c.options.for);
        if (!resource.namespaced) this.clusterScoped.add(`${c.options.for.apiVersion}/${c.options.for.kind}`);
      } catch {
        // Not served (yet): treated as namespaced.
      }
    }
  }

  /**
   * Every watch target of the registered controllers (deduplicated), as the registry keys them.
   */
  targets(): WatchTarget[] {
    const seen = new Map<string, WatchTarget>();
    for (const c of this.controllers) {
      const plan = this.plan(c);
      for (const kind of [plan.primary, ...plan.owned, ...plan.mapped]) {
        for (const t of kind.targets) seen.set(watchTargetKey(t), t);
      }
    }
    return [...seen.values()];
  }

  /**
   * What this manager was told to run, as plain data, with scopes resolved through discovery (see
   * {@link resolveScopes}): the registrations, their watch targets, the CRDs it installs, the
   * lease namespace. `managerRbac` derives the RBAC from it.
   *
   * ## Example
   * ```ts
   * const { targets } = await mgr.describe();
   * ```
   */
  async describe(): Promise<ManagerDescription> {
    await this.resolveScopes();
    return {
      name: this.name,
      namespaces: this.options.namespaces,
      registered: [...this.controllers],
      targets: this.targets(),
      installedCrds: this.installedCrds,
      leaseNamespace: this.elector?.leaseNamespace,
    };
  }

  /**
   * Readiness checks of `/readyz`: `caches` (every watch listed once), `watches` (none refused with
   * 401/403/404 or a kind not served, naming it) and, with election, `leader-election` (the lease is
   * not refused with 401/403).
   */
  readinessChecks(): ProbeCheck[] {
    const targets = this.targets();
    const checks: ProbeCheck[] = [
      {
        name: 'caches',
        check: () => {
          if (this.state === 'new') return { ok: false, reason: 'the manager has not started' };
          const unsynced = targets.filter((t) => !this.registry.watch(t).store.ready).map((t) => describe(t));
          return unsynced.length === 0
            ? { ok: true }
            : { ok: false, reason: `caches not synced yet: ${unsynced.join(', ')}` };
        },
      },
      this.watchHealth.check,
      this.crds.check,
    ];
    if (this.elector !== undefined) {
      const elector = this.elector;
      checks.push({
        name: 'leader-election',
        check: () => {
          const e = this.lastElectionError;
          if (e === undefined) return { ok: true };
          return {
            ok: false,
            reason: `Lease ${elector.leaseNamespace}/${elector.leaseName} refused: ${errorText(e.error)} — grant get, create and update on coordination.k8s.io leases in namespace ${elector.leaseNamespace}`,
          };
        },
      });
    }
    return checks;
  }

  /**
   * Starts servers, warm caches, election and controllers; resolves once they are started (not
   * once synced: see `/readyz`).
   *
   * @throws when a probe or metrics port cannot be bound, or when called twice.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`${OPERATOR} ${this.name}: start() called twice`);
    this.state = 'started';
    await this.resolveScopes();
    const { healthPort, metricsPort, host } = this.options;
    try {
      if (healthPort !== undefined && healthPort !== false) {
        this.servers.push(
          await startProbeServer({
            port: healthPort,
            ...(host !== undefined ? { host } : {}),
            checks: this.readinessChecks(),
            liveness: [this.controllersLiveness()],
            ...(metricsPort === undefined || metricsPort === false
              ? { registry: this.metrics.registry }
              : {}),
          }),
        );
      }
      if (metricsPort !== undefined && metricsPort !== false) {
        this.servers.push(
          await startProbeServer({
            port: metricsPort,
            ...(host !== undefined ? { host } : {}),
            eventLoop: false,
            registry: this.metrics.registry,
          }),
        );
      }
    } catch (error) {
      await this.closeServers();
      this.state = 'stopped';
      throw new ManagerStartError(
        `${OPERATOR} ${this.name}: cannot serve probes or metrics (health port ${String(healthPort)}, metrics port ${String(metricsPort)}): ` +
          `${error instanceof Error ? error.message : String(error)} — pick free ports (--health-port/--metrics-port, RXKUBE_HEALTH_PORT/RXKUBE_METRICS_PORT) or 0 for any`,
        error,
      );
    }
    // stop() may have been called while this awaited (a SIGTERM during start-up): start nothing.
    if (this.stopping !== undefined) {
      await this.closeServers();
      return;
    }
    if (this.options.warmStandby !== false) {
      for (const t of this.targets()) this.subscriptions.push(this.registry.watch(t).events$.subscribe());
    }
    const elector = this.elector;
    if (elector !== undefined) {
      this.subscriptions.push(
        elector.leadership$.subscribe((leading) => {
          this.metrics.setLeader(elector.leaseName, leading);
          this.log.info(
            { lease: `${elector.leaseNamespace}/${elector.leaseName}`, identity: elector.identity, leading },
            leading ? 'became leader' : 'not leading',
          );
        }),
        elector.attempts$.subscribe((a) => this.noteAttempt(a)),
      );
      elector.start();
    }
    const runnable = (r: (typeof this.runnables)[number]): Observable<never> =>
      defer(r.run).pipe(
        ignoreElements(),
        catchError((error: unknown) => {
          this.log.error({ runnable: r.name, error }, `runnable ${r.name} failed; it is not restarted`);
          return EMPTY;
        }),
      );
    const gated = this.runnables.filter((r) => r.leaderElection);
    this.subscriptions.push(
      merge(...this.runnables.filter((r) => !r.leaderElection).map(runnable)).subscribe(),
      this.leadership$
        .pipe(switchMap((leading) => (leading ? merge(...gated.map(runnable)) : EMPTY)))
        .subscribe(),
    );
    const runs$ = this.leadership$.pipe(
      // Deliberately before switchMap: a shutdown ends leadership changes (no controller starts
      // afterwards) but lets the running controllers drain; losing the lease cancels them.
      // eslint-disable-next-line rxjs-x/no-unsafe-takeuntil
      takeUntil(this.shutdown),
      switchMap((leading) =>
        leading ? merge(...this.controllers.map((c) => this.runController(c))) : EMPTY,
      ),
    );
    let resolveDone!: () => void;
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    const subscription = runs$.subscribe({
      next: (r) => this.results.next(r),
      error: (error: unknown) => {
        this.log.error({ error }, 'a controller failed fatally (misconfiguration)');
        resolveDone();
      },
      complete: () => resolveDone(),
    });
    this.work = { done, subscription };
    this.log.info(
      {
        controllers: this.controllers.map((c) => c.name),
        namespaces: this.options.namespaces ?? 'all',
        identity: this.identity,
        leaderElection: elector !== undefined,
        ports: this.servers.map((s) => s.port),
      },
      'manager started',
    );
  }

  /** Ports the probe and metrics servers listen on (in that order), once started. */
  get ports(): readonly number[] {
    return this.servers.map((s) => s.port);
  }

  /**
   * Graceful shutdown (idempotent): stop intake, let reconciles in flight and queued status writes
   * finish for up to `shutdownTimeoutMs`, cancel what is left, flush Events, release the lease,
   * close the servers and watches.
   */
  stop(): Promise<ShutdownReport> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  /**
   * Starts, then runs until SIGTERM or SIGINT: the first signal stops gracefully and resolves with
   * exit code 0 (1 if the drain hit the deadline); a second signal calls `exit(130)` at once.
   *
   * ## Example
   * ```ts
   * process.exitCode = await mgr.run();
   * ```
   */
  async run(
    options: {
      readonly signals?: readonly NodeJS.Signals[];
      readonly process?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
      readonly exit?: (code: number) => void;
    } = {},
  ): Promise<number> {
    const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
    const proc = options.process ?? process;
    const exit = options.exit ?? ((code: number) => process.exit(code));
    let signalled = false;
    let stopped!: (report: ShutdownReport) => void;
    const finished = new Promise<ShutdownReport>((resolve) => (stopped = resolve));
    const onSignal = (signal: NodeJS.Signals): void => {
      if (signalled) {
        this.log.warn({ signal }, 'second signal: exiting now without draining');
        exit(130);
        return;
      }
      signalled = true;
      this.log.info(
        { signal, deadlineMs: this.options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS },
        'shutting down: intake stopped, draining reconciles in flight',
      );
      void this.stop().then(stopped);
    };
    for (const s of signals) proc.on(s, onSignal);
    try {
      await this.start();
      const report = await finished;
      return report.drained ? 0 : 1;
    } finally {
      for (const s of signals) proc.off(s, onSignal);
    }
  }

  private async doStop(): Promise<ShutdownReport> {
    const started = this.scheduler.now();
    const wasStarted = this.state === 'started';
    this.state = 'stopping';
    let drained = true;
    let cancelled = 0;
    if (wasStarted && this.work !== undefined) {
      this.shutdown.next();
      this.shutdown.complete();
      const timeoutMs = this.options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
      // race() unsubscribes the loser: a drained stop leaves no deadline timer behind.
      const outcome = await firstValueFrom(
        race(
          from(this.work.done).pipe(map(() => 'drained' as const)),
          timer(timeoutMs, this.scheduler).pipe(map(() => 'deadline' as const)),
        ),
      );
      if (outcome === 'deadline') {
        drained = false;
        cancelled = this.running;
        this.log.warn(
          { timeoutMs, cancelled },
          'shutdown deadline reached: cancelling reconciles still in flight',
        );
      }
      this.work.subscription.unsubscribe();
    }
    this.crds.stop();
    for (const r of this.recorders.values()) r.complete();
    for (const s of this.subscriptions) s.unsubscribe();
    this.subscriptions.length = 0;
    if (this.elector !== undefined) {
      await this.elector.release();
      this.metrics.setLeader(this.elector.leaseName, false);
    }
    await this.closeServers();
    this.results.complete();
    this.state = 'stopped';
    const report = { drained, cancelled, durationMs: this.scheduler.now() - started };
    if (wasStarted) this.log.info(report, 'manager stopped');
    return report;
  }

  private async closeServers(): Promise<void> {
    const servers = this.servers;
    this.servers = [];
    await Promise.all(servers.map((s) => s.close()));
  }

  private noteAttempt(a: LeaderElectionAttempt): void {
    if (a.error === undefined) {
      if (this.electionFailing)
        this.log.info({ lease: this.elector?.leaseName }, 'leader election: the Lease is reachable again');
      this.electionFailing = false;
      this.lastElectionError = undefined;
      return;
    }
    // One warning per streak of failed tries (they repeat every retry period).
    if (!this.electionFailing) {
      this.log.warn(
        { error: a.error, lease: this.elector?.leaseName },
        'leader election: could not read or write the Lease; retrying',
      );
    }
    this.electionFailing = true;
    const refused = isForbidden(a.error) || isUnauthorized(a.error);
    this.lastElectionError = refused ? { at: a.at, error: a.error } : undefined;
  }

  /** Where a controller watches: its own namespace, cluster-wide, or the manager's namespaces. */
  private scopeOf(options: ManagedControllerOptions<KubeObject>): {
    namespace?: string;
    namespaces?: readonly string[];
  } {
    if (options.namespace !== undefined) return { namespace: options.namespace };
    // A cluster-scoped kind (Namespace, a cluster-scoped CRD) is watched once, cluster-wide.
    if (this.clusterScoped.has(`${options.for.apiVersion}/${options.for.kind}`)) return {};
    const namespaces = this.options.namespaces;
    if (namespaces === undefined || namespaces.length === 0) return {};
    return namespaces.length === 1 && namespaces[0] !== undefined
      ? { namespace: namespaces[0] }
      : { namespaces };
  }

  /** The controller options of a registration, in the manager's scope; `run` adds what a run needs. */
  private controllerOptions(
    c: ManagedController,
    run?: { readonly recorder: EventRecorder | undefined },
  ): ControllerOptions<KubeObject> {
    const { events: _events, permissions: _permissions, ...rest } = c.options;
    const concurrency = rest.concurrency ?? this.options.concurrency;
    return {
      ...rest,
      ...this.scopeOf(c.options),
      name: c.name,
      ...(concurrency !== undefined ? { concurrency } : {}),
      client: this.client,
      registry: this.registry,
      shutdown: this.shutdown,
      // The manager logs every outcome once (logReconcile); the controller logs the rest.
      logResults: false,
      ...(run === undefined
        ? {}
        : {
            log: controllerLogger(this.log.child({ controller: c.name })),
            observer: this.metrics.observer(c.name, { maxConcurrentReconciles: concurrency ?? 1 }),
            ...(run.recorder !== undefined ? { recorder: run.recorder } : {}),
          }),
    };
  }

  /** The checked plan of a registration (its watch targets, …): builds nothing. */
  private plan(c: ManagedController): ControllerPlan<KubeObject> {
    return planController(this.controllerOptions(c));
  }

  /** The controller of a registration, built to run (metrics observer, logger, recorder). */
  private build(c: ManagedController, recorder: EventRecorder | undefined): Controller<KubeObject> {
    return controller<KubeObject>(this.controllerOptions(c, { recorder }), this.scheduler);
  }

  private recorderFor(c: ManagedController): EventRecorder | undefined {
    if (c.options.events !== true) return undefined;
    // One per controller for the manager's life: leadership may start a controller many times.
    const existing = this.recorders.get(c.name);
    if (existing !== undefined) return existing;
    const recorder = new EventRecorder(eventPortFromClient(this.client), {
      reportingController: `${this.name}/${c.name}`,
      reportingInstance: this.identity,
    });
    this.recorders.set(c.name, recorder);
    return recorder;
  }

  private runController(c: ManagedController): Observable<ControllerResult> {
    const recorder = this.recorderFor(c);
    // Counted while running, for the shutdown report (cancelled ones finalize too).
    const counted: ControllerReconcile<KubeObject> = (request, ctx) =>
      defer(() => {
        this.running++;
        return from(c.reconcile(request, ctx)).pipe(finalize(() => this.running--));
      });
    let built = this.built.get(c.name);
    if (built === undefined) {
      built = this.build(c, recorder);
      this.built.set(c.name, built);
    }
    const ctrl = built;
    return defer(() => {
      // A run that stays up RESTART_RESET_MS is healthy again: its failure streak ends.
      const healthy = this.scheduler.schedule(() => this.failures.delete(c.name), RESTART_RESET_MS);
      return ctrl.run(counted).pipe(finalize(() => healthy.unsubscribe()));
    }).pipe(
      tap(() => this.failures.delete(c.name)),
      // The safety net (issue 12 §2): a controller whose pipeline dies (a framework bug; user code
      // is isolated inside it) is restarted with backoff and logged at error; after
      // MAX_CONTROLLER_FAILURES in a row, /healthz fails so the kubelet restarts the pod.
      retry({
        delay: (error: unknown, count: number) => {
          this.failures.set(c.name, { count, error });
          const delayMs = Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** (count - 1));
          this.log.error(
            { controller: c.name, error, failures: count, restartInMs: delayMs },
            `controller ${c.name} stopped with an error; restarting it in ${delayMs} ms`,
          );
          return timer(delayMs, this.scheduler);
        },
      }),
      this.metrics.tapMetrics(c.name),
      logReconcile(this.log, c.name),
    );
  }

  /**
   * The running controller of a registration (built at `start()`): its Stores, cache and idle
   * signal (`idle$`: nothing queued, running or waiting). `undefined` before start or for an
   * unknown name.
   *
   * ## Example
   * ```ts
   * await firstValueFrom(mgr.controller('widget')!.idle$.pipe(filter(Boolean)));
   * ```
   */
  controller(name: string): Controller<KubeObject> | undefined {
    return this.built.get(name);
  }

  /**
   * `true` while every controller built at start is idle (see {@link controller}); replays the
   * current value. `true` before start.
   */
  get idle$(): Observable<boolean> {
    const all = [...this.built.values()];
    return all.length === 0
      ? of(true)
      : combineLatest(all.map((c) => c.idle$)).pipe(
          map((idle) => idle.every(Boolean)),
          distinctUntilChanged(),
        );
  }

  /** The liveness check of the controller safety net (part of `/healthz`). */
  private controllersLiveness(): ProbeCheck {
    return {
      name: 'controllers',
      check: () => {
        const failing = [...this.failures].filter(([, f]) => f.count >= MAX_CONTROLLER_FAILURES);
        if (failing.length === 0) return { ok: true };
        return {
          ok: false,
          reason: failing
            .map(([name, f]) => `controller ${name} failed ${f.count} times in a row: ${errorText(f.error)}`)
            .join('; '),
        };
      },
    };
  }
}

function describe(t: WatchTarget): string {
  const where = t.namespace === undefined ? '' : ` in ${t.namespace}`;
  const selector = t.labelSelector === undefined ? '' : ` (${t.labelSelector})`;
  return `${resourceLabel(t.resource)}${where}${selector}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function validate(options: ManagerOptions): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError(OPERATOR, 'options', options, 'must be an object with { client, name }');
  }
  if (typeof options.name !== 'string' || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(options.name)) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.name',
      options.name,
      'must be a lower-case DNS name like "widget-operator" (it names the lease and the logs)',
    );
  }
  if (options.namespaces !== undefined) {
    if (
      !Array.isArray(options.namespaces) ||
      options.namespaces.some((n) => typeof n !== 'string' || n === '')
    ) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.namespaces',
        options.namespaces,
        'must be an array of namespace names (or omitted for all namespaces)',
      );
    }
  }
  if (options.concurrency !== undefined)
    assertNumber(OPERATOR, 'options.concurrency', options.concurrency, 1, true);
  if (options.shutdownTimeoutMs !== undefined) {
    assertNumber(OPERATOR, 'options.shutdownTimeoutMs', options.shutdownTimeoutMs, 0, false);
  }
  for (const port of ['healthPort', 'metricsPort'] as const) {
    const value = options[port];
    if (value !== undefined && value !== false) {
      assertNumber(OPERATOR, `options.${port}`, value, 0, true, ' (0 picks a free port) or false');
    }
  }
}
