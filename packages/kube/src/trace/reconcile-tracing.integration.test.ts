/**
 * Reconcile traces over HTTP, on both backends: the root span of each reconcile with its
 * attributes, the CLIENT child span of each API request it made through `ctx`, the links to a
 * retried reconcile and to a trigger's `tracing.k8s.io/traceparent`, and the tail rule — read from
 * `@opentelemetry/sdk-trace-base`'s InMemorySpanExporter.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Action } from '@rxkube/core';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { defer, filter, firstValueFrom, ReplaySubject, timeout } from 'rxjs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { ControllerResult } from '../controller/controller.js';
import { controller } from '../controller/controller.js';
import { Manager } from '../manager/manager.js';
import type { ReconcileContext } from '../controller/options.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { reconcileTracing, TRACEPARENT_ANNOTATION, wroteOrFailed } from './index.js';

const NS = 'trace-ctl';
const TAIL_NS = 'trace-tail';
const MGR_NS = 'trace-mgr';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
type ConfigMap = KubeObject & { data?: Record<string, string> };

/** Results of a run, and a way to wait for one (a guard against hanging, not a timing assertion). */
function resultsOf() {
  const results = new ReplaySubject<ControllerResult>(1_000);
  const until = (what: string, predicate: (r: ControllerResult) => boolean): Promise<ControllerResult> =>
    firstValueFrom(
      results.pipe(
        filter(predicate),
        timeout({ first: 15_000, with: () => Promise.reject(new Error(`timed out waiting for ${what}`)) }),
      ),
    );
  return { results, until };
}

