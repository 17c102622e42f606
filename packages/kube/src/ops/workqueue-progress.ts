/**
 * Stuck-worker signals of controllers: controller-runtime's (client-go workqueue's)
 * `workqueue_unfinished_work_seconds` and `workqueue_longest_running_processor_seconds`,
 * `controller_runtime_reconcile_panics_total`, and a `/healthz` check that names the controller
 * and key of a reconcile running longer than a threshold. Kept apart from `metrics.ts` so the
 * hot path of the other workqueue metrics can change without it.
 *
 * @module
 */
import type { RunByKeyObserver } from '@rxkube/core';
import type { Registry } from 'prom-client';
import type { Counter, Gauge } from 'prom-client';
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';

import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { promClient } from '../internal/lazy-modules.js';
import type { ProbeCheck } from './probes.js';

/**
 * Default threshold of the `reconciles` health check: 10 minutes, twice the default reconcile
 * deadline — with the deadline on, a reconcile never runs that long, so the check fails only when
 * a deadline was turned off (or raised above it) and a reconcile hung.
 *
 * ## Example
 * ```ts
 * new Manager({ client, name: 'widgets', stuckReconcileThresholdMs: DEFAULT_STUCK_RECONCILE_THRESHOLD_MS / 2 });
 * ```
 */
export const DEFAULT_STUCK_RECONCILE_THRESHOLD_MS = 600_000;

/** Reconciles the health check names at most (the rest are counted). */
const MAX_NAMED = 5;

/**
 * A reconcile running now, as {@link WorkqueueProgress.running} reports it.
 *
 * ## Example
 * ```ts
 * declare const progress: WorkqueueProgress;
 * const oldest: RunningReconcile | undefined = progress.running()[0];
 * ```
 */
export interface RunningReconcile {
  readonly controller: string;
  readonly key: string;
  readonly runningMs: number;
}

/**
 * The observer a controller gets from {@link WorkqueueProgress.observer}: `started`/`finished`
 * of its workqueue, `reset` when a run ends, `panicked` for a reconcile that threw synchronously.
 *
 * ## Example
 * ```ts
 * declare const progress: WorkqueueProgress;
 * const observer: WorkqueueProgressObserver = progress.observer('widgets');
 * ```
 */
export interface WorkqueueProgressObserver extends RunByKeyObserver<unknown> {
  reset(): void;
  panicked(): void;
}

/**
 * What is running in every controller's workqueue, and since when.
 *
 * | metric | labels | meaning (client-go / controller-runtime) |
 * |---|---|---|
 * | `workqueue_unfinished_work_seconds` | `name`, `controller` | seconds of work in progress not yet observed by `workqueue_work_duration_seconds`: the sum over reconciles running now; large values mean stuck workers |
 * | `workqueue_longest_running_processor_seconds` | `name`, `controller` | seconds the longest-running reconcile has been running |
 * | `controller_runtime_reconcile_panics_total` | `controller` | reconciles that "panicked": in JavaScript, a reconcile function that threw synchronously (or returned something that is not an ObservableInput) instead of failing through its result; see docs/guides/manager-and-operations.md |
 *
 * ## Example
 * ```ts
 * const progress = new WorkqueueProgress(metrics.registry);
 * controller({ for: widgetType, client, observer: progress.observer('widgets') }).run(reconcile).subscribe();
 * await startProbeServer({ port: 8081, liveness: [progress.check(600_000)] });
 * ```
 *
 * ## Memory
 * One entry per reconcile running now; a controller's entries are dropped by its observer's `reset`.
 */
export class WorkqueueProgress {
  private readonly running$ = new Map<string, Map<unknown, number>>();
  private readonly panics: Counter<'controller'>;

