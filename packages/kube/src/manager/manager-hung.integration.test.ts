/**
 * Issue 19 §1–2 and issue 18 §4, §9 over HTTP: a hung reconcile is cancelled at its deadline
 * (ctx.signal aborted, the key retried, the other keys served); a worker stuck past the threshold
 * fails /healthz naming its controller and key; a reconcile that throws synchronously is counted
 * as a user-code error and a panic, never as running; stop() does not wait for a watch that
 * never syncs.
 */
import { Writable } from 'node:stream';
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { filter, firstValueFrom, ReplaySubject, timeout } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { ControllerResult } from '../controller/controller.js';
import { isReconcileTimeoutError } from '../controller/reconcile-work.js';
import { createLogger } from '../ops/logging.js';
import type { KubeObject } from '../types.js';
import { Manager } from './manager.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

function collect(mgr: Manager): { until(p: (r: ControllerResult) => boolean): Promise<ControllerResult> } {
  const seen = new ReplaySubject<ControllerResult>(10_000);
  mgr.results$.subscribe((r) => seen.next(r));
  return { until: (p) => firstValueFrom(seen.pipe(filter(p), timeout(20_000))) };
}

function logLines(): { lines: Record<string, unknown>[]; raw: string[]; destination: Writable } {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const destination = new Writable({
    write: (chunk: Buffer, _e, cb) => {
      for (const l of chunk.toString().split('\n')) {
        if (l === '') continue;
        raw.push(l);
        lines.push(JSON.parse(l) as Record<string, unknown>);
      }
      cb();
    },
  });
  return { lines, raw, destination };
}

