import { Registry } from 'prom-client';
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';

import { DEFAULT_STUCK_RECONCILE_THRESHOLD_MS, WorkqueueProgress } from './workqueue-progress.js';

/** A scheduler whose clock the test sets. */
function clock(): { scheduler: SchedulerLike; set(ms: number): void } {
  let now = 0;
  return {
    scheduler: { now: () => now, schedule: asyncScheduler.schedule.bind(asyncScheduler) },
    set: (ms) => (now = ms),
  };
}

async function series(registry: Registry, name: string): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((l) => l.startsWith(name));
}

describe('WorkqueueProgress (issue 18 §9, issue 19 §1)', () => {
  it('unfinished work is the sum and the longest processor the max of the running reconciles, per controller', async () => {
    const registry = new Registry();
    const c = clock();
    const progress = new WorkqueueProgress(registry, c.scheduler);
    const widgets = progress.observer('widgets');
    progress.observer('idle');
    widgets.started?.('ns/a', 0, 1);
    c.set(1_000);
    widgets.started?.('ns/b', 0, 2);
    c.set(4_000);
    // a has run 4 s, b 3 s
    expect(await series(registry, 'workqueue_unfinished_work_seconds{')).toEqual([
      'workqueue_unfinished_work_seconds{name="widgets",controller="widgets"} 7',
      'workqueue_unfinished_work_seconds{name="idle",controller="idle"} 0',
    ]);
    expect(await series(registry, 'workqueue_longest_running_processor_seconds{name="widgets"')).toEqual([
      'workqueue_longest_running_processor_seconds{name="widgets",controller="widgets"} 4',
    ]);
    widgets.finished?.('ns/a', 4_000, 1);
    expect(await series(registry, 'workqueue_longest_running_processor_seconds{name="widgets"')).toEqual([
      'workqueue_longest_running_processor_seconds{name="widgets",controller="widgets"} 3',
    ]);
    widgets.reset();
    expect(progress.running()).toEqual([]);
  });

  it('the reconciles check fails past the threshold naming controller and key, and caps the list', () => {
    const c = clock();
    const progress = new WorkqueueProgress(new Registry(), c.scheduler);
    const widgets = progress.observer('widgets');
    const check = progress.check(60_000);
    for (let i = 0; i < 7; i++) widgets.started?.(`ns/k${i}`, 0, i + 1);
    c.set(59_999);
    expect(check.check()).toEqual({ ok: true });
    c.set(60_000);
    const result = check.check();
    expect(check.name).toBe('reconciles');
    expect(result.ok).toBe(false);
    const reason = result.ok ? '' : result.reason;
    expect(reason).toMatch(/^controller widgets key "ns\/k0" running for 60 s; /);
    expect(reason).toMatch(/\(and 2 more\): a worker is stuck longer than 60 s/);
    expect(DEFAULT_STUCK_RECONCILE_THRESHOLD_MS).toBe(600_000);
    expect(() => progress.check(0)).toThrow(/thresholdMs/);
  });

  it('counts panics per controller, from 0', async () => {
    const registry = new Registry();
    const progress = new WorkqueueProgress(registry);
    progress.observer('widgets');
    expect(await series(registry, 'controller_runtime_reconcile_panics_total{')).toEqual([
      'controller_runtime_reconcile_panics_total{controller="widgets"} 0',
    ]);
    progress.observer('widgets').panicked();
    expect(await series(registry, 'controller_runtime_reconcile_panics_total{')).toEqual([
      'controller_runtime_reconcile_panics_total{controller="widgets"} 1',
    ]);
    expect(() => new WorkqueueProgress(registry)).toThrow(/one WorkqueueProgress per registry/);
  });
});
