/**
 * Trace context across objects and into user code, over HTTP on both backends (KEP-5915, the
 * facts in ./README.md): a reconcile stamps the children it creates or changes with its
 * `tracing.k8s.io/traceparent`, never through a status write or a JSON patch, and keeps the stamp
 * of an unchanged child (a re-apply stays a no-op); a reconcile of another controller triggered by such a child links to it, so
 * parent → child → grandchild is one linked trace; and the reconcile's span is the active context
 * of the user's code (an `AsyncLocalStorageContextManager` registered as an SDK's `register()`
 * does), so the user's own spans are its children.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { defer, filter, firstValueFrom, map, merge, ReplaySubject, switchMap, timeout, timer } from 'rxjs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { ControllerResult } from '../controller/controller.js';
import { controller } from '../controller/controller.js';
import type { KubeObject } from '../types.js';
import { formatTraceparent, reconcileTracing, TRACEPARENT_ANNOTATION } from './index.js';

const NS = 'trace-chain';
const GRAND_NS = 'trace-chain-grand';
const USER_NS = 'trace-user';
const PATCH_NS = 'trace-patch';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
type ConfigMap = KubeObject & { data?: Record<string, string> };
type Secret = KubeObject & { data?: Record<string, string> };

/** Results of runs, and a way to wait for one (a guard against hanging, not a timing assertion). */
function resultsOf() {
  const results = new ReplaySubject<ControllerResult>(1_000);
  const until = (what: string, predicate: (r: ControllerResult) => boolean): Promise<ControllerResult> =>
    firstValueFrom(
      results.pipe(
        filter(predicate),
        timeout({ first: 20_000, with: () => Promise.reject(new Error(`timed out waiting for ${what}`)) }),
      ),
    );
  return { results, until };
}

const stampOf = (o: KubeObject | undefined): string | undefined =>
  o?.metadata.annotations?.[TRACEPARENT_ANNOTATION];

