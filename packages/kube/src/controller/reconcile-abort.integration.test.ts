/**
 * Issue 19 §1 over HTTP: a reconcile hung in a `ctx` call against a server that never answers is
 * cancelled at its deadline, and `ctx.signal` aborts the call's HTTP request — the server sees the
 * connection close, nothing stays in flight. Asserted on the server side, not on timing.
 */
import { Action } from '@rxkube/core';
import { EMPTY, lastValueFrom } from 'rxjs';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { filter, firstValueFrom, ReplaySubject, timeout } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { widgetCrd } from '../client/widget-crd.test.helper.js';
import { ensureCrd } from '../crd/ensure-crd.js';
import { Manager } from '../manager/manager.js';
import type { ControllerResult } from './controller.js';
import type { KubeObject } from '../types.js';
import { isReconcileTimeoutError } from './reconcile-work.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;

function collect(mgr: Manager): { until(p: (r: ControllerResult) => boolean): Promise<ControllerResult> } {
  const seen = new ReplaySubject<ControllerResult>(10_000);
  mgr.results$.subscribe((r) => seen.next(r));
  return { until: (p) => firstValueFrom(seen.pipe(filter(p), timeout(20_000))) };
}

describeEachBackend(
  'reconcile deadline: ctx.signal aborts the HTTP requests of ctx calls',
  (b) => {
    let client: KubeClient;

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      for (const name of ['aborts', 'aborts-write', 'aborts-status'])
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      await ensureCrd(client, widgetCrd, { fieldManager: 'abort-test' });
    });
    afterAll(() => {
      client.close();
    });

    it('a reconcile hung in ctx.client.get is cancelled at its deadline and its GET is aborted', async () => {
      const mgr = new Manager({ client, name: 'abort-test', logLevel: 'silent', reconcileTimeoutMs: 100 });
      const seenByReconcile: unknown[] = [];
      let calls = 0;
      mgr.add('cms', { for: CM, namespace: 'aborts' }, async (_request, ctx) => {
        if (calls++ === 0) {
          // the server holds this GET unanswered: only ctx.signal ends it
          await ctx.client.get({ ...CM, namespace: 'aborts', name: 'held' }).catch((e: unknown) => {
            seenByReconcile.push(e);
            throw e;
          });
        }
        return Action.awaitChange();
      });
      const results = collect(mgr);
      b.apiServer.faults.stall({ method: 'GET', path: /\/namespaces\/aborts\/configmaps\/held$/, count: 1 });
      await mgr.start();
      await client.create({ ...CM, metadata: { namespace: 'aborts', name: 'hang' }, data: { a: '1' } });
      await waitFor('the server to hold the reconcile’s GET', () =>
        b.apiServer.faults.stalledRequests().some((r) => r.path.endsWith('/configmaps/held')),
      );
      const failed = await results.until((r) => r.key === 'aborts/hang' && r.outcome === 'error');
      expect(isReconcileTimeoutError((failed.error?.cause as { cause?: unknown }).cause)).toBe(true);
      expect(isReconcileTimeoutError(seenByReconcile[0])).toBe(true);
      // the request itself was aborted: the server saw its connection close
      await waitFor('the server to release the aborted GET', () =>
        b.apiServer.faults.stalledRequests().every((r) => !r.path.endsWith('/configmaps/held')),
      );
      expect(b.apiServer.faults.counts.requestsStalled).toBe(1);
      await results.until((r) => r.key === 'aborts/hang' && r.outcome === 'success');
      await mgr.stop();
    });

    it('a reconcile hung in a tracked write (ctx.patch) has its PATCH aborted at the deadline', async () => {
      const mgr = new Manager({ client, name: 'abort-write', logLevel: 'silent', reconcileTimeoutMs: 100 });
      let calls = 0;
      mgr.add('cms', { for: CM, namespace: 'aborts-write' }, async (request, ctx) => {
        if (calls++ === 0) {
          await ctx.patch(
            { ...CM, namespace: 'aborts-write', name: request.name },
            { type: 'merge', body: { data: { b: '2' } } },
          );
        }
        return Action.awaitChange();
      });
      const results = collect(mgr);
      b.apiServer.faults.stall({
        method: 'PATCH',
        path: /\/namespaces\/aborts-write\/configmaps\/patched/,
        count: 1,
      });
      await mgr.start();
      await client.create({
        ...CM,
        metadata: { namespace: 'aborts-write', name: 'patched' },
        data: { a: '1' },
      });
      await waitFor('the server to hold the PATCH', () =>
        b.apiServer.faults.stalledRequests().some((r) => r.method === 'PATCH'),
      );
      const failed = await results.until((r) => r.key === 'aborts-write/patched' && r.outcome === 'error');
      expect(isReconcileTimeoutError((failed.error?.cause as { cause?: unknown }).cause)).toBe(true);
      await waitFor('the server to release the aborted PATCH', () =>
        b.apiServer.faults.stalledRequests().every((r) => r.method !== 'PATCH'),
      );
      await results.until((r) => r.key === 'aborts-write/patched' && r.outcome === 'success');
      await mgr.stop();
      // the held PATCH never reached the storage
      expect(await b.cluster.get('configmaps', 'aborts-write', 'patched')).toMatchObject({
        data: { a: '1' },
      });
    });

    it('the finalizer patch and ctx.status requests carry ctx.signal: each aborted at the deadline', async () => {
      type Widget = KubeObject<{ size: number }, { phase?: string }>;
      const mgr = new Manager({ client, name: 'abort-status', logLevel: 'silent', reconcileTimeoutMs: 100 });
      mgr.add<Widget>(
        'widgets',
        {
          for: WIDGET,
          namespace: 'aborts-status',
          status: { fieldManager: 'abort-test' },
          finalizer: { name: 'example.com/abort-test', cleanup: () => EMPTY },
        },
        async (_request, ctx) => {
          await lastValueFrom(ctx.status({ status: { phase: 'Ready' } }));
          return Action.awaitChange();
        },
      );
      const results = collect(mgr);
      const stallsBefore = b.apiServer.faults.counts.requestsStalled;
      // the first attempt hangs adding the finalizer, the second writing the status
      b.apiServer.faults.stall({ method: 'PATCH', path: /\/aborts-status\/widgets\/w(\?|$)/, count: 1 });
      b.apiServer.faults.stall({ method: 'PATCH', path: /\/aborts-status\/widgets\/w\/status/, count: 1 });
      await mgr.start();
      await client.create({
        ...WIDGET,
        metadata: { namespace: 'aborts-status', name: 'w' },
        spec: { size: 1 },
      });
      const timedOut = (r: ControllerResult): boolean =>
        r.key === 'aborts-status/w' &&
        r.outcome === 'error' &&
        isReconcileTimeoutError((r.error?.cause as { cause?: unknown }).cause);
      await results.until(timedOut);
      await results.until((r) => r.key === 'aborts-status/w' && r.outcome === 'success');
      expect(b.apiServer.faults.counts.requestsStalled - stallsBefore).toBe(2);
      // both held requests were aborted by the client, not left open
      await waitFor('the server to release the aborted PATCHes', () =>
        b.apiServer.faults.stalledRequests().every((r) => !r.path.includes('/aborts-status/')),
      );
      await mgr.stop();
      expect(await b.cluster.get('widgets.example.com', 'aborts-status', 'w')).toMatchObject({
        metadata: { finalizers: ['example.com/abort-test'] },
        status: { phase: 'Ready' },
      });
    });
  },
  { only: 'embedded', why: 'needs fault injection: a response the server never sends' },
);
