/**
 * Prometheus metrics of controllers, their workqueues, their watches and leader election, under
 * controller-runtime's and client-go's names and labels, so existing dashboards and alerts work
 * unchanged. Fed by a `RunByKeyObserver` (workqueue), the reconcile results (reconcile counters
 * and time) and `WatcherHealth` snapshots (watch counters). It does not serve HTTP by itself:
 * {@link metricsHandler} (or `startProbeServer({ registry })`) does.
 *
 * Length: about 520 lines, a quarter of them the help text and TSDoc of each metric; it stays one
 * file because the metric names, labels and buckets are one table that dashboards depend on.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import { asyncScheduler, tap } from 'rxjs';
import type { RunByKeyObserver } from '@rxkube/core';
import { InvalidArgumentError } from '@rxkube/core';

import { promClient } from '../internal/lazy-modules.js';

import type { WatcherHealth } from '../watcher/health.js';
import type { ResourceType } from '../types.js';
import { USER_CODE_HOOKS } from '../user-code-error.js';
import type { UserCodeHook } from '../user-code-error.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { watchTargetKey } from '../reflector/watch-registry.js';
import type { ControllerResult } from '../controller/result.js';

/**
 * controller-runtime's `controller_runtime_reconcile_time_seconds` buckets (seconds).
 *
 * ## Example
 * ```ts
 * import { Histogram } from 'prom-client';
 *
 * // a histogram of your own with the buckets of controller_runtime_reconcile_time_seconds
 * new Histogram({ name: 'widget_sync_seconds', help: 'Widget sync time', buckets: [...RECONCILE_TIME_BUCKETS] });
 * ```
 */
export const RECONCILE_TIME_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
]);

/**
 * client-go's workqueue latency buckets, `ExponentialBuckets(10e-9, 10, 12)`: 1e-8 s … 1e3 s.
 *
 * ## Example
 * ```ts
 * import { Histogram } from 'prom-client';
 *
 * // a histogram of your own with the buckets of workqueue_queue_duration_seconds
 * new Histogram({ name: 'widget_queue_seconds', help: 'Widget queue time', buckets: [...WORKQUEUE_DURATION_BUCKETS] });
 * ```
 */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = Object.freeze(
  Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1))),
);

/**
 * The `result` label values of `controller_runtime_reconcile_total` (controller-runtime's).
 *
 * ## Example
 * ```ts
 * // counted as controller_runtime_reconcile_total{controller="widgets",result="requeue_after"}
 * metrics.recordResult('widgets', { outcome: 'requeue', durationMs: 3, action: Action.requeue(5_000) });
 * const label: ReconcileResultLabel = 'requeue_after';
 * ```
 */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

/**
 * Options of {@link ControllerMetrics}.
 *
 * ## Example
 * ```ts
 * import { Registry } from 'prom-client';
 *
 * const options: ControllerMetricsOptions = { registry: new Registry() };
 * const metrics = new ControllerMetrics(options);
 * ```
 */
export interface ControllerMetricsOptions {
  /** Where the metrics are registered; default a new `Registry` of their own. */
  readonly registry?: Registry;
  /** Clock of the watch "last event age" gauge; must be the watchers' clock. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * A workqueue observer of one controller; `reset()` zeroes its depth and active gauges.
 *
 * ## Example
 * ```ts
 * const observer: ControllerMetricsObserver = metrics.observer('widgets', { maxConcurrentReconciles: 4 });
 * controller({ for: widgetType, client, concurrency: 4, observer });
 * ```
 */
export interface ControllerMetricsObserver extends RunByKeyObserver<unknown> {
  /**
   * Call when the controller's pipeline stops: runs cancelled by an unsubscribe never report
   * `finished`, and dropped waiting keys never `started`, so the gauges would stay up.
   */
  reset(): void;
  /** Counts a user function that failed: `rxkube_user_code_errors_total{controller,hook}`. */
  userCodeError(hook: UserCodeHook): void;
}

interface QueueState {
  depth: number;
  active: number;
}

/**
 * One controller's metric children, bound once (prom-client `labels(...)`): the per-event path
 * builds no label object and walks no label names (issue 21: hashing labels on every reconcile
 * cost 0.8 s of 11.7 s at 10,000 events/s).
 */
interface BoundResults {
  readonly total: Map<string, { inc(value?: number): void }>;
  readonly errors: { inc(value?: number): void };
  readonly terminal: { inc(value?: number): void };
  readonly retries: { inc(value?: number): void };
  readonly time: { observe(value: number): void };
}

/** A bound counter child: adds to a plain number, folded into its prom-client Counter at scrape. */
interface PendingChild {
  readonly labels: Readonly<Record<string, string>>;
  pending: number;
}

/**
 * The bound children of one prom-client Counter, counted as plain numbers and folded into the
 * counter by its `collect()` (prom-client calls it before every read: `/metrics`, `get()`).
 * prom-client's own `labels(...).inc()` hashes the label values on every call; this is one
 * addition per event and one `inc(labels, n)` per series per scrape.
 */
class PendingCounts {
  private readonly children = new Map<string, PendingChild>();

