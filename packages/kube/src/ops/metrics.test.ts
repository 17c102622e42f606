import { Registry } from 'prom-client';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { Action, applier, InvalidArgumentError, TerminalError } from '@rxkube/core';

import { INITIAL_WATCHER_HEALTH } from '../watcher/health.js';
import type { WatcherHealth } from '../watcher/health.js';
import {
  ControllerMetrics,
  metricsHandler,
  RECONCILE_TIME_BUCKETS,
  reconcileResultLabel,
  WORKQUEUE_DURATION_BUCKETS,
} from './metrics.js';

/** The sample lines of `text` whose metric name starts with `prefix` (HELP/TYPE lines dropped). */
function samples(text: string, prefix: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(prefix) && !l.startsWith('#'));
}

function testScheduler(): TestScheduler {
  return new TestScheduler((a, b) => expect(a).toEqual(b));
}

describe('ControllerMetrics reconcile results', () => {
  it('maps outcomes to controller-runtime result labels and error counters', async () => {
    const metrics = new ControllerMetrics();
    const results = [
      { outcome: 'success', durationMs: 4, action: Action.awaitChange() },
      { outcome: 'skipped', durationMs: 0 },
      { outcome: 'requeue', durationMs: 30, action: Action.requeue(5_000) },
      { outcome: 'requeue', durationMs: 30, action: Action.requeue(0) },
      { outcome: 'error', durationMs: 120 },
      { outcome: 'terminal', durationMs: 2_000 },
    ] as const;
    for (const r of results) metrics.recordResult('widget', r);
    metrics.recordResult('gadget', { outcome: 'error', durationMs: 70_000 });
    const text = await metrics.metrics();

    expect(samples(text, 'controller_runtime_reconcile_total')).toEqual([
      'controller_runtime_reconcile_total{controller="widget",result="success"} 2',
      'controller_runtime_reconcile_total{controller="widget",result="requeue_after"} 1',
      'controller_runtime_reconcile_total{controller="widget",result="requeue"} 1',
      'controller_runtime_reconcile_total{controller="widget",result="error"} 2',
      'controller_runtime_reconcile_total{controller="gadget",result="error"} 1',
    ]);
    expect(samples(text, 'controller_runtime_reconcile_errors_total')).toEqual([
      'controller_runtime_reconcile_errors_total{controller="widget"} 2',
      'controller_runtime_reconcile_errors_total{controller="gadget"} 1',
    ]);
    expect(samples(text, 'controller_runtime_terminal_reconcile_errors_total')).toEqual([
      'controller_runtime_terminal_reconcile_errors_total{controller="widget"} 1',
    ]);
    // error + requeue(0) are re-added rate-limited in controller-runtime; terminal is not retried
    expect(samples(text, 'workqueue_retries_total')).toEqual([
      'workqueue_retries_total{name="widget",controller="widget"} 2',
      'workqueue_retries_total{name="gadget",controller="gadget"} 1',
    ]);
    const time = samples(text, 'controller_runtime_reconcile_time_seconds');
    expect(time).toContain(
      'controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="widget"} 2',
    );
    expect(time).toContain(
      'controller_runtime_reconcile_time_seconds_bucket{le="0.05",controller="widget"} 4',
    );
    expect(time).toContain('controller_runtime_reconcile_time_seconds_bucket{le="2",controller="widget"} 6');
    expect(time).toContain('controller_runtime_reconcile_time_seconds_bucket{le="60",controller="gadget"} 0');
    expect(time).toContain(
      'controller_runtime_reconcile_time_seconds_bucket{le="+Inf",controller="gadget"} 1',
    );
    expect(time).toContain('controller_runtime_reconcile_time_seconds_sum{controller="widget"} 2.184');
    expect(time).toContain('controller_runtime_reconcile_time_seconds_count{controller="widget"} 6');
    // controller-runtime's 40 buckets + Inf
    expect(time.filter((l) => l.includes('_bucket') && l.includes('"widget"'))).toHaveLength(41);
  });

  it('counts user functions that threw per controller and hook, every hook at 0 from the start', async () => {
    const metrics = new ControllerMetrics();
    const observer = metrics.observer('widget');
    observer.userCodeError('map');
    observer.userCodeError('map');
    observer.userCodeError('indexer');
    const lines = samples(await metrics.metrics(), 'rxkube_user_code_errors_total');
    expect(lines).toContain('rxkube_user_code_errors_total{controller="widget",hook="map"} 2');
    expect(lines).toContain('rxkube_user_code_errors_total{controller="widget",hook="indexer"} 1');
    expect(lines).toContain('rxkube_user_code_errors_total{controller="widget",hook="reconcile"} 0');
    expect(lines).toHaveLength(8);
  });

  it('labels requeue(ms > 0) as requeue_after and requeue(0) as requeue', () => {
    expect(reconcileResultLabel({ outcome: 'requeue', durationMs: 1, action: Action.requeue(1) })).toBe(
      'requeue_after',
    );
    expect(reconcileResultLabel({ outcome: 'requeue', durationMs: 1, action: Action.requeue(0) })).toBe(
      'requeue',
    );
    expect(reconcileResultLabel({ outcome: 'terminal', durationMs: 1 })).toBe('error');
  });

  it('rejects a bad controller name or result with a typed error', () => {
    const metrics = new ControllerMetrics();
    expect(() => metrics.recordResult('', { outcome: 'success', durationMs: 1 })).toThrow(
      InvalidArgumentError,
    );
    expect(() => metrics.recordResult('x', { outcome: 'done', durationMs: 1 } as never)).toThrow(
      /outcome one of success, requeue, error, terminal, skipped/,
    );
    expect(() => metrics.observer('x', { maxConcurrentReconciles: 0 })).toThrow(
      /options.maxConcurrentReconciles/,
    );
  });

  it('uses an injected registry and refuses one that already holds the metrics', async () => {
    const registry = new Registry();
    const metrics = new ControllerMetrics({ registry });
    metrics.setLeader('widget-operator', true);
    expect(samples(await registry.metrics(), 'leader_election_master_status')).toEqual([
      'leader_election_master_status{name="widget-operator"} 1',
    ]);
    metrics.setLeader('widget-operator', false);
    expect(samples(await registry.metrics(), 'leader_election_master_status')).toEqual([
      'leader_election_master_status{name="widget-operator"} 0',
    ]);
    expect(() => new ControllerMetrics({ registry })).toThrow(/already hold rxkube's metrics/);
  });
});

describe('ControllerMetrics pre-bound children (issue 21, the lean event path)', () => {
  it("reads exactly as prom-client's own Histogram and Counter fed the same values, through get() and after reset", async () => {
    const { Counter, Histogram } = await import('prom-client');
    const ours = new ControllerMetrics();
    const reference = new Registry();
    const time = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: [...RECONCILE_TIME_BUCKETS],
      registers: [reference],
    });
    const work = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name', 'controller'],
      buckets: [...WORKQUEUE_DURATION_BUCKETS],
      registers: [reference],
    });
    const total = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers: [reference],
    });
    // on a bound, between two, above the last; two controllers, the second first seen later
    const durationsMs = [0, 5, 7, 60_000, 61_000, 1e-6, 250];
    const observers = { widget: ours.observer('widget'), gadget: ours.observer('gadget') };
    const feed = (controller: 'widget' | 'gadget', ms: number): void => {
      ours.recordResult(controller, { outcome: 'success', durationMs: ms, action: Action.awaitChange() });
      observers[controller].finished?.('ns/a', ms, 0);
      time.observe({ controller }, ms / 1000);
      work.observe({ name: controller, controller }, ms / 1000);
      total.inc({ controller, result: 'success' });
    };
    for (const ms of durationsMs) feed('widget', ms);
    feed('gadget', 3);
    const names = [
      'controller_runtime_reconcile_time_seconds',
      'workqueue_work_duration_seconds',
      'controller_runtime_reconcile_total',
    ];
    for (const name of names) {
      expect(await ours.registry.getSingleMetricAsString(name)).toBe(
        await reference.getSingleMetricAsString(name),
      );
    }
    expect(await ours.registry.getSingleMetric(names[0]!)?.get()).toEqual(await time.get());
    // a reset drops every series; the bound children count again from zero
    ours.registry.resetMetrics();
    reference.resetMetrics();
    feed('gadget', 12);
    for (const name of names) {
      expect(await ours.registry.getSingleMetricAsString(name)).toBe(
        await reference.getSingleMetricAsString(name),
      );
    }
  });
});