  /**
   * @param registry where the metrics are registered.
   * @param scheduler the clock (`TestScheduler.run` virtualises it).
   * @throws {InvalidArgumentError} when `registry` already holds these metric names.
   */
  constructor(
    registry: Registry,
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    const { Counter, Gauge } = promClient();
    const registers = [registry];
    const seconds = (reduce: (runningMs: readonly number[]) => number) => {
      const running = this.running$;
      const clock = this.scheduler;
      return function collect(this: Gauge<'name' | 'controller'>): void {
        this.reset();
        const now = clock.now();
        for (const [controller, keys] of running) {
          const ms = [...keys.values()].map((at) => Math.max(0, now - at));
          this.set({ name: controller, controller }, reduce(ms) / 1000);
        }
      };
    };
    try {
      new Gauge({
        name: 'workqueue_unfinished_work_seconds',
        help:
          "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. " +
          'Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
        labelNames: ['name', 'controller'],
        registers,
        collect: seconds((ms) => ms.reduce((a, b) => a + b, 0)),
      });
      new Gauge({
        name: 'workqueue_longest_running_processor_seconds',
        help: 'How many seconds has the longest running processor for workqueue been running.',
        labelNames: ['name', 'controller'],
        registers,
        collect: seconds((ms) => ms.reduce((a, b) => Math.max(a, b), 0)),
      });
      this.panics = new Counter({
        name: 'controller_runtime_reconcile_panics_total',
        help: 'Total number of reconciliation panics per controller',
        labelNames: ['controller'],
        registers,
      });
    } catch (error) {
      throw new InvalidArgumentError(
        'WorkqueueProgress',
        'registry',
        registry,
        `must not already hold the workqueue progress metrics (${error instanceof Error ? error.message : String(error)}); create one WorkqueueProgress per registry`,
      );
    }
  }

  /** The observer of controller `controller` (several — namespace lanes — may share a name). */
  observer(controller: string): WorkqueueProgressObserver {
    if (typeof controller !== 'string' || controller === '') {
      throw new InvalidArgumentError(
        'WorkqueueProgress.observer',
        'controller',
        controller,
        'must be a non-empty string',
      );
    }
    const keys = this.running$.get(controller) ?? new Map<unknown, number>();
    this.running$.set(controller, keys);
    this.panics.inc({ controller }, 0);
    return {
      started: (key) => {
        keys.set(key, this.scheduler.now());
      },
      finished: (key) => {
        keys.delete(key);
      },
      reset: () => keys.clear(),
      panicked: () => this.panics.inc({ controller }),
    };
  }

  /** Every reconcile running now, the longest-running first. */
  running(): RunningReconcile[] {
    const now = this.scheduler.now();
    const all: RunningReconcile[] = [];
    for (const [controller, keys] of this.running$) {
      for (const [key, at] of keys)
        all.push({ controller, key: String(key), runningMs: Math.max(0, now - at) });
    }
    return all.sort((a, b) => b.runningMs - a.runningMs);
  }

  /**
   * The `reconciles` health check: fails while a reconcile has been running for `thresholdMs` or
   * longer, naming the controller, the key and for how long (the first few; the rest counted).
   *
   * @throws {InvalidArgumentError} for a threshold that is not a number > 0.
   */
  check(thresholdMs: number = DEFAULT_STUCK_RECONCILE_THRESHOLD_MS): ProbeCheck {
    if (typeof thresholdMs !== 'number' || !(thresholdMs > 0)) {
      throw new InvalidArgumentError(
        'WorkqueueProgress.check',
        'thresholdMs',
        thresholdMs,
        'must be a number > 0',
      );
    }
    return {
      name: 'reconciles',
      check: () => {
        const stuck = this.running().filter((r) => r.runningMs >= thresholdMs);
        if (stuck.length === 0) return { ok: true };
        const named = stuck
          .slice(0, MAX_NAMED)
          .map(
            (r) =>
              `controller ${r.controller} key "${r.key}" running for ${Math.round(r.runningMs / 1000)} s`,
          )
          .join('; ');
        const more = stuck.length > MAX_NAMED ? ` (and ${stuck.length - MAX_NAMED} more)` : '';
        return {
          ok: false,
          reason:
            `${named}${more}: a worker is stuck longer than ${Math.round(thresholdMs / 1000)} s ` +
            '(its reconcile never settled; set reconcileTimeoutMs so a hung call is cancelled, and pass ctx.signal to your own I/O)',
        };
      },
    };
  }
}