  /** The child of `labels` (one per label set, however often asked). */
  child(labels: Readonly<Record<string, string>>): { inc(value?: number): void } {
    const id = Object.values(labels).join('\u0000');
    let child = this.children.get(id);
    if (child === undefined) {
      child = { labels, pending: 0 };
      this.children.set(id, child);
    }
    const c = child;
    return {
      inc: (value = 1) => {
        c.pending += value;
      },
    };
  }

  /** Adds what each child counted since the last flush to `counter`. */
  flush(counter: Counter<string>): void {
    for (const c of this.children.values()) {
      if (c.pending === 0) continue;
      const n = c.pending;
      c.pending = 0;
      counter.inc(c.labels, n);
    }
  }
}

/** One label set of a {@link BoundHistogram}, from its first observation. */
interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Per upper bound (not cumulative); values above the last bound only count in `count`. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * A histogram whose children are bound once and observe into plain arrays: no label hashing and
 * no closure per observation (prom-client's `labels(...).observe` hashes the labels, validates
 * them and builds a closure on every call: ~7% of the event path's CPU at 10k events/s).
 * It is a prom-client metric as the `Registry` reads one (`name`, `help`, `type`, `get`,
 * `getForPromString`, `reset`), and its exposition is prom-client's Histogram's line for line
 * (metrics.test.ts compares the two).
 */
class BoundHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Histogram);
  }

  /** The child of these label values (in `labelNames` order). */
  labels(...values: string[]): { observe(value: number): void } {
    const labels = Object.fromEntries(this.labelNames.map((n, i) => [n, values[i] ?? '']));
    const id = values.join('\u0000');
    const bounds = this.upperBounds;
    let current: HistogramSeries | undefined;
    return {
      observe: (value: number) => {
        if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${String(value)}`);
        // looked up again after a reset() dropped it (the map is the source of truth)
        let s = current;
        if (s === undefined || this.series.get(id) !== s) {
          s = this.series.get(id);
          if (s === undefined) {
            s = { labels, buckets: new Float64Array(bounds.length), sum: 0, count: 0 };
            this.series.set(id, s);
          }
          current = s;
        }
        s.sum += value;
        s.count += 1;
        for (let i = 0; i < bounds.length; i++) {
          if (value <= bounds[i]!) {
            s.buckets[i]! += 1;
            break;
          }
        }
      },
    };
  }

  /** Drops every series (prom-client's `reset`). */
  reset(): void {
    this.series.clear();
  }

  /** The values as prom-client's Histogram gives them to the Registry's text format. */
  getForPromString(): Promise<MetricSnapshot> {
    const bucket = `${this.name}_bucket`;
    const values: MetricSnapshot['values'] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      for (let i = 0; i < this.upperBounds.length; i++) {
        acc += s.buckets[i]!;
        values.push({
          value: acc,
          labels: { le: this.upperBounds[i]! },
          metricName: bucket,
          sharedLabels: s.labels,
          exemplar: null,
        });
      }
      values.push(
        {
          value: s.count,
          labels: { le: '+Inf' },
          metricName: bucket,
          sharedLabels: s.labels,
          exemplar: null,
        },
        { value: s.sum, labels: {}, metricName: `${this.name}_sum`, sharedLabels: s.labels },
        { value: s.count, labels: {}, metricName: `${this.name}_count`, sharedLabels: s.labels },
      );
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    });
  }

  /** The values with each series' labels merged into each value (prom-client's `get`). */
  async get(): Promise<MetricSnapshot> {
    const data = await this.getForPromString();
    return {
      ...data,
      values: data.values.map(({ sharedLabels, labels, ...rest }) => ({
        ...rest,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }
}

/** What a prom-client metric's `get()` resolves to, as far as the Registry reads it. */
interface MetricSnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly aggregator: string;
  readonly values: {
    value: number;
    labels: Record<string, string | number>;
    metricName: string;
    sharedLabels?: Readonly<Record<string, string>>;
    /** prom-client's bucket values carry `exemplar: null` (none recorded). */
    exemplar?: null;
  }[];
}

const OUTCOMES: ReadonlySet<string> = new Set(['success', 'requeue', 'error', 'terminal', 'skipped']);

interface WatchState {
  readonly labels: { readonly resource: string; readonly namespace: string };
  last: WatcherHealth;
}

const WATCH_COUNTERS = [
  ['reconnects', 'rxkube_watch_reconnects_total', 'Watch requests opened after the first one'],
  ['relists', 'rxkube_watch_relists_total', 'Lists restarted because of 410 Gone / Expired'],
  ['gone410s', 'rxkube_watch_gone_total', '410 Gone / Expired answers to a list or watch'],
  ['bookmarks', 'rxkube_watch_bookmarks_total', 'BOOKMARK events received'],
  ['stalls', 'rxkube_watch_stalls_total', 'Watches aborted after no line for the idle timeout'],
  ['errors', 'rxkube_watch_errors_total', 'Failed list and watch requests (network, 4xx, 5xx, ERROR events)'],
  ['malformedLines', 'rxkube_watch_malformed_lines_total', 'Watch lines that could not be parsed'],
] as const;

type WatchCounterField = (typeof WATCH_COUNTERS)[number][0];

const OPERATOR = 'ControllerMetrics';

function assertName(method: string, argument: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '') {
    throw new InvalidArgumentError(
      `${OPERATOR}.${method}`,
      argument,
      value,
      'must be a non-empty string (the controller or lease name used as a label value)',
    );
  }
}

/** `apps/v1/Deployment`, `v1/ConfigMap`: the `resource` label of watch metrics. */
export function resourceLabel(resource: ResourceType): string {
  return `${resource.apiVersion}/${resource.kind}`;
}

/**
 * Maps an outcome to controller-runtime's `result` label: `success` (also `skipped`: the object
 * was gone, which controller-runtime's reconcile answers with success), `requeue_after`
 * (`Action.requeue(ms)` with `ms > 0`), `requeue` (`Action.requeue(0)`, controller-runtime's
 * `Requeue: true`), `error` (also `terminal`).
 */
export function reconcileResultLabel(
  result: Pick<ControllerResult, 'outcome' | 'durationMs' | 'action'>,
): ReconcileResultLabel {
  switch (result.outcome) {
    case 'error':
    case 'terminal':
      return 'error';
    case 'requeue':
      return result.action?.type === 'requeue' && result.action.afterMs > 0 ? 'requeue_after' : 'requeue';
    case 'success':
    case 'skipped':
      return 'success';
  }
}

/**
 * Prometheus metrics of controllers, workqueues, watches and leader election with
 * controller-runtime's and client-go's names, on a `prom-client` `Registry`.
 *
 * | metric | labels | fed by |
 * |---|---|---|
 * | `controller_runtime_reconcile_total` | `controller`, `result` | {@link recordResult} |
 * | `controller_runtime_reconcile_errors_total` | `controller` | {@link recordResult} (`error`, `terminal`) |
 * | `controller_runtime_terminal_reconcile_errors_total` | `controller` | {@link recordResult} (`terminal`) |
 * | `controller_runtime_reconcile_time_seconds` (histogram) | `controller` | {@link recordResult} |
 * | `controller_runtime_max_concurrent_reconciles` | `controller` | {@link observer} option |
 * | `controller_runtime_active_workers` | `controller` | {@link observer} (`started`/`finished`) |
 * | `workqueue_depth`, `workqueue_adds_total` | `name`, `controller` | {@link observer} (`enqueued`/`started`) |
 * | `workqueue_queue_duration_seconds`, `workqueue_work_duration_seconds` | `name`, `controller` | {@link observer} |
 * | `workqueue_retries_total` | `name`, `controller` | {@link recordResult} (`error`, `requeue` without delay) |
 * | `rxkube_watch_*_total`, `rxkube_watch_connected`, `rxkube_watch_last_event_age_seconds` | `resource`, `namespace` | {@link recordWatchHealth} |
 * | `leader_election_master_status` | `name` | {@link setLeader} |
 *
 * ## Example
 * ```ts
 * const metrics = new ControllerMetrics();
 * const registry = new WatchRegistry(client, { health: metrics.recordWatchHealth });
 * controller({ for: widgetType, client, registry, observer: metrics.observer('widget', { maxConcurrentReconciles: 4 }) })
 *   .run(reconcile)
 *   .pipe(metrics.tapMetrics('widget'))
 *   .subscribe();
 * await startProbeServer({ port: 8081, registry: metrics.registry });
 * ```
 *
 * ## Memory
 * One entry per controller name (queue depth, active runs) and per running watch target (its last
 * health snapshot, dropped by {@link forgetWatch}); label series live as long as the registry.
 */
export class ControllerMetrics {
  /** The registry every metric here is registered on. */
  readonly registry: Registry;
  private readonly scheduler: SchedulerLike;
  private readonly queues = new Map<string, QueueState>();
  private readonly bound = new Map<string, BoundResults>();
  private readonly watches = new Map<string, WatchState>();

  private readonly reconcileTotal: Counter<'controller' | 'result'>;
  private readonly pendingReconcileTotal: PendingCounts;
  private readonly pendingReconcileErrors: PendingCounts;
  private readonly pendingTerminalErrors: PendingCounts;
  private readonly pendingAdds: PendingCounts;
  private readonly pendingRetries: PendingCounts;
  private readonly reconcileErrors: Counter<'controller'>;
  private readonly terminalErrors: Counter<'controller'>;
  private readonly reconcileTime: BoundHistogram;
  private readonly maxConcurrent: Gauge<'controller'>;
  private readonly activeWorkers: Gauge<'controller'>;
  private readonly depth: Gauge<'name' | 'controller'>;
  private readonly adds: Counter<'name' | 'controller'>;
  private readonly queueDuration: BoundHistogram;
  private readonly workDuration: BoundHistogram;
  private readonly retries: Counter<'name' | 'controller'>;
  private readonly userCodeErrors: Counter<'controller' | 'hook'>;
  private readonly watchCounters: ReadonlyMap<WatchCounterField, Counter<'resource' | 'namespace'>>;
  private readonly leader: Gauge<'name'>;

  /**
   * @param options `registry` to register on (default: a new one), `scheduler` for the
   *   last-event-age clock.
   * @throws {InvalidArgumentError} when `options.registry` is not a prom-client `Registry`, or
   *   already holds one of these metric names.
   */
  constructor(options: ControllerMetricsOptions = {}) {
    const { Counter, Gauge, Registry } = promClient();
    const registry = options.registry ?? new Registry();
    if (!(registry instanceof Registry)) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.registry',
        registry,
        'must be a prom-client Registry',
      );
    }
    this.registry = registry;
    this.scheduler = options.scheduler ?? asyncScheduler;
    const registers = [registry];
    // counted per event as plain numbers, folded into the counters at scrape
    const pendingReconcileTotal = (this.pendingReconcileTotal = new PendingCounts());
    const pendingReconcileErrors = (this.pendingReconcileErrors = new PendingCounts());
    const pendingTerminalErrors = (this.pendingTerminalErrors = new PendingCounts());
    const pendingAdds = (this.pendingAdds = new PendingCounts());
    const pendingRetries = (this.pendingRetries = new PendingCounts());
    try {
      this.reconcileTotal = new Counter({
        name: 'controller_runtime_reconcile_total',
        help: 'Total number of reconciliations per controller',
        labelNames: ['controller', 'result'],
        registers,
        collect() {
          pendingReconcileTotal.flush(this);
        },
      });
      this.reconcileErrors = new Counter({
        name: 'controller_runtime_reconcile_errors_total',
        help: 'Total number of reconciliation errors per controller',
        labelNames: ['controller'],
        registers,
        collect() {
          pendingReconcileErrors.flush(this);
        },
      });
      this.terminalErrors = new Counter({
        name: 'controller_runtime_terminal_reconcile_errors_total',
        help: 'Total number of terminal reconciliation errors per controller',
        labelNames: ['controller'],
        registers,
        collect() {
          pendingTerminalErrors.flush(this);
        },
      });
      this.reconcileTime = new BoundHistogram(
        'controller_runtime_reconcile_time_seconds',
        'Length of time per reconciliation per controller',
        ['controller'],
        RECONCILE_TIME_BUCKETS,
        registry,
      );
      this.maxConcurrent = new Gauge({
        name: 'controller_runtime_max_concurrent_reconciles',
        help: 'Maximum number of concurrent reconciles per controller',
        labelNames: ['controller'],
        registers,
      });
      // depth and active workers change on every event: kept as plain numbers per controller
      // and read into the gauges at scrape time
      const queues = this.queues;
      this.activeWorkers = new Gauge({
        name: 'controller_runtime_active_workers',
        help: 'Number of currently used workers per controller',
        labelNames: ['controller'],
        registers,
        collect() {
          for (const [controller, state] of queues) this.set({ controller }, state.active);
        },
      });
      this.depth = new Gauge({
        name: 'workqueue_depth',
        help: 'Current depth of workqueue',
        labelNames: ['name', 'controller'],
        registers,
        collect() {
          for (const [controller, state] of queues) this.set({ name: controller, controller }, state.depth);
        },
      });
      this.adds = new Counter({
        name: 'workqueue_adds_total',
        help: 'Total number of adds handled by workqueue',
        labelNames: ['name', 'controller'],
        registers,
        collect() {
          pendingAdds.flush(this);
        },
      });
      this.queueDuration = new BoundHistogram(
        'workqueue_queue_duration_seconds',
        'How long in seconds an item stays in workqueue before being requested',
        ['name', 'controller'],
        WORKQUEUE_DURATION_BUCKETS,
        registry,
      );
      this.workDuration = new BoundHistogram(
        'workqueue_work_duration_seconds',
        'How long in seconds processing an item from workqueue takes.',
        ['name', 'controller'],
        WORKQUEUE_DURATION_BUCKETS,
        registry,
      );
      this.retries = new Counter({
        name: 'workqueue_retries_total',
        help: 'Total number of retries handled by workqueue',
        labelNames: ['name', 'controller'],
        registers,
        collect() {
          pendingRetries.flush(this);
        },
      });
      this.userCodeErrors = new Counter({
        name: 'rxkube_user_code_errors_total',
        help: 'User functions (reconcile, map, predicate, indexer, transform, cleanup, status, record) that threw, per controller and hook',
        labelNames: ['controller', 'hook'],
        registers,
      });
      this.watchCounters = new Map(
        WATCH_COUNTERS.map(([field, name, help]) => [
          field,
          new Counter({ name, help, labelNames: ['resource', 'namespace'], registers }),
        ]),
      );
      const watches = this.watches;
      const clock = this.scheduler;
      new Gauge({
        name: 'rxkube_watch_connected',
        help: 'Open watch requests per resource and namespace',
        labelNames: ['resource', 'namespace'],
        registers,
        collect() {
          this.reset();
          for (const { labels, last } of watches.values()) this.inc(labels, last.connected ? 1 : 0);
        },
      });
      new Gauge({
        name: 'rxkube_watch_last_event_age_seconds',
        help: 'Seconds since the last watch line (event or bookmark), the oldest per resource and namespace',
        labelNames: ['resource', 'namespace'],
        registers,
        collect() {
          this.reset();
          const now = clock.now();
          const ages = new Map<string, { labels: WatchState['labels']; age: number }>();
          for (const { labels, last } of watches.values()) {
            if (last.lastEventAt === undefined) continue;
            const age = Math.max(0, now - last.lastEventAt) / 1000;
            const id = `${labels.resource}\u0000${labels.namespace}`;
            const seen = ages.get(id);
            if (seen === undefined || age > seen.age) ages.set(id, { labels, age });
          }
          for (const { labels, age } of ages.values()) this.set(labels, age);
        },
      });
      this.leader = new Gauge({
        name: 'leader_election_master_status',
        help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
        labelNames: ['name'],
        registers,
      });
    } catch (error) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.registry',
        registry,
        `must not already hold rxkube's metrics (${error instanceof Error ? error.message : String(error)}); ` +
          'create one ControllerMetrics per registry and share it between controllers',
      );
    }
  }

  /**
   * A `RunByKeyObserver` feeding the workqueue metrics and `active_workers` of one controller;
   * pass it as the controller's / applier's `observer`. Several observers of one name (namespace
   * lanes) share its gauges: depth is enqueued minus started keys, active is started minus
   * finished runs, across all of them.
   *
   * @param controller the controller name (label value of `controller` and `name`).
   * @param options `maxConcurrentReconciles` sets `controller_runtime_max_concurrent_reconciles`.
   * @throws {InvalidArgumentError} for an empty name or a concurrency that is not an integer >= 1.
   */
  observer(
    controller: string,
    options: { readonly maxConcurrentReconciles?: number } = {},
  ): ControllerMetricsObserver {
    assertName('observer', 'controller', controller);
    const max = options.maxConcurrentReconciles;
    if (max !== undefined) {
      if (!Number.isInteger(max) || max < 1) {
        throw new InvalidArgumentError(
          `${OPERATOR}.observer`,
          'options.maxConcurrentReconciles',
          max,
          'must be an integer >= 1 (the controller concurrency)',
        );
      }
      this.maxConcurrent.set({ controller }, max);
    }
    const state = this.queueOf(controller);
    // bound once per observer: the calls below hash no labels of ours
    const adds = this.pendingAdds.child({ name: controller, controller });
    const queueDuration = this.queueDuration.labels(controller, controller);
    const workDuration = this.workDuration.labels(controller, controller);
    for (const hook of USER_CODE_HOOKS) this.userCodeErrors.inc({ controller, hook }, 0);
    return {
      userCodeError: (hook) => this.userCodeErrors.inc({ controller, hook }),
      enqueued: () => {
        state.depth += 1;
        adds.inc();
      },
      started: (_key, queuedMs) => {
        state.depth = Math.max(0, state.depth - 1);
        state.active += 1;
        queueDuration.observe(Math.max(0, queuedMs) / 1000);
      },
      finished: (_key, durationMs) => {
        state.active = Math.max(0, state.active - 1);
        workDuration.observe(Math.max(0, durationMs) / 1000);
      },
      reset: () => {
        state.depth = 0;
        state.active = 0;
      },
    };
  }

  /**
   * Counts one reconcile outcome: `controller_runtime_reconcile_total{result}` (see
   * {@link reconcileResultLabel}), `reconcile_errors_total` for `error` and `terminal`,
   * `terminal_reconcile_errors_total` for `terminal`, `workqueue_retries_total` for `error` and a
   * `requeue` without delay (what controller-runtime re-adds rate-limited), and the reconcile time.
   *
   * @throws {InvalidArgumentError} for an empty controller name or an unknown outcome.
   */
  recordResult(
    controller: string,
    result: Pick<ControllerResult, 'outcome' | 'durationMs' | 'action'>,
  ): void {
    let bound = this.bound.get(controller);
    if (bound === undefined) {
      assertName('recordResult', 'controller', controller);
      bound = {
        total: new Map(),
        errors: this.pendingReconcileErrors.child({ controller }),
        terminal: this.pendingTerminalErrors.child({ controller }),
        retries: this.pendingRetries.child({ name: controller, controller }),
        time: this.reconcileTime.labels(controller),
      };
      this.bound.set(controller, bound);
    }
    if (result === null || typeof result !== 'object' || !OUTCOMES.has(result.outcome)) {
      throw new InvalidArgumentError(
        `${OPERATOR}.recordResult`,
        'result',
        result,
        `must be a reconcile result with outcome one of ${[...OUTCOMES].join(', ')}`,
      );
    }
    const label = reconcileResultLabel(result);
    let total = bound.total.get(label);
    if (total === undefined) {
      total = this.pendingReconcileTotal.child({ controller, result: label });
      bound.total.set(label, total);
    }
    total.inc();
    if (label === 'error') bound.errors.inc();
    if (result.outcome === 'terminal') bound.terminal.inc();
    if (result.outcome === 'error' || label === 'requeue') bound.retries.inc();
    if (Number.isFinite(result.durationMs)) bound.time.observe(Math.max(0, result.durationMs) / 1000);
  }

  /**
   * `tap(result => recordResult(controller, result))` over a result stream.
   *
   * ## Semantics
   * Values, completion, errors and unsubscription pass through untouched.
   */
  tapMetrics<R extends Pick<ControllerResult, 'outcome' | 'durationMs' | 'action'>>(
    controller: string,
  ): MonoTypeOperatorFunction<R> {
    assertName('tapMetrics', 'controller', controller);
    return tap((result: R) => this.recordResult(controller, result));
  }

  /**
   * Folds a watch's health snapshot into the watch metrics: counters grow by the change since the
   * target's previous snapshot (a snapshot with smaller counters is a new watcher: counted from
   * zero); `connected` and the last event age are read at scrape time. A bound function: pass it
   * as `new WatchRegistry(client, { health: metrics.recordWatchHealth })`.
   */
  readonly recordWatchHealth = (target: WatchTarget, health: WatcherHealth): void => {
    const id = watchTargetKey(target);
    const state = this.watches.get(id);
    const labels = state?.labels ?? {
      resource: resourceLabel(target.resource),
      namespace: target.namespace ?? '',
    };
    for (const [field, counter] of this.watchCounters) {
      const now = health[field];
      const before = state?.last[field] ?? 0;
      const delta = now >= before ? now - before : now;
      if (delta > 0) counter.inc(labels, delta);
      else if (state === undefined) counter.inc(labels, 0);
    }
    if (state === undefined) this.watches.set(id, { labels, last: health });
    else state.last = health;
  };

  /** Drops a target's health state (its watch stopped): it leaves the gauges at the next scrape. */
  forgetWatch(target: WatchTarget): void {
    this.watches.delete(watchTargetKey(target));
  }

  /** Sets `leader_election_master_status{name}`: 1 while leading the lease `name`, else 0. */
  setLeader(name: string, leading: boolean): void {
    assertName('setLeader', 'name', name);
    this.leader.set({ name }, leading ? 1 : 0);
  }

  /** The registry's text exposition (what `/metrics` serves). */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  private queueOf(controller: string): QueueState {
    let state = this.queues.get(controller);
    if (state === undefined) {
      state = { depth: 0, active: 0 };
      this.queues.set(controller, state);
    }
    return state;
  }
}

/**
 * A node:http request handler serving `registry`'s text exposition (content type from
 * prom-client), for `GET`/`HEAD` on any path it is mounted at; 405 for other methods, 500 with
 * the reason when a collector fails.
 *
 * ## Example
 * ```ts
 * import http from 'node:http';
 *
 * http.createServer(metricsHandler(metrics.registry)).listen(8080);
 * ```
 */
export function metricsHandler(registry: Registry): (req: IncomingMessage, res: ServerResponse) => void {
  if (!(registry instanceof promClient().Registry)) {
    throw new InvalidArgumentError('metricsHandler', 'registry', registry, 'must be a prom-client Registry');
  }
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('method not allowed: /metrics answers GET and HEAD\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`collecting metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  };
}
