/**
 * `Manager`: runs an operator's controllers the way production expects — controller-runtime's
 * Manager. It shares one watch per resource/namespace/selector between its controllers, reconciles
 * only while it leads (Lease election, optional), keeps caches warm on standby, serves `/healthz`,
 * `/readyz` and `/metrics`, logs one line per reconcile, and shuts down gracefully: intake stops,
 * reconciles in flight and their status writes finish (up to a deadline), the lease is released.
 *
 * What it does not do: install signal handlers unless asked (`run()` does), or manage CRDs (do
 * that in `setup`). A lost lease stops it (`run()` then resolves 1) unless `onLeaderLoss: 'campaign'`.
 *
 * Length: about 600 lines, of which about 180 are the TSDoc of the public class users read; the
 * parts that are ideas of their own live beside it (options and validation, the restart safety
 * net, the election status, runnables, probe servers, a registration's options, signals).
 *
 * @module
 */
import type { Logger } from 'pino';
import type { Action } from '@rxkube/core';
import type { SchedulerLike, Subscription, Observable } from 'rxjs';
import {
  asyncScheduler,
  BehaviorSubject,
  EMPTY,
  firstValueFrom,
  from,
  combineLatest,
  distinctUntilChanged,
  map,
  of,
  merge,
  race,
  ReplaySubject,
  Subject,
  switchMap,
  takeUntil,
  timer,
} from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import { directObservable } from '../internal/direct.js';
import type {
  Controller,
  ControllerOptions,
  ControllerReconcile,
  ControllerResult,
} from '../controller/controller.js';
import { controller } from '../controller/controller.js';
import type { ControllerPlan } from '../controller/validate-options.js';
import { planController } from '../controller/validate-options.js';
import { ownerScopeRefusalByDiscovery } from '../controller/owner-scopes.js';
import { groupOf } from '../controller/watches.js';
import type { EnsureCrdOptions, EnsureCrdResult } from '../crd/ensure-crd.js';
import type { CrdInput } from '../crd/load-crd.js';
import { EventRecorder } from '../events/event-recorder.js';
import { defaultIdentity, LeaderElector } from '../leader/leader-elector.js';
import { ControllerMetrics } from '../ops/metrics.js';
import { controllerLogger, createLogger, reconcileLine } from '../ops/logging.js';
import type { ProbeCheck, ProbeServer } from '../ops/probes.js';
import { WatchHealthChecks } from '../ops/probes.js';
import { WatchFailureLog } from '../ops/watch-failure-log.js';
import { DEFAULT_STUCK_RECONCILE_THRESHOLD_MS, WorkqueueProgress } from '../ops/workqueue-progress.js';
import type { WorkqueueProgressObserver } from '../ops/workqueue-progress.js';
import type { ControllerMetricsObserver } from '../ops/metrics.js';
import type { ControllerLogger, ControllerObserver } from '../controller/options.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { watchTargetKey } from '../reflector/watch-registry.js';
import type { KubeObject, ResourceType } from '../types.js';
import type { SharedWatch } from '../reflector/share-watch.js';
import type { WatcherHealth } from '../watcher/health.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
import { ManagerSharding } from '../shard/manager-sharding.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { ControllerSupervisor } from './controller-supervisor.js';
import { NamespaceScopeGuard } from './namespace-scope.js';
import { CrdInstaller } from './crd-installer.js';
import { ElectionStatus } from './election-status.js';
import type { ManagerOptions, ShutdownReport } from './manager-options.js';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, validate } from './manager-options.js';
import type { ManagedController, ManagedControllerOptions, ManagerDescription } from './registration.js';
import { checkRegistration } from './registration.js';
import { Runnables } from './runnables.js';
import type { WebhookServerOptions } from '../webhook/webhook-server.js';
import { WebhookServer } from '../webhook/webhook-server.js';
import { cachesCheck, startManagerServers } from './probe-servers.js';
import { ServedKinds } from './served-kinds.js';
import { managedOptions, scopeOf } from './managed-options.js';
import type { Client } from '../client/client.js';
import { FlightRecorder } from '../record/flight-recorder.js';
import { dryRunClient, inReconcile, recordingClient } from '../record/write-client.js';
import { objectKey } from '../types.js';
import type { ManagerRunOptions } from './run-until-signal.js';
import { runUntilSignal } from './run-until-signal.js';

