/**
 * The options of a `Manager`, their defaults and their validation, apart from the Manager that
 * runs them (one idea per file: what a Manager is told, and how it runs).
 *
 * @module
 */
import type { Logger } from 'pino';
import type { SchedulerLike } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type { LeaderElectionOptions } from '../leader/leader-elector.js';
import type { ControllerMetrics } from '../ops/metrics.js';
import type { ShardingOptions } from '../shard/options.js';
import type { ReconcileTracing } from '../controller/tracing.js';
import type { FlightRecorder, RecordOptions } from '../record/flight-recorder.js';
import type { WatcherConfig } from '../watcher/config.js';
import { assertNumber, InvalidArgumentError } from '../internal/invalid-argument.js';

const OPERATOR = 'Manager';

/**
 * Failures in a row after which `/healthz` fails (the kubelet then restarts the pod).
 *
 * ## Example
 * ```ts
 * // after this many failed runs of one controller in a row, GET /healthz answers 500 and the kubelet restarts the pod
 * console.log(`liveness fails after ${MAX_CONTROLLER_FAILURES} controller failures in a row`);
 * ```
 */
export const MAX_CONTROLLER_FAILURES = 5;
/**
 * controller-runtime's graceful shutdown timeout: 30 s.
 *
 * ## Example
 * ```ts
 * // let reconciles in flight finish for up to a minute on stop()
 * new Manager({ client, name: 'widget-operator', shutdownTimeoutMs: 2 * DEFAULT_SHUTDOWN_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

/**
 * Leader election settings of a `Manager`; `leaseName` defaults to the manager's name.
 *
 * ## Example
 * ```ts
 * const leaderElection: ManagerLeaderElectionOptions = { leaseNamespace: 'operators', leaseDurationMs: 30_000, renewDeadlineMs: 20_000 };
 * new Manager({ client, name: 'widget-operator', leaderElection }); // leaseName: 'widget-operator'
 * ```
 */
export interface ManagerLeaderElectionOptions extends Partial<LeaderElectionOptions> {
  /** The elector's clock and timers (a virtual-time scheduler in tests). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Options of `Manager`.
 *
 * ## Example
 * ```ts
 * const options: ManagerOptions = {
 *   client: KubeClient.default(),
 *   name: 'widget-operator',
 *   namespaces: ['team-a', 'team-b'],
 *   leaderElection: true,
 *   healthPort: 8081,
 *   metricsPort: 8080,
 * };
 * const mgr = new Manager(options);
 * ```
 */
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
  /**
   * Default `reconcileTimeoutMs` of controllers that do not set one (controller-runtime's
   * `ReconciliationTimeout`): a reconcile running longer is cancelled, its `ctx.signal` aborted, and
   * retried with backoff; `false` turns it off. Default `DEFAULT_RECONCILE_TIMEOUT_MS` (5 min).
   */
  readonly reconcileTimeoutMs?: number | false;
  /**
   * Traces the reconciles of every controller that sets no `tracing` of its own
   * (`reconcileTracing(tracer)` from `@rxkube/kube/trace`). Default: off, nothing of
   * OpenTelemetry loaded.
   */
  readonly tracing?: ReconcileTracing;
  /**
   * `/healthz` fails (check `reconciles`, naming the controller and key) while a reconcile has run
   * this long. Default `DEFAULT_STUCK_RECONCILE_THRESHOLD_MS` (10 min, twice the default deadline:
   * it fires when a deadline was turned off or raised and a reconcile hung).
   */
  readonly stuckReconcileThresholdMs?: number;
  /**
   * What losing the leader Lease does (with `leaderElection`): `'stop'` (default, controller-runtime's
   * behaviour) stops the manager — the work was already cancelled, one error line says so,
   * `run()` resolves 1 and `rxkube run` exits 1, so the Deployment restarts the pod with fresh
   * state; `'campaign'` keeps the process and its warm caches and campaigns again.
   */
  readonly onLeaderLoss?: 'stop' | 'campaign';
  /** Lease-based leader election; `true` for the defaults. Default off (controller-runtime's). */
  readonly leaderElection?: boolean | ManagerLeaderElectionOptions;
  /** Port of `/healthz`, `/readyz` (and `/metrics` when `metricsPort` is not set); `false`/absent: none. */
  readonly healthPort?: number | false;
  /** Port of `/metrics` alone; `false`/absent: metrics are served on `healthPort` (if any). */
  readonly metricsPort?: number | false;
  /** Interface the probe and metrics servers bind (with `healthPort`/`metricsPort`); default all. */
  readonly host?: string;
  /**
   * Where `/healthz` and `/readyz` listen, as controller-runtime's `HealthProbeBindAddress`:
   * `host:port` (`127.0.0.1:8081`, `[::1]:8081`), `:port` for every interface, `"0"` for none.
   * Set, it replaces `healthPort` and `host` for the probe server. Default: `healthPort`.
   */
  readonly healthProbeBindAddress?: string;
  /**
   * Where `/metrics` listens, as controller-runtime's `Metrics.BindAddress`: `host:port`, `:port`
   * for every interface, `"0"` for no metrics at all (not even on the probe server). Set, it
   * replaces `metricsPort` and `host` for metrics. Default: `metricsPort`.
   */
  readonly metricsBindAddress?: string;
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
  /**
   * Flight recorder (issue 24, `@rxkube/kube/record`): every watch event the controllers receive
   * and every write they make (with its outcome), as NDJSON with Secret data and credentials
   * removed, size-capped and rotated — for `rxkube replay`. Options, or a `FlightRecorder` of your
   * own. Default off.
   */
  readonly record?: RecordOptions | FlightRecorder;
  /**
   * Sends every write of the controllers (and their Events) with `dryRun=All` and logs what it
   * would change: nothing is persisted. What `setup` writes through `mgr.client` (`ensureCrd`) is
   * not dry-run. Refused with `leaderElection` or `sharding`: a dry run must not take the running
   * operator's Lease or buckets. Default false.
   */
  readonly dryRun?: boolean;
  /**
   * Shard the controllers' keys across the replicas that name the same ring (issue 22, see
   * `@rxkube/kube/shard` and docs/guides/scaling-out.md). Composes with `leaderElection`:
   * sharded controllers run on every member, `single` ones under the leader Lease. Default off.
   */
  readonly sharding?: ShardingOptions;
}