describeEachBackend('trace context across objects and into user code', (b) => {
  let client: KubeClient;
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('rxkube-test');
  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    for (const name of [NS, GRAND_NS, USER_NS, PATCH_NS]) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    client.close();
    await provider.shutdown();
  });

  const spansOf = (kind: string, name: string): ReadableSpan[] =>
    exporter
      .getFinishedSpans()
      .filter((s) => s.name === `reconcile ${kind}` && s.attributes['k8s.object.name'] === name);
  const parentOf = (span: ReadableSpan | undefined): string | undefined =>
    span === undefined ? undefined : formatTraceparent(span.spanContext());

  it('stamps the children a reconcile creates or changes, and links the next controller: one linked trace', async () => {
    const { results, until } = resultsOf();
    // parents: a ConfigMap in NS owns a Secret whose data copies the parent's, and marks its status
    const parents = controller<ConfigMap>({
      for: CM,
      owns: [SECRET],
      namespace: NS,
      name: 'parents',
      client,
      log: {},
      tracing: reconcileTracing(tracer),
    }).run((request, ctx) =>
      defer(async () => {
        await ctx.apply({
          ...SECRET,
          metadata: {
            name: `${request.name}-child`,
            namespace: NS,
            ownerReferences: [
              { ...CM, name: request.name, uid: ctx.object.metadata.uid ?? '', controller: true },
            ],
          },
          // `data`, not `stringData`: kube-apiserver v1.24 re-writes a Secret applied with
          // stringData whenever the apply falls in a later second than the last one (the stored
          // object never holds stringData, so the field manager sees a change and moves its time),
          // which would defeat the unchanged-apply check below on the real server
          data: { copy: Buffer.from(ctx.object.data?.['value'] ?? '').toString('base64') },
        });
        return Action.awaitChange();
      }),
    );
    // children: each Secret in NS makes a grandchild ConfigMap in another namespace (watched)
    const children = controller<Secret>({
      for: SECRET,
      namespace: NS,
      watches: [
        {
          resource: CM,
          namespace: GRAND_NS,
          map: (cm) => [{ namespace: NS, name: (cm.metadata.name ?? '').replace(/-grand$/, '') }],
        },
      ],
      name: 'children',
      client,
      log: {},
      tracing: reconcileTracing(tracer),
    }).run((request, ctx) =>
      defer(async () => {
        await ctx.apply({
          ...CM,
          metadata: { name: `${request.name}-grand`, namespace: GRAND_NS },
          data: { copy: ctx.object.data?.['copy'] ?? '' },
        });
        return Action.awaitChange();
      }),
    );
    const sub = merge(parents, children).subscribe(results);
    /** Waits until both controllers have exported a span of `p` and of `p-child` since the last reset. */
    const bothTraced = async (what: string) => {
      await until(
        `${what}: parents`,
        (r) => r.controller === 'parents' && spansOf('ConfigMap', 'p').length > 0,
      );
      await until(
        `${what}: children`,
        (r) => r.controller === 'children' && spansOf('Secret', 'p-child').length > 0,
      );
    };
    try {
      await client.create<ConfigMap>({
        ...CM,
        metadata: { name: 'p', namespace: NS },
        data: { value: 'one' },
      });
      await bothTraced('the first reconciles');
      const child = await client.get<Secret>({ ...SECRET, namespace: NS, name: 'p-child' });
      const grand = await client.get<ConfigMap>({ ...CM, namespace: GRAND_NS, name: 'p-child-grand' });
      // the child carries the context of the parent's reconcile, the grandchild the child's
      const parentSpan = spansOf('ConfigMap', 'p').find((s) => parentOf(s) === stampOf(child));
      const childSpan = spansOf('Secret', 'p-child').find((s) => parentOf(s) === stampOf(grand));
      expect(parentSpan).toBeDefined();
      expect(childSpan).toBeDefined();
      // the child's reconcile is a new root, linked to the parent's: one linked trace
      expect(childSpan?.parentSpanContext).toBeUndefined();
      expect(childSpan?.links.map((l) => l.context)).toContainEqual({
        ...parentSpan?.spanContext(),
        isRemote: true,
      });
      // the applied configuration owns the annotation (server-side apply field ownership)
      const fields = child.metadata.managedFields as { manager?: string; fieldsV1?: unknown }[] | undefined;
      const owner = fields?.find((f) => f.manager === 'parents');
      expect(JSON.stringify(owner?.fieldsV1)).toContain(`"f:${TRACEPARENT_ANNOTATION}"`);

      // the parent changes elsewhere (a label): its reconcile re-applies the unchanged child, which
      // keeps its stamp and its resourceVersion — no write, no loop. In a later second than the
      // child's last write: a real server writes a re-apply that moves the managedFields time then.
      const childWritten = Date.parse(
        String((child.metadata.managedFields?.[0] as { time?: string } | undefined)?.time),
      );
      await waitFor('a later second than the child’s last write', () =>
        Date.now() >= childWritten + 1_000 ? true : undefined,
      );
      exporter.reset();
      await client.patch(
        { ...CM, namespace: NS, name: 'p' },
        { type: 'merge', body: { metadata: { labels: { touched: 'yes' } } } },
      );
      await until(
        'the rerun of p',
        (r) => r.controller === 'parents' && spansOf('ConfigMap', 'p').length > 0,
      );
      expect(spansOf('ConfigMap', 'p')[0]?.attributes['rxkube.reconcile.outcome']).toBe('success');
      const unchanged = await client.get<Secret>({ ...SECRET, namespace: NS, name: 'p-child' });
      expect(stampOf(unchanged)).toBe(stampOf(child));
      expect(unchanged.metadata.resourceVersion).toBe(child.metadata.resourceVersion);

      // the parent's data changes: the child changes, stamped with the new reconcile's context,
      // and the child's next reconcile links to it
      exporter.reset();
      await client.patch(
        { ...CM, namespace: NS, name: 'p' },
        { type: 'merge', body: { data: { value: 'two' } } },
      );
      await bothTraced('the change');
      const changed = await client.get<Secret>({ ...SECRET, namespace: NS, name: 'p-child' });
      expect(stampOf(changed)).not.toBe(stampOf(child));
      const changer = spansOf('ConfigMap', 'p').find((s) => parentOf(s) === stampOf(changed));
      expect(changer).toBeDefined();
      expect(spansOf('Secret', 'p-child').flatMap((s) => s.links.map((l) => l.context.spanId))).toContain(
        changer?.spanContext().spanId,
      );
    } finally {
      sub.unsubscribe();
    }
  });

  it('stamps a merge patch and a replace only when they change the child', async () => {
    const { results, until } = resultsOf();
    const sub = controller<ConfigMap>({
      for: CM,
      owns: [SECRET],
      namespace: PATCH_NS,
      name: 'patcher',
      client,
      log: {},
      tracing: reconcileTracing(tracer),
    })
      .run((request, ctx) =>
        defer(async () => {
          const value = ctx.object.data?.['value'] ?? '';
          // a merge patch of one child, a replace of the other (as read from the cache)
          await ctx.patch(
            { ...SECRET, namespace: PATCH_NS, name: 'merged' },
            { type: 'merge', body: { stringData: { value } } },
          );
          const [replaced] = ctx.owned(SECRET).filter((s) => s.metadata.name === 'replaced');
          if (replaced !== undefined) {
            await ctx.client.replace({ ...replaced, data: { value: Buffer.from(value).toString('base64') } });
          }
          return Action.awaitChange();
        }),
      )
      .subscribe(results);
    try {
      const parent = await client.create<ConfigMap>({
        ...CM,
        metadata: { name: 'p', namespace: PATCH_NS },
        data: { value: 'one' },
      });
      const owner = [{ ...CM, name: 'p', uid: parent.metadata.uid ?? '', controller: true }];
      for (const name of ['merged', 'replaced']) {
        await client.create({ ...SECRET, metadata: { name, namespace: PATCH_NS, ownerReferences: owner } });
      }
      const children = async () =>
        Promise.all(
          ['merged', 'replaced'].map((name) => client.get<Secret>({ ...SECRET, namespace: PATCH_NS, name })),
        );
      const traced = () => spansOf('ConfigMap', 'p').map((s) => parentOf(s));
      // both children change (data one): stamped by the reconcile that changed them
      await waitFor(
        'both children stamped',
        async () =>
          (await children()).every((c) => c.data?.['value'] === 'b25l' && traced().includes(stampOf(c))),
        { timeoutMs: 20_000 },
      );
      const before = await children();
      // the parent changes elsewhere: the patch and the replace change nothing, keep the stamps
      exporter.reset();
      await client.patch(
        { ...CM, namespace: PATCH_NS, name: 'p' },
        { type: 'merge', body: { metadata: { labels: { touched: 'yes' } } } },
      );
      await until('the rerun', (r) => r.key === `${PATCH_NS}/p` && spansOf('ConfigMap', 'p').length > 0);
      const after = await children();
      expect(after.map(stampOf)).toEqual(before.map(stampOf));
      expect(after.map((c) => c.metadata.resourceVersion)).toEqual(
        before.map((c) => c.metadata.resourceVersion),
      );
      // the parent's data changes: both children change, stamped anew
      exporter.reset();
      await client.patch(
        { ...CM, namespace: PATCH_NS, name: 'p' },
        { type: 'merge', body: { data: { value: 'two' } } },
      );
      await waitFor(
        'both children restamped',
        async () =>
          (await children()).every((c) => c.data?.['value'] === 'dHdv' && traced().includes(stampOf(c))),
        { timeoutMs: 20_000 },
      );
    } finally {
      sub.unsubscribe();
    }
  });

  it("never stamps a status write, a JSON patch or the reconcile's own object", async () => {
    const { results, until } = resultsOf();
    const POD = { apiVersion: 'v1', kind: 'Pod' } as const;
    const sub = controller<ConfigMap>({
      for: CM,
      owns: [POD],
      namespace: USER_NS,
      name: 'statuses',
      client,
      log: {},
      tracing: reconcileTracing(tracer),
    })
      .run((request, ctx) =>
        defer(async () => {
          if (request.name !== 'p') return Action.awaitChange();
          // a status write through the client that also touches metadata (a watched Pod)…
          await ctx.client.patch(
            { ...POD, namespace: USER_NS, name: 'pod' },
            { type: 'merge', body: { metadata: { labels: { seen: 'yes' } }, status: { message: 'seen' } } },
            { subresource: 'status' },
          );
          // …a change of the reconcile's own object (no child of it)…
          await ctx.patch(request, { type: 'merge', body: { metadata: { labels: { own: 'yes' } } } });
          // …and a JSON patch of a ConfigMap
          await ctx.patch(
            { ...CM, namespace: USER_NS, name: 'json' },
            { type: 'json', body: [{ op: 'add', path: '/data', value: { changed: 'yes' } }] },
          );
          return Action.awaitChange();
        }),
      )
      .subscribe(results);
    try {
      await client.create({
        ...POD,
        metadata: { name: 'pod', namespace: USER_NS },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      await client.create({ ...CM, metadata: { name: 'json', namespace: USER_NS } });
      await client.create({ ...CM, metadata: { name: 'p', namespace: USER_NS } });
      await until('p', (r) => r.key === `${USER_NS}/p` && r.outcome === 'success');
      const pod = await client.get<KubeObject & { status?: { message?: string } }>({
        ...POD,
        namespace: USER_NS,
        name: 'pod',
      });
      expect(pod.status?.message).toBe('seen');
      expect(stampOf(pod)).toBeUndefined();
      const json = await client.get<ConfigMap>({ ...CM, namespace: USER_NS, name: 'json' });
      expect(json.data).toEqual({ changed: 'yes' });
      expect(stampOf(json)).toBeUndefined();
      const own = await client.get<ConfigMap>({ ...CM, namespace: USER_NS, name: 'p' });
      expect(own.metadata.labels).toEqual({ own: 'yes' });
      expect(stampOf(own)).toBeUndefined();
    } finally {
      sub.unsubscribe();
    }
  });

  it("makes the reconcile's span the active context of the user's code, across awaits and Observables", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    const { results, until } = resultsOf();
    const sub = controller<ConfigMap>({
      for: CM,
      namespace: USER_NS,
      name: 'user',
      client,
      log: {},
      tracing: reconcileTracing(tracer),
    })
      .run((request) => {
        if (request.name !== 'u') return [Action.awaitChange()];
        // called in the span's context…
        tracer.startSpan('user: called').end();
        // …and an Observable it returns runs there too, after an await and in a timer
        return defer(async () => {
          await new Promise((resolve) => setImmediate(resolve));
          await tracer.startActiveSpan('user: after an await', async (span) => {
            await client.get({ ...CM, namespace: USER_NS, name: 'u' });
            tracer.startSpan('user: nested').end();
            span.end();
          });
        }).pipe(
          switchMap(() => timer(1)),
          map(() => {
            tracer.startSpan('user: in a timer').end();
            return Action.awaitChange();
          }),
        );
      })
      .subscribe(results);
    try {
      await client.create({ ...CM, metadata: { name: 'u', namespace: USER_NS } });
      await until('u', (r) => r.key === `${USER_NS}/u` && r.outcome === 'success');
      const [root] = spansOf('ConfigMap', 'u');
      const named = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name);
      const rootId = root?.spanContext().spanId;
      expect(named('user: called')?.parentSpanContext?.spanId).toBe(rootId);
      expect(named('user: after an await')?.parentSpanContext?.spanId).toBe(rootId);
      expect(named('user: in a timer')?.parentSpanContext?.spanId).toBe(rootId);
      expect(named('user: nested')?.parentSpanContext?.spanId).toBe(
        named('user: after an await')?.spanContext().spanId,
      );
      for (const name of ['user: called', 'user: after an await', 'user: nested', 'user: in a timer']) {
        expect(named(name)?.spanContext().traceId).toBe(root?.spanContext().traceId);
      }
    } finally {
      sub.unsubscribe();
      context.disable();
    }
  });
});
