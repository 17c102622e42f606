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