/**
 * What `Manager.stop` resolves with.
 *
 * ## Example
 * ```ts
 * const report: ShutdownReport = await mgr.stop();
 * if (!report.drained) log.warn({ cancelled: report.cancelled }, 'reconciles cancelled at the shutdown deadline');
 * ```
 */
export interface ShutdownReport {
  /** Every reconcile in flight finished before the deadline. */
  readonly drained: boolean;
  /** Reconciles cancelled at the deadline. */
  readonly cancelled: number;
  /** Scheduler time the shutdown took. */
  readonly durationMs: number;
  /** The manager stopped itself because it lost the leader Lease (`onLeaderLoss: 'stop'`). */
  readonly leaderLost?: true;
}

/**
 * The Manager could not start (a probe or metrics port could not be bound); `cause` says why.
 *
 * ## Example
 * ```ts
 * try {
 *   await mgr.start();
 * } catch (e) {
 *   if (e instanceof ManagerStartError) console.error(e.message, e.cause); // e.g. the health port is in use
 *   throw e;
 * }
 * ```
 */
export class ManagerStartError extends Error {
  readonly _tag = 'ManagerStartError' as const;
  override readonly name = 'ManagerStartError';
  constructor(message: string, cause: unknown) {
    super(message, { cause });
  }
}

/** Where a server listens; `off` when the bind address is `"0"`. */
export type BindAddress = { readonly host?: string; readonly port: number } | 'off';

/**
 * Parses a controller-runtime bind address: `"0"` (off), `:8081` (every interface),
 * `127.0.0.1:8081`, `[::1]:8081`, `localhost:0` (any free port).
 *
 * @throws {InvalidArgumentError} naming `field` for anything else.
 */
export function parseBindAddress(field: string, value: unknown): BindAddress {
  const bad = (): never => {
    throw new InvalidArgumentError(
      OPERATOR,
      field,
      value,
      'must be "host:port" (e.g. "127.0.0.1:8081"), ":port" for every interface, or "0" to serve nothing',
    );
  };
  if (typeof value !== 'string') return bad();
  const text = value.trim();
  if (text === '0') return 'off';
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(text);
  if (m === null) return bad();
  const port = Number(m[3]);
  if (port > 65_535) return bad();
  const host = m[1] ?? m[2] ?? '';
  return host === '' ? { port } : { host, port };
}

/** @throws {InvalidArgumentError} naming the first bad option. */
export function validate(options: ManagerOptions): void {
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
  if (options.reconcileTimeoutMs !== undefined && options.reconcileTimeoutMs !== false)
    assertNumber(OPERATOR, 'options.reconcileTimeoutMs', options.reconcileTimeoutMs, 1, false);
  if (
    options.onLeaderLoss !== undefined &&
    options.onLeaderLoss !== 'stop' &&
    options.onLeaderLoss !== 'campaign'
  ) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.onLeaderLoss',
      options.onLeaderLoss,
      "must be 'stop' or 'campaign'",
    );
  }
  // A dry run beside the running operator must not take its Lease or its buckets: it would stop
  // the real one and reconcile nothing for real.
  if (options.dryRun === true && (options.leaderElection ?? false) !== false) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.leaderElection',
      options.leaderElection,
      'must be off with dryRun: a dry run that won the leader Lease would stop the running operator and write nothing (run it without --leader-elect)',
    );
  }
  if (options.dryRun === true && options.sharding !== undefined) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.sharding',
      options.sharding,
      'must be unset with dryRun: a dry run in the ring would take buckets from the running replicas and write nothing (run it without --shard-ring or RXKUBE_SHARD_RING)',
    );
  }
  if (options.stuckReconcileThresholdMs !== undefined)
    assertNumber(OPERATOR, 'options.stuckReconcileThresholdMs', options.stuckReconcileThresholdMs, 1, false);
  if (options.shutdownTimeoutMs !== undefined) {
    assertNumber(OPERATOR, 'options.shutdownTimeoutMs', options.shutdownTimeoutMs, 0, false);
  }
  for (const address of ['healthProbeBindAddress', 'metricsBindAddress'] as const) {
    if (options[address] !== undefined) parseBindAddress(`options.${address}`, options[address]);
  }
  for (const port of ['healthPort', 'metricsPort'] as const) {
    const value = options[port];
    if (value !== undefined && value !== false) {
      assertNumber(OPERATOR, `options.${port}`, value, 0, true, ' (0 picks a free port) or false');
    }
  }
}