describe('ControllerMetrics workqueue observer', () => {
  it('follows an applier: adds, depth, active workers, queue and work durations, results', async () => {
    const metrics = new ControllerMetrics();
    const observer = metrics.observer('widget', { maxConcurrentReconciles: 1 });
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      // a at 0 runs 0–3; b at 1 waits until 3 (queued 2 ms), runs 3–5; c at 2 waits until 5 (3 ms), fails at 6
      const source = hot('abc|');
      const work = {
        a: () => cold('---x|', { x: Action.awaitChange() }),
        b: () => cold('--x|', { x: Action.requeue(1_000) }),
        c: () => cold<Action>('-#', {}, new TerminalError('bad spec')),
      } as const;
      const out = source.pipe(
        applier(
          (k: string) => k,
          (k: string) => work[k as keyof typeof work](),
          { concurrency: 1, observer, rateLimit: false },
        ),
        metrics.tapMetrics('widget'),
      );
      expectObservable(out).toBe('---x-y(z|)', {
        x: expect.objectContaining({ key: 'a', outcome: 'success', durationMs: 3 }) as unknown,
        y: expect.objectContaining({ key: 'b', outcome: 'requeue', durationMs: 2 }) as unknown,
        z: expect.objectContaining({ key: 'c', outcome: 'terminal', durationMs: 1 }) as unknown,
      });
    });
    const text = await metrics.metrics();
    expect(samples(text, 'workqueue_adds_total')).toEqual([
      'workqueue_adds_total{name="widget",controller="widget"} 3',
    ]);
    expect(samples(text, 'workqueue_depth')).toEqual([
      'workqueue_depth{name="widget",controller="widget"} 0',
    ]);
    expect(samples(text, 'controller_runtime_active_workers')).toEqual([
      'controller_runtime_active_workers{controller="widget"} 0',
    ]);
    expect(samples(text, 'controller_runtime_max_concurrent_reconciles')).toEqual([
      'controller_runtime_max_concurrent_reconciles{controller="widget"} 1',
    ]);
    expect(samples(text, 'workqueue_queue_duration_seconds_sum')).toEqual([
      'workqueue_queue_duration_seconds_sum{name="widget",controller="widget"} 0.005',
    ]);
    expect(samples(text, 'workqueue_queue_duration_seconds_count')).toEqual([
      'workqueue_queue_duration_seconds_count{name="widget",controller="widget"} 3',
    ]);
    // the applier turns the failure into a result, so all three runs `finished`: 3 + 2 + 1 ms
    expect(samples(text, 'workqueue_work_duration_seconds_sum')).toEqual([
      'workqueue_work_duration_seconds_sum{name="widget",controller="widget"} 0.006',
    ]);
    expect(samples(text, 'controller_runtime_reconcile_total')).toEqual([
      'controller_runtime_reconcile_total{controller="widget",result="success"} 1',
      'controller_runtime_reconcile_total{controller="widget",result="requeue_after"} 1',
      'controller_runtime_reconcile_total{controller="widget",result="error"} 1',
    ]);
    expect(samples(text, 'controller_runtime_terminal_reconcile_errors_total')).toEqual([
      'controller_runtime_terminal_reconcile_errors_total{controller="widget"} 1',
    ]);
  });

  it('tracks depth and active across observers of one name, and reset() zeroes them', async () => {
    const metrics = new ControllerMetrics();
    const laneA = metrics.observer('widget');
    const laneB = metrics.observer('widget');
    laneA.enqueued?.('ns1/a', 1);
    laneB.enqueued?.('ns2/a', 1);
    laneB.enqueued?.('ns2/b', 2);
    laneA.started?.('ns1/a', 0, 1);
    let text = await metrics.metrics();
    expect(samples(text, 'workqueue_depth')).toEqual([
      'workqueue_depth{name="widget",controller="widget"} 2',
    ]);
    expect(samples(text, 'controller_runtime_active_workers')).toEqual([
      'controller_runtime_active_workers{controller="widget"} 1',
    ]);
    laneA.reset();
    text = await metrics.metrics();
    expect(samples(text, 'workqueue_depth')).toEqual([
      'workqueue_depth{name="widget",controller="widget"} 0',
    ]);
    expect(samples(text, 'controller_runtime_active_workers')).toEqual([
      'controller_runtime_active_workers{controller="widget"} 0',
    ]);
  });

  it('has client-go workqueue buckets 1e-8 … 1e3', () => {
    expect(WORKQUEUE_DURATION_BUCKETS).toEqual([
      1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10, 100, 1000,
    ]);
  });
});