describeEachBackend('reconcile traces over HTTP', (b) => {
  let client: KubeClient;
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('rxkube-test');
  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: TAIL_NS } });
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: MGR_NS } });
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    client.close();
    await provider.shutdown();
  });

  const roots = (name: string): ReadableSpan[] =>
    exporter
      .getFinishedSpans()
      .filter((s) => s.name === 'reconcile ConfigMap' && s.attributes['k8s.object.name'] === name);
  const childrenOf = (root: ReadableSpan): ReadableSpan[] =>
    exporter.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId);

  it('makes each reconcile a root span with its requests as children, and links retries and traceparents', async () => {
    const { results, until } = resultsOf();
    let failuresLeft = 1;
    const sub = controller<ConfigMap>({
      for: CM,
      owns: [SECRET],
      namespace: NS,
      name: 'copier',
      client,
      log: {},
      backoff: { baseMs: 1, maxMs: 5 },
      tracing: reconcileTracing(tracer),
    })
      .run((request, ctx) =>
        defer(async () => {
          if (request.name === 'flaky' && failuresLeft-- > 0) throw new Error('flaky fails once');
          await ctx.client.get(request);
          await ctx.apply({
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: {
              name: `${request.name}-child`,
              namespace: NS,
              ownerReferences: [
                {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  name: request.name,
                  uid: ctx.object.metadata.uid ?? '',
                  controller: true,
                },
              ],
            },
            stringData: { copy: ctx.object.data?.['value'] ?? '' },
          });
          return Action.awaitChange();
        }),
      )
      .subscribe(results);
    try {
      const created = await client.create<ConfigMap>({
        ...CM,
        metadata: { name: 'a', namespace: NS },
        data: { value: 'one' },
      });
      await until('the reconcile of a', (r) => r.key === `${NS}/a` && r.outcome === 'success');

      const [root] = roots('a');
      expect(roots('a')).toHaveLength(1);
      expect(root?.parentSpanContext).toBeUndefined();
      expect(root?.attributes).toMatchObject({
        'rxkube.controller': 'copier',
        'k8s.object.kind': 'ConfigMap',
        'k8s.namespace.name': NS,
        'k8s.object.name': 'a',
        'k8s.object.uid': created.metadata.uid,
        'rxkube.reconcile.reason': 'object updated',
        'rxkube.reconcile.attempt': 1,
        'rxkube.reconcile.outcome': 'success',
        'rxkube.reconcile.writes': 1,
      });
      expect(root?.attributes['rxkube.reconcile.queue_wait_ms']).toEqual(expect.any(Number));
      expect(root?.attributes['rxkube.reconcile.triggers']).toBeGreaterThanOrEqual(1);
      // one link per trigger; the creation carried no trace context: a link without one
      expect(root?.links[0]).toMatchObject({
        context: { traceId: '0'.repeat(32), spanId: '0'.repeat(16) },
        attributes: {
          'rxkube.trigger.reason': 'object updated',
          'k8s.object.kind': 'ConfigMap',
          'k8s.object.name': 'a',
        },
      });
      const children = childrenOf(root as ReadableSpan);
      // the GET and the apply (PATCH) of the reconcile; discovery requests may come before them
      const get = children.find(
        (s) =>
          s.name === 'GET' &&
          String(s.attributes['url.full']).endsWith(`/api/v1/namespaces/${NS}/configmaps/a`),
      );
      const apply = children.find((s) => s.name === 'PATCH');
      expect(get?.attributes).toMatchObject({
        'http.request.method': 'GET',
        'http.response.status_code': 200,
        'server.address': new URL(String(get?.attributes['url.full'])).hostname,
      });
      expect(get?.kind).toBe(2); // SpanKind.CLIENT
      expect(get?.spanContext().traceId).toBe(root?.spanContext().traceId);
      expect(apply?.attributes['url.full']).toMatch(
        new RegExp(`/api/v1/namespaces/${NS}/secrets/a-child\\?(.*&)?fieldManager=`),
      );
      expect([200, 201]).toContain(apply?.attributes['http.response.status_code']);
      exporter.reset();

      // the child changes (carrying the trace context of whoever changed it): a's rerun says why
      // and links to that context
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      await client.patch(
        { ...SECRET, namespace: NS, name: 'a-child' },
        { type: 'merge', body: { metadata: { annotations: { [TRACEPARENT_ANNOTATION]: traceparent } } } },
      );
      await until('the rerun of a', (r) => r.key === `${NS}/a` && roots('a').length > 0);
      const [rerun] = roots('a');
      expect(rerun?.attributes['rxkube.reconcile.reason']).toBe('related object updated');
      expect(rerun?.links).toHaveLength(1);
      expect(rerun?.links[0]?.context).toEqual({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId: 'b7ad6b7169203331',
        traceFlags: 1,
        isRemote: true,
      });
      expect(rerun?.links[0]?.attributes).toMatchObject({
        'rxkube.trigger.reason': 'related object updated',
        'k8s.object.kind': 'Secret',
        'k8s.object.name': 'a-child',
      });

      // a failure is recorded on its span; the retry is attempt 2, says why and links to it
      await client.create({ ...CM, metadata: { name: 'flaky', namespace: NS } });
      await until('the retry of flaky', (r) => r.key === `${NS}/flaky` && r.outcome === 'success');
      const [failed, retried] = roots('flaky');
      expect(roots('flaky')).toHaveLength(2);
      expect(failed?.status).toMatchObject({ code: 2 }); // SpanStatusCode.ERROR
      expect(failed?.attributes).toMatchObject({
        'rxkube.reconcile.outcome': 'error',
        'rxkube.reconcile.attempt': 1,
      });
      expect(failed?.attributes['rxkube.reconcile.retry_in_ms']).toEqual(expect.any(Number));
      expect(failed?.events.map((e) => e.name)).toContain('exception');
      expect(childrenOf(failed as ReadableSpan)).toEqual([]);
      expect(retried?.attributes).toMatchObject({
        'rxkube.reconcile.outcome': 'success',
        'rxkube.reconcile.attempt': 2,
        'rxkube.reconcile.reason': 'error retry',
      });
      expect(retried?.links).toEqual([
        {
          context: failed?.spanContext(),
          attributes: { 'rxkube.link.reason': 'error retry' },
        },
      ]);
    } finally {
      sub.unsubscribe();
    }
  });

  it('drops the reconciles that wrote nothing and did not fail, with the tail rule wroteOrFailed', async () => {
    const { results, until } = resultsOf();
    const sub = controller<ConfigMap>({
      for: CM,
      namespace: TAIL_NS,
      name: 'quiet',
      client,
      log: {},
      tracing: reconcileTracing(tracer, { tail: wroteOrFailed }),
    })
      .run((request, ctx) =>
        defer(async () => {
          await ctx.client.get(request);
          if (ctx.object.data?.['write'] === 'yes') {
            await ctx.patch(request, { type: 'merge', body: { metadata: { annotations: { seen: 'yes' } } } });
          }
          return request.name === 'requeued' ? Action.requeue(3_600_000) : Action.awaitChange();
        }),
      )
      .subscribe(results);
    try {
      await client.create({ ...CM, metadata: { name: 'reads', namespace: TAIL_NS } });
      await client.create({ ...CM, metadata: { name: 'requeued', namespace: TAIL_NS } });
      await client.create({
        ...CM,
        metadata: { name: 'writes', namespace: TAIL_NS },
        data: { write: 'yes' },
      });
      for (const name of ['reads', 'requeued', 'writes']) {
        await until(name, (r) => r.key === `${TAIL_NS}/${name}` && r.outcome !== 'error');
      }
      expect(roots('reads')).toEqual([]);
      expect(roots('requeued')).toEqual([]);
      const [kept] = roots('writes');
      expect(kept?.attributes['rxkube.reconcile.writes']).toBe(1);
      expect(childrenOf(kept as ReadableSpan).map((s) => s.attributes['http.request.method'])).toEqual(
        expect.arrayContaining(['GET', 'PATCH']),
      );
    } finally {
      sub.unsubscribe();
    }
  });

  it('traces the controllers of a Manager with its tracing, unless a registration sets its own', async () => {
    const mgr = new Manager({
      client,
      name: 'trace-test',
      logLevel: 'silent',
      tracing: reconcileTracing(tracer),
    });
    const reconcile = (request: ObjectRef, ctx: ReconcileContext<KubeObject>) =>
      defer(async () => {
        await ctx.client.get(request);
        return Action.awaitChange();
      });
    mgr.add('traced', { for: CM, namespace: MGR_NS }, reconcile);
    mgr.add(
      'own',
      { for: CM, namespace: MGR_NS, tracing: reconcileTracing(tracer, { head: () => false }) },
      reconcile,
    );
    const { results, until } = resultsOf();
    const sub = mgr.results$.subscribe(results);
    await mgr.start();
    try {
      await client.create({ ...CM, metadata: { name: 'm', namespace: MGR_NS } });
      await until('traced', (r) => r.controller === 'traced' && r.key === `${MGR_NS}/m`);
      await until('own', (r) => r.controller === 'own' && r.key === `${MGR_NS}/m`);
      const spans = roots('m');
      expect(spans.map((s) => s.attributes['rxkube.controller'])).toEqual(['traced']);
      const urls = childrenOf(spans[0] as ReadableSpan).map((s) => String(s.attributes['url.full']));
      expect(urls.filter((u) => u.endsWith(`/api/v1/namespaces/${MGR_NS}/configmaps/m`))).toHaveLength(1);
    } finally {
      sub.unsubscribe();
      await mgr.stop();
    }
  });
});