/** The value of one series in the Prometheus text, or undefined. */
async function metric(mgr: Manager, series: string): Promise<number | undefined> {
  const text = await mgr.metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describeEachBackend(
  'Manager: hung and throwing reconciles (over HTTP)',
  (b) => {
    let client: KubeClient;

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      for (const ns of ['hung', 'stuck', 'throws', 'unsynced']) {
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      }
    });
    afterAll(() => {
      client.close();
    });

    const configMap = (namespace: string, name: string): Promise<KubeObject> =>
      client.create({ ...CM, metadata: { namespace, name }, data: { a: '1' } });

    it('a hung reconcile is cancelled at its deadline: ctx.signal aborts, the other keys are served, the key is retried', async () => {
      const mgr = new Manager({ client, name: 'hung-test', logLevel: 'silent', reconcileTimeoutMs: 200 });
      const signals: AbortSignal[] = [];
      let hungCalls = 0;
      mgr.add('cms', { for: CM, namespace: 'hung' }, async (request, ctx) => {
        if (request.name === 'hang' && hungCalls++ === 0) {
          signals.push(ctx.signal);
          // a call that never answers: only the signal ends it
          await new Promise<never>(() => undefined);
        }
        // ctx.client honours the signal; this one answers
        await ctx.client.get({ ...CM, namespace: 'hung', name: request.name });
        return Action.awaitChange();
      });
      const results = collect(mgr);
      await mgr.start();
      await configMap('hung', 'hang');
      const failed = await results.until((r) => r.key === 'hung/hang' && r.outcome === 'error');
      expect(failed.hook).toBe('reconcile');
      expect(isReconcileTimeoutError((failed.error?.cause as { cause?: unknown }).cause)).toBe(true);
      expect(signals[0]?.aborted).toBe(true);
      expect(isReconcileTimeoutError(signals[0]?.reason)).toBe(true);
      // concurrency 1: the worker was freed, so another key is served, and the hung key retried
      await configMap('hung', 'other');
      await results.until((r) => r.key === 'hung/other' && r.outcome === 'success');
      await results.until((r) => r.key === 'hung/hang' && r.outcome === 'success');
      expect(await metric(mgr, 'rxkube_user_code_errors_total{controller="cms",hook="reconcile"}')).toBe(1);
      const report = await mgr.stop();
      expect(report).toMatchObject({ drained: true, cancelled: 0 });
    });

    it('a worker stuck past the threshold fails /healthz naming controller and key; the stuck-worker metrics rise', async () => {
      const mgr = new Manager({
        client,
        name: 'stuck-test',
        logLevel: 'silent',
        healthPort: 0,
        reconcileTimeoutMs: false,
        stuckReconcileThresholdMs: 1,
        shutdownTimeoutMs: 1,
      });
      mgr.add('cms', { for: CM, namespace: 'stuck' }, () => new Promise<never>(() => undefined));
      await mgr.start();
      const port = mgr.ports[0] ?? 0;
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      await configMap('stuck', 'forever');
      await waitFor(
        '/healthz to fail',
        async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 500,
      );
      const body = await (await fetch(`http://127.0.0.1:${port}/healthz`)).text();
      expect(body).toMatch(/\[-\]reconciles failed: controller cms key "stuck\/forever" running for \d+ s/);
      expect(
        await metric(mgr, 'workqueue_longest_running_processor_seconds{name="cms",controller="cms"}'),
      ).toBeGreaterThan(0);
      expect(
        await metric(mgr, 'workqueue_unfinished_work_seconds{name="cms",controller="cms"}'),
      ).toBeGreaterThan(0);
      expect(await mgr.stop()).toMatchObject({ drained: false, cancelled: 1 });
    });

    it('a reconcile that throws synchronously is a counted user-code error and a panic, never running', async () => {
      const { lines, raw, destination } = logLines();
      const mgr = new Manager({
        client,
        name: 'throws-test',
        log: createLogger({ level: 'info', destination }),
      });
      const predicate = filter<KubeObject>((o) => {
        if (o.metadata.name === 'boom') throw new Error('a predicate that throws'); // logged by the controller
        return true;
      });
      mgr.add('cms', { for: CM, namespace: 'throws', predicates: [predicate] }, (request) => {
        if (request.name === 'boom') throw new TypeError('spec is undefined');
        return [Action.awaitChange()];
      });
      const failures: ControllerResult[] = [];
      mgr.results$.pipe(filter((r) => r.key === 'throws/boom')).subscribe((r) => failures.push(r));
      await mgr.start();
      await configMap('throws', 'boom');
      await waitFor('two failures (retried)', () => Promise.resolve(failures.length >= 2));
      expect(failures.every((r) => r.outcome === 'error' && r.hook === 'reconcile')).toBe(true);
      expect(mgr.inFlight).toBe(0);
      expect(
        await metric(mgr, 'rxkube_user_code_errors_total{controller="cms",hook="reconcile"}'),
      ).toBeGreaterThanOrEqual(2);
      expect(
        await metric(mgr, 'controller_runtime_reconcile_panics_total{controller="cms"}'),
      ).toBeGreaterThanOrEqual(2);
      const report = await mgr.stop();
      expect(report).toMatchObject({ drained: true, cancelled: 0 });
      const line = lines.find((l) => l['msg'] === 'reconcile error' && l['key'] === 'throws/boom');
      // named as user code, not as the ReconcileError wrapping it (issue 19 §2)
      expect(line).toMatchObject({ controller: 'cms', hook: 'reconcile', errorType: 'UserCodeError' });
      // no line carries the key "controller" twice (pino's child binding and the fields; issue 19 §5)
      expect(raw.filter((l) => l.split('"controller":').length > 2)).toEqual([]);
      expect(raw.some((l) => l.includes('"hook":"reconcile"') && l.includes('"controller":"cms"'))).toBe(
        true,
      );
      expect(String(line?.['error'])).toMatch(
        /reconcile threw for controller cms, "throws\/boom": TypeError: spec is undefined/,
      );
    });

    it('stop() does not wait out its deadline for a request whose watch never syncs', async () => {
      const mgr = new Manager({
        client,
        name: 'unsynced-test',
        logLevel: 'silent',
        shutdownTimeoutMs: 15_000,
      });
      const calls: string[] = [];
      mgr.add(
        'cms',
        { for: CM, namespace: 'unsynced', owns: [{ apiVersion: 'example.com/v1', kind: 'NotServed' }] },
        (request) => {
          calls.push(request.name);
          return [Action.awaitChange()];
        },
      );
      await configMap('unsynced', 'waiting');
      await mgr.start();
      // the request reached a worker, which waits for the caches (an owned kind not served)
      await waitFor(
        'the request to wait in a worker',
        async () => (await metric(mgr, 'controller_runtime_active_workers{controller="cms"}')) === 1,
      );
      const report = await mgr.stop();
      expect(report).toMatchObject({ drained: true, cancelled: 0 });
      expect(calls).toEqual([]); // its caches never synced: never reconciled
    });
  },
  // kube-controller-manager would add a kube-root-ca.crt ConfigMap to each new namespace
  { controllerManager: false },
);