const OPERATOR = 'Manager';

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
 *   cancelled, timers dropped); then the manager stops (controller-runtime's behaviour: `finished`
 *   resolves with `leaderLost`, `run()` with 1) — or, with `onLeaderLoss: 'campaign'`, winning the
 *   lease again starts them afresh from the warm caches.
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
  /** What every controller's workqueue runs now: the stuck-worker metrics, panics and health check. */
  readonly progress: WorkqueueProgress;
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
  private readonly watchHealth = new WatchHealthChecks({ notServed: false });
  private readonly servedKinds = new ServedKinds((resource) => this.watching(resource));
  private readonly watchFailures: WatchFailureLog;
  private readonly controllers: ManagedController[] = [];
  private readonly runnables = new Runnables();
  private readonly recorders = new Map<string, EventRecorder>();
  private readonly crds: CrdInstaller;
  private readonly results = new Subject<ControllerResult>();
  private readonly shutdown = new ReplaySubject<void>(1);
  private readonly subscriptions: Subscription[] = [];
  private servers: ProbeServer[] = [];
  private webhookServer: WebhookServer | undefined;
  private state: State = 'new';
  private running = 0;
  private work: { done: Promise<void>; subscription: Subscription } | undefined;
  private stopping: Promise<ShutdownReport> | undefined;
  private leaderLost = false;
  private resolveFinished!: (report: ShutdownReport) => void;
  /** Resolves with the shutdown report once the manager stopped: `stop()`, or a lost leader Lease. */
  readonly finished: Promise<ShutdownReport> = new Promise((resolve) => (this.resolveFinished = resolve));
  private readonly election: ElectionStatus | undefined;
  /** `apiVersion/kind` of primary kinds discovery reports cluster-scoped. */
  private readonly clusterScoped = new Set<string>();
  /** The controllers built at start, by registration name. */
  private readonly built = new Map<string, Controller<KubeObject>>();
  /** Flags cluster-wide watches of namespaced kinds asked of a namespace-restricted manager. */
  private readonly namespaceScope: NamespaceScopeGuard;
  /** The restart safety net of controller runs. */
  private readonly supervisor: ControllerSupervisor;
  /** The shard ring, when `sharding` is set. */
  readonly sharding: ManagerSharding | undefined;
  /** The flight recorder, when `record` is set. */
  private readonly flight: FlightRecorder | undefined;

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
    this.progress = new WorkqueueProgress(this.metrics.registry, this.scheduler);
    this.watchFailures = new WatchFailureLog(this.log);
    this.crds = new CrdInstaller(options.client, options.name, this.log, this.scheduler);
    const scope = new NamespaceScopeGuard(
      options.namespaces ?? [],
      () => this.targets(),
      options.client.discovery,
      this.log,
    );
    this.namespaceScope = scope;
    const health = (target: WatchTarget, h: WatcherHealth): void => {
      this.metrics.recordWatchHealth(target, h);
      this.watchHealth.record(target, h);
      this.servedKinds.record(target, h);
      this.watchFailures.record(target, h);
    };
    // A sharded controller's primary watch carries only its replica's buckets (issue 22).
    const sharded = (target: WatchTarget): SharedWatch<KubeObject> | undefined =>
      this.sharding?.watch(target, this.shardedTargets(), {
        ...(options.watcher !== undefined ? { watcher: options.watcher } : {}),
        health: (h) => health(target, h),
        scheduler: this.scheduler,
      });
    this.registry = new (class extends WatchRegistry {
      override watch<T extends KubeObject = KubeObject>(
        target: WatchTarget & { readonly resource: ResourceType<T> },
      ): SharedWatch<T> {
        scope.note(target);
        return (sharded(target) as SharedWatch<T> | undefined) ?? super.watch(target);
      }
    })(
      options.client,
      { ...(options.watcher !== undefined ? { watcher: options.watcher } : {}), health },
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
    this.election = this.elector && new ElectionStatus(this.elector, this.log);
    this.sharding =
      options.sharding === undefined
        ? undefined
        : new ManagerSharding(
            options.client,
            options.sharding,
            this.identity,
            this.log,
            this.metrics.registry,
            () => void this.stop(),
          );
    this.supervisor = new ControllerSupervisor(this.log, this.scheduler);
    this.results$ = this.results.asObservable();
    const record = options.record;
    this.flight =
      record === undefined || record instanceof FlightRecorder
        ? record
        : new FlightRecorder(record, this.scheduler);
  }

  /**
   * The client controller `c` writes through: `client`, its writes recorded (`record`) and sent
   * as dry runs (`dryRun`). One decorator per concern, none of them editing a port.
   */
  private writer(c: ManagedController | undefined): Client {
    let client: Client = this.client;
    if (this.flight !== undefined) {
      client = recordingClient(client, this.flight, {
        ...(c !== undefined ? { controller: c.name, primary: c.options.for } : {}),
      });
    }
    if (this.options.dryRun === true) {
      client = dryRunClient(client, controllerLogger(this.log.child({ component: 'dry-run' })));
    }
    return client;
  }

  /** Starts the flight recorder: the header, then every event of every target the controllers watch. */
  private async startRecording(flight: FlightRecorder): Promise<void> {
    const targets = this.targets();
    const resources = [];
    const seen = new Set<string>();
    for (const t of targets) {
      const id = `${t.resource.apiVersion}/${t.resource.kind}`;
      if (seen.has(id)) continue;
      seen.add(id);
      try {
        const r = await this.client.discovery.resolve(t.resource);
        resources.push({
          apiVersion: r.apiVersion,
          kind: r.kind,
          plural: r.plural,
          namespaced: r.namespaced,
          subresources: r.subresources,
        });
      } catch {
        // not served (yet): replay guesses from the objects
      }
    }
    flight.start({
      name: this.name,
      controllers: this.controllers.map((c) => c.name),
      ...(this.options.namespaces !== undefined ? { namespaces: this.options.namespaces } : {}),
      resources,
    });
    for (const t of targets) {
      this.subscriptions.push(this.registry.watch(t).events$.subscribe((e) => flight.event(t, e)));
    }
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
    checkRegistration(this.controllers, name, reconcile);
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
    this.runnables.add(name, run, options);
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
   * Refuses, through discovery, an `owns` entry that cannot work: a cluster-scoped child kind under
   * a namespaced `for` kind (Kubernetes does not let a cluster-scoped object have a namespaced
   * owner; the garbage collector ignores such references, so its events could never name an
   * owner). A cluster-scoped owner of namespaced children works (issue 18 §1). Kinds discovery
   * does not know yet are not checked. `start()` calls it.
   *
   * @throws {InvalidArgumentError} naming the registration and the `owns` entry.
   */
  async checkOwnerScopes(): Promise<void> {
    for (const c of this.controllers) {
      const refused = await ownerScopeRefusalByDiscovery(
        `${OPERATOR}.add("${c.name}")`,
        c.options.for,
        c.options.owns ?? [],
        (type) => this.client.discovery.resolve(type),
      );
      if (refused !== undefined) throw refused;
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

  /** The registered controllers that watch `resource` (for, owns or watches), by name. */
  private watching(resource: { readonly apiVersion: string; readonly kind: string }): string[] {
    return this.controllers
      .filter((c) => {
        const plan = this.plan(c);
        return [plan.primary, ...plan.owned, ...plan.mapped].some((k) =>
          k.targets.some(
            (t) => t.resource.apiVersion === resource.apiVersion && t.resource.kind === resource.kind,
          ),
        );
      })
      .map((c) => c.name);
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
      leaseName: this.elector?.leaseName,
      shardNamespace: this.sharding?.ring.options.namespace,
      webhooks: this.webhookServer?.describe(),
    };
  }

  /**
   * Readiness checks of `/readyz`: `caches` (every watch listed once), `watches` (none refused with
   * 400/401/403/404, naming it), `kinds` (no watched kind waiting to be served — a CRD not installed
   * or not Established yet — naming the kind, what to install and the controllers that wait for
   * it), `crds`, `watch-scope` (with `namespaces`: no
   * namespaced kind watched across all namespaces through {@link registry}) and, with election,
   * `leader-election` (the lease is not refused with 401/403).
   */
  readinessChecks(): ProbeCheck[] {
    const targets = this.targets();
    const checks: ProbeCheck[] = [
      cachesCheck(targets, this.registry, () => this.state !== 'new'),
      this.watchHealth.check,
      this.servedKinds.check,
      this.crds.check,
      this.namespaceScope.check,
    ];
    if (this.election !== undefined) checks.push(this.election.check);
    if (this.sharding !== undefined) checks.push(this.sharding.check);
    return checks;
  }

  /**
   * Liveness checks of `/healthz` besides the event loop and the controllers' restart safety net:
   * `reconciles` fails while a reconcile has run for `stuckReconcileThresholdMs` or longer (default
   * {@link DEFAULT_STUCK_RECONCILE_THRESHOLD_MS}), naming its controller and key.
   */
  livenessChecks(): ProbeCheck[] {
    return [
      this.progress.check(this.options.stuckReconcileThresholdMs ?? DEFAULT_STUCK_RECONCILE_THRESHOLD_MS),
    ];
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
    try {
      await this.checkOwnerScopes();
    } catch (error) {
      this.state = 'stopped';
      throw error;
    }
    try {
      this.servers = await startManagerServers(this.name, this.options, {
        checks: this.readinessChecks(),
        liveness: [this.supervisor.liveness(), ...this.livenessChecks()],
        registry: this.metrics.registry,
      });
      await this.webhookServer?.start();
    } catch (error) {
      this.state = 'stopped';
      await this.closeServers();
      throw error;
    }
    // stop() may have been called while this awaited (a SIGTERM during start-up): start nothing.
    if (this.stopping !== undefined) {
      await this.closeServers();
      return;
    }
    if (this.flight !== undefined) await this.startRecording(this.flight);
    if (this.options.warmStandby !== false) {
      for (const t of this.targets()) this.subscriptions.push(this.registry.watch(t).events$.subscribe());
    }
    if (this.sharding !== undefined) {
      try {
        await this.sharding.start();
      } catch (error) {
        this.state = 'stopped';
        this.sharding.stop();
        await this.closeServers();
        throw error;
      }
    }
    const elector = this.elector;
    if (elector !== undefined && this.election !== undefined) {
      this.subscriptions.push(...this.election.start(this.metrics));
      if (this.options.onLeaderLoss !== 'campaign') this.subscriptions.push(this.stopOnLeaderLoss(elector));
    }
    this.subscriptions.push(...this.runnables.start(this.leadership$, this.log));
    const runs$ = this.leadership$.pipe(
      // Deliberately before switchMap: a shutdown ends leadership changes (no controller starts
      // afterwards) but lets the running controllers drain; losing the lease cancels them.
      // eslint-disable-next-line rxjs-x/no-unsafe-takeuntil
      takeUntil(this.shutdown),
      switchMap((leading) =>
        leading
          ? merge(...this.controllers.filter((c) => !this.everywhere(c)).map((c) => this.runController(c)))
          : EMPTY,
      ),
    );
    // Sharded controllers run on every member: their fences, not the leader Lease, gate them.
    const everywhere = this.controllers.filter((c) => this.everywhere(c));
    // without any, no merge stage for every result to pass
    const all$ =
      everywhere.length === 0 ? runs$ : merge(runs$, ...everywhere.map((c) => this.runController(c)));
    let resolveDone!: () => void;
    const done = new Promise<void>((resolve) => (resolveDone = resolve));
    const subscription = all$.subscribe({
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

  /**
   * controller-runtime's default: a leader that loses its Lease ends (the runs were cancelled when
   * leadership dropped); its Deployment starts a fresh process. `onLeaderLoss: 'campaign'` keeps it.
   */
  private stopOnLeaderLoss(elector: LeaderElector): Subscription {
    let led = false;
    return elector.leadership$.subscribe((leading) => {
      if (leading) led = true;
      else if (led && !this.leaderLost && this.stopping === undefined) {
        this.leaderLost = true;
        this.log.error(
          { lease: `${elector.leaseNamespace}/${elector.leaseName}`, identity: elector.identity },
          "leader election lost: stopping the manager (exit code 1; the Deployment restarts it). Set onLeaderLoss: 'campaign' to campaign again instead",
        );
        void this.stop();
      }
    });
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
  async run(options: ManagerRunOptions = {}): Promise<number> {
    return runUntilSignal(this, this.options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS, options);
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
    await this.sharding?.leave();
    await this.election?.release(this.metrics);
    await this.closeServers();
    this.flight?.close();
    this.results.complete();
    this.state = 'stopped';
    const report: ShutdownReport = {
      drained,
      cancelled,
      durationMs: this.scheduler.now() - started,
      ...(this.leaderLost ? { leaderLost: true as const } : {}),
    };
    if (wasStarted) this.log.info(report, 'manager stopped');
    this.resolveFinished(report);
    return report;
  }

  private async closeServers(): Promise<void> {
    const servers = this.servers;
    this.servers = [];
    // webhooks answer until the end: reconciles draining above may still write through them
    await Promise.all([...servers.map((s) => s.close()), this.webhookServer?.stop()]);
  }

  /**
   * The manager's webhook server (controller-runtime's `mgr.GetWebhookServer()`), made on the first
   * call with `options`: register validating, mutating and conversion handlers on it before
   * `start()`. It listens when the manager starts — on every replica, leader or not — and closes
   * last when it stops; its metrics go to the manager's registry, its logs to the manager's logger.
   *
   * ## Example
   * ```ts
   * import { allowed, denied } from '@rxkube/kube/webhook';
   * mgr.webhooks({ tls: { certFile: '/certs/tls.crt', keyFile: '/certs/tls.key' } })
   *   .validate<Widget>(widgetType, (req) => ((req.object?.spec?.size ?? 0) <= 10 ? allowed() : denied('size > 10')));
   * ```
   * @throws {InvalidArgumentError} after `start()`, or for a bad option.
   */
  webhooks(options?: Omit<WebhookServerOptions, 'log' | 'registry'>): WebhookServer {
    if (this.webhookServer !== undefined) return this.webhookServer;
    if (this.state !== 'new' || options === undefined) {
      throw new InvalidArgumentError(
        `${OPERATOR}.webhooks`,
        'options',
        options,
        'must be given on the first call, before start()',
      );
    }
    this.webhookServer = new WebhookServer({
      ...(this.options.host !== undefined ? { host: this.options.host } : {}),
      // handler deadlines and the certificate renewal timer on the manager's clock
      scheduler: this.scheduler,
      client: this.client,
      ...options,
      log: this.log.child({ component: 'webhook' }),
      registry: this.metrics.registry,
    });
    return this.webhookServer;
  }

  /** The controller options of a registration, in the manager's scope; `run` adds what a run needs. */
  private controllerOptions(
    c: ManagedController,
    run?: { readonly recorder: EventRecorder | undefined },
  ): ControllerOptions<KubeObject> {
    const scope = scopeOf(c.options, this.clusterScoped, this.options.namespaces);
    const supplies = {
      client: this.writer(c),
      registry: this.registry,
      shutdown: this.shutdown,
      concurrency: this.options.concurrency,
      reconcileTimeoutMs: this.options.reconcileTimeoutMs,
    };
    const options = managedOptions(
      c,
      scope,
      supplies,
      run &&
        ((concurrency) => ({
          log: withoutControllerField(controllerLogger(this.log.child({ controller: c.name }))),
          observer: bothObservers(
            this.metrics.observer(c.name, { maxConcurrentReconciles: concurrency }),
            this.progress.observer(c.name),
          ),
          ...(run.recorder !== undefined ? { recorder: run.recorder } : {}),
          ...(this.options.tracing !== undefined && c.options.tracing === undefined
            ? { tracing: this.options.tracing }
            : {}),
        })),
    );
    if (run === undefined || this.sharding === undefined) return options;
    // Sharded: admit only keys of held buckets; request a bucket's keys when it is acquired.
    const single = c.options.single === true;
    if (single && this.elector !== undefined) return options;
    return {
      ...options,
      ...this.sharding.hooks(options, single, () => this.built.get(c.name)?.stores.primary),
    };
  }

  /**
   * Keys of the watch targets that are only ever the primary of sharded controllers (not `single`,
   * not watched by any other role): their watches carry only this replica's buckets.
   */
  /**
   * The watch targets that carry only this replica's buckets: a sharded controller's primary
   * (mapped to `undefined`), and with `key: 'uid'` its owned kinds (mapped to the primary kind:
   * a child is in its controller owner's bucket) — each only when no other role, or owner kind,
   * watches the same target.
   */
  private shardedTargets(): ReadonlyMap<string, ResourceType | undefined> {
    const roles = new Map<string, Set<string>>();
    const sharded = new Map<string, ResourceType | undefined>();
    const other = new Set<string>();
    const byOwner = this.sharding?.ring.options.key === 'uid';
    const note = (key: string, role: string, owner: ResourceType | undefined, ok: boolean): void => {
      let seen = roles.get(key);
      if (seen === undefined) roles.set(key, (seen = new Set()));
      seen.add(role);
      if (ok) sharded.set(key, owner);
      else other.add(key);
    };
    for (const c of this.controllers) {
      const plan = this.plan(c);
      const primaryOnly = this.everywhere(c) && c.options.single !== true;
      for (const t of plan.primary.targets) note(watchTargetKey(t), 'primary', undefined, primaryOnly);
      const owner = c.options.for;
      const ownerRole = `owned by ${groupOf(owner.apiVersion)}/${owner.kind}`;
      for (const kind of plan.owned) {
        for (const t of kind.targets) note(watchTargetKey(t), ownerRole, owner, primaryOnly && byOwner);
      }
      for (const kind of plan.mapped) {
        for (const t of kind.targets) note(watchTargetKey(t), 'mapped', undefined, false);
      }
    }
    for (const [key, seen] of roles) if (seen.size > 1) other.add(key);
    for (const key of other) sharded.delete(key);
    return sharded;
  }

  /** Whether a registration runs on every replica (sharded) rather than under the leader Lease. */
  private everywhere(c: ManagedController): boolean {
    return this.sharding !== undefined && (this.elector === undefined || c.options.single !== true);
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
    const recorder = new EventRecorder(this.writer(c), {
      reportingController: `${this.name}/${c.name}`,
      reportingInstance: this.identity,
    });
    this.recorders.set(c.name, recorder);
    return recorder;
  }

  private runController(c: ManagedController): Observable<ControllerResult> {
    const recorder = this.recorderFor(c);
    // Counted while running, for the shutdown report (cancelled ones finalize too). The reconcile
    // is called here, synchronously: a synchronous throw (or a missing result) reaches the
    // controller's user-code guard as it is — counted, logged as user code — and is never
    // counted as running (issue 19 §2).
    const flight = this.flight;
    const reconcile: ControllerReconcile<KubeObject> =
      flight === undefined
        ? c.reconcile
        : (request, ctx) => inReconcile(c.name, objectKey(request), () => c.reconcile(request, ctx));
    const counted: ControllerReconcile<KubeObject> = (request, ctx) => {
      const out = reconcile(request, ctx);
      if (out === undefined || out === null) return out;
      // An array (a synchronous reconcile's `[action]`) is told as `from` would, without an
      // Observable and a subscription of its own; anything else goes through `from`, which throws
      // here for what is not an ObservableInput: the guard reports it.
      const items = Array.isArray(out) ? (out as readonly Action[]) : undefined;
      const out$ = items === undefined ? from(out) : undefined;
      // one direct Observable (the controller's work runs it without a Subscriber) instead of
      // defer + finalize: this runs once per reconcile
      return directObservable<Action>((sink) => {
        this.running++;
        if (items !== undefined) {
          try {
            for (const item of items) {
              if (sink.closed) break;
              sink.next(item);
            }
            if (!sink.closed) sink.complete();
          } finally {
            this.running--;
          }
          return undefined;
        }
        const subscription = out$!.subscribe(sink);
        return () => {
          subscription.unsubscribe();
          this.running--;
        };
      });
    };
    let built = this.built.get(c.name);
    if (built === undefined) {
      built = this.build(c, recorder);
      this.built.set(c.name, built);
    }
    const ctrl = built;
    // metrics and the log line of each result in one stage (was tapMetrics · logReconcile)
    const metrics = this.metrics;
    const line = reconcileLine(this.log, c.name);
    return this.supervisor.supervise(
      c.name,
      () => ctrl.run(counted),
      (r) => {
        metrics.recordResult(c.name, r);
        line(r);
      },
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
}

/** One observer feeding both the workqueue metrics and the progress (stuck workers, panics). */
function bothObservers(
  metrics: ControllerMetricsObserver,
  progress: WorkqueueProgressObserver,
): ControllerObserver {
  return {
    userCodeError: (hook) => metrics.userCodeError?.(hook),
    enqueued: (key, depth) => metrics.enqueued?.(key, depth),
    coalesced: (key) => metrics.coalesced?.(key),
    started: (key, queuedMs, active) => {
      metrics.started?.(key, queuedMs, active);
      progress.started?.(key, queuedMs, active);
    },
    finished: (key, durationMs, active) => {
      metrics.finished?.(key, durationMs, active);
      progress.finished?.(key, durationMs, active);
    },
    reset: () => {
      metrics.reset?.();
      progress.reset();
    },
    panicked: () => progress.panicked(),
  };
}

/**
 * A controller logger whose lines drop the `controller` field: the child logger already binds it,
 * and pino would write the key twice (duplicate JSON keys, issue 19 §5).
 */
function withoutControllerField(log: ControllerLogger): ControllerLogger {
  const strip =
    (write: ((message: string, fields: Readonly<Record<string, unknown>>) => void) | undefined) =>
    (message: string, fields: Readonly<Record<string, unknown>>): void => {
      const { controller: _controller, ...rest } = fields;
      write?.(message, rest);
    };
  return {
    debug: strip(log.debug?.bind(log)),
    info: strip(log.info?.bind(log)),
    warn: strip(log.warn?.bind(log)),
    error: strip(log.error?.bind(log)),
  };
}