describe('ControllerMetrics watch health', () => {
  const configMaps = { resource: { apiVersion: 'v1', kind: 'ConfigMap' }, namespace: 'default' };
  const deployments = { resource: { apiVersion: 'apps/v1', kind: 'Deployment' } };
  const health = (patch: Partial<WatcherHealth>): WatcherHealth => ({ ...INITIAL_WATCHER_HEALTH, ...patch });

  it('turns health snapshots into counters, connected and last-event age at scrape time', async () => {
    let now = 100_000;
    const metrics = new ControllerMetrics({
      scheduler: {
        now: () => now,
        schedule: () => {
          throw new Error('unused');
        },
      },
    });
    const record = metrics.recordWatchHealth; // usable unbound, as a WatchRegistry's health callback
    record(configMaps, health({ connected: true, lastEventAt: 99_000, bookmarks: 2 }));
    record(
      configMaps,
      health({ connected: false, lastEventAt: 99_500, bookmarks: 3, reconnects: 1, errors: 1, stalls: 1 }),
    );
    record(
      configMaps,
      health({
        connected: true,
        lastEventAt: 99_500,
        bookmarks: 3,
        reconnects: 2,
        errors: 1,
        stalls: 1,
        gone410s: 1,
        relists: 1,
      }),
    );
    record(deployments, health({ connected: false, errors: 4, malformedLines: 1 }));
    let text = await metrics.metrics();
    expect(samples(text, 'rxkube_watch_bookmarks_total')).toEqual([
      'rxkube_watch_bookmarks_total{resource="v1/ConfigMap",namespace="default"} 3',
      'rxkube_watch_bookmarks_total{resource="apps/v1/Deployment",namespace=""} 0',
    ]);
    expect(samples(text, 'rxkube_watch_reconnects_total{')).toContain(
      'rxkube_watch_reconnects_total{resource="v1/ConfigMap",namespace="default"} 2',
    );
    expect(samples(text, 'rxkube_watch_gone_total{')).toContain(
      'rxkube_watch_gone_total{resource="v1/ConfigMap",namespace="default"} 1',
    );
    expect(samples(text, 'rxkube_watch_relists_total{')).toContain(
      'rxkube_watch_relists_total{resource="v1/ConfigMap",namespace="default"} 1',
    );
    expect(samples(text, 'rxkube_watch_stalls_total{')).toContain(
      'rxkube_watch_stalls_total{resource="v1/ConfigMap",namespace="default"} 1',
    );
    expect(samples(text, 'rxkube_watch_errors_total')).toEqual([
      'rxkube_watch_errors_total{resource="v1/ConfigMap",namespace="default"} 1',
      'rxkube_watch_errors_total{resource="apps/v1/Deployment",namespace=""} 4',
    ]);
    expect(samples(text, 'rxkube_watch_malformed_lines_total{')).toContain(
      'rxkube_watch_malformed_lines_total{resource="apps/v1/Deployment",namespace=""} 1',
    );
    expect(samples(text, 'rxkube_watch_connected')).toEqual([
      'rxkube_watch_connected{resource="v1/ConfigMap",namespace="default"} 1',
      'rxkube_watch_connected{resource="apps/v1/Deployment",namespace=""} 0',
    ]);
    // computed at scrape time; the Deployment watch never saw a line, so it has no sample
    expect(samples(text, 'rxkube_watch_last_event_age_seconds')).toEqual([
      'rxkube_watch_last_event_age_seconds{resource="v1/ConfigMap",namespace="default"} 0.5',
    ]);
    now = 130_500;
    text = await metrics.metrics();
    expect(samples(text, 'rxkube_watch_last_event_age_seconds')).toEqual([
      'rxkube_watch_last_event_age_seconds{resource="v1/ConfigMap",namespace="default"} 31',
    ]);

    // a restarted watcher starts its counters from 0 again: counted from there, never negative
    record(configMaps, health({ bookmarks: 1 }));
    metrics.forgetWatch(deployments);
    text = await metrics.metrics();
    expect(samples(text, 'rxkube_watch_bookmarks_total{resource="v1/ConfigMap"')).toEqual([
      'rxkube_watch_bookmarks_total{resource="v1/ConfigMap",namespace="default"} 4',
    ]);
    expect(samples(text, 'rxkube_watch_connected')).toEqual([
      'rxkube_watch_connected{resource="v1/ConfigMap",namespace="default"} 0',
    ]);
  });
});

describe('metricsHandler', () => {
  it('serves the text exposition with prom-client content type', async () => {
    const metrics = new ControllerMetrics();
    metrics.recordResult('widget', { outcome: 'success', durationMs: 1 });
    const handler = metricsHandler(metrics.registry);
    const { body, headers, status } = await invoke(handler, 'GET');
    expect(status).toBe(200);
    expect(headers['content-type']).toBe(metrics.registry.contentType);
    expect(body).toContain('controller_runtime_reconcile_total{controller="widget",result="success"} 1');
    expect((await invoke(handler, 'POST')).status).toBe(405);
    expect(() => metricsHandler({} as Registry)).toThrow(InvalidArgumentError);
  });
});

/** Calls a handler with minimal request/response doubles (HTTP is exercised in probes.test.ts). */
async function invoke(
  handler: ReturnType<typeof metricsHandler>,
  method: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve) => {
    let status = 0;
    let headers: Record<string, string> = {};
    const res = {
      writeHead(s: number, h: Record<string, string>) {
        status = s;
        headers = h;
        return res;
      },
      end(body?: string) {
        resolve({ status, headers, body: body ?? '' });
      },
    };
    handler({ method } as never, res as never);
  });
}
