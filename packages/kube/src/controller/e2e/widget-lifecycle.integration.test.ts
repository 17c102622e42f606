/**
 * End to end over HTTP against `@rxkube/testing`'s API server: a Widget custom resource with a
 * status subresource and a finalizer, reconciled by `controller()` with its status sink, finalizer
 * and Event recorder wired in (docs/promises.md promises 4–8).
 *
 * Waiting is deterministic: on controller results and recorder outcomes (firstValueFrom + filter +
 * timeout), never on time. "Nothing else happened" is proved with a barrier: the controller runs
 * with concurrency 1 and its queue is FIFO across keys, so once a reconcile of a later-created
 * barrier object finished, every trigger delivered before it has been handled.
 */
import { Action } from '@rxkube/core';
import { waitFor as eventually } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { defer, filter, firstValueFrom, lastValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../../client/kube-client.js';
import { ensureCrd } from '../../crd/ensure-crd.js';
import { EventRecorder } from '../../events/event-recorder.js';
import type { EventOutcome } from '../../events/record-events.js';
import { setObservedGeneration } from '../../sink/draft-status.js';
import type { StatusWriteOutcome } from '../../sink/status-write.js';
import type { ControllerReconcile } from '../controller.js';
import { controller } from '../controller.js';
import type { Widget } from './harness.test.helper.js';
import { countingClient, Results, WIDGET, widgetCrd } from './harness.test.helper.js';

const FIN = 'example.com/cleanup';
const RESOURCE = 'widgets.example.com';

describeEachBackend('controller end to end (Widget with status, finalizer and Events, over HTTP)', (b) => {
  let client: KubeClient;
  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    for (const name of ['e2e', 'storm']) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    await ensureCrd(client, widgetCrd, { fieldManager: 'widget-e2e' });
  });
  afterAll(() => {
    client.close();
  });
  /** The Widget as the server holds it, read over HTTP as the admin. */
  const stored = (namespace: string, name: string): Promise<Widget | undefined> =>
    b.cluster.get(RESOURCE, namespace, name) as Promise<Widget | undefined>;

  const widget = (namespace: string, name: string, size: number): Widget => ({
    ...WIDGET,
    metadata: { namespace, name },
    spec: { size },
  });
  const ref = (namespace: string, name: string) => ({ ...WIDGET, namespace, name });

  it('create → finalizer → status once → spec change → observedGeneration → delete → cleanup → gone; Events aggregated', async () => {
    const NS = 'e2e';
    const counting = countingClient(client);
    const recorder = new EventRecorder(client, {
      reportingController: 'example.com/widgets',
      reportingInstance: 'e2e',
      seriesIntervalMs: 0,
    });
    const outcomes: EventOutcome[] = [];
    const outcomesSub = recorder.outcomes$.subscribe((o) => outcomes.push(o));
    /** Per reconcile: key, generation, and whether the finalizer was on the server before it ran. */
    const calls: { key: string; generation: number | undefined; finalizerOnServer: boolean }[] = [];
    const running = new Set<string>();
    let overlaps = 0;
    const cleanups: string[] = [];
    const statusOutcomes: { key: string; outcome: StatusWriteOutcome<Widget> }[] = [];

    const reconcile: ControllerReconcile<Widget> = (request, ctx) =>
      defer(async () => {
        if (running.has(ctx.key)) overlaps++;
        running.add(ctx.key);
        const onServer = await stored(request.namespace ?? '', request.name);
        calls.push({
          key: ctx.key,
          generation: ctx.object.metadata.generation,
          finalizerOnServer: onServer?.metadata.finalizers?.includes(FIN) === true,
        });
        ctx.record({ type: 'Normal', reason: 'Reconciled', action: 'Reconcile', note: 'reconciled' });
        const object = ctx.object;
        statusOutcomes.push({
          key: ctx.key,
          outcome: await lastValueFrom(
            ctx.status((s) => {
              setObservedGeneration(s, object);
              s.phase = 'Ready';
              s.size = object.spec?.size ?? 0;
            }),
          ),
        });
        running.delete(ctx.key);
        return Action.awaitChange();
      });

    const results = new Results(
      controller<Widget>({
        for: WIDGET,
        namespace: NS,
        client: counting,
        log: {},
        status: { fieldManager: 'widget-e2e' },
        finalizer: {
          name: FIN,
          cleanup: (object) =>
            defer(async () => {
              cleanups.push(object.metadata.name ?? '');
              // idempotent: deleting what may already be gone
              await Promise.resolve();
            }),
        },
        recorder,
      }).run(reconcile),
    );
    const callsOf = (name: string) => calls.filter((c) => c.key === `${NS}/${name}`);
    const patchesOf = (name: string) => counting.patches.filter((p) => p.key === `${NS}/${name}`);
    const statusOf = async (name: string) => (await stored(NS, name))?.status;
    /** Creates a fresh object and waits for its reconcile: every earlier trigger has been handled. */
    let barriers = 0;
    const barrier = async (): Promise<void> => {
      const name = `barrier-${++barriers}`;
      const since = results.mark;
      await client.create(widget(NS, name, 1));
      await results.until(name, since, (r) => r.key === `${NS}/${name}` && r.outcome === 'success');
    };
    try {
      // create → reconcile: the finalizer is on the server before the reconcile's side effects
      let since = results.mark;
      await client.create(widget(NS, 'w', 1));
      await results.until(
        'first reconcile of w',
        since,
        (r) => r.key === `${NS}/w` && r.outcome === 'success',
      );
      expect(callsOf('w')).toEqual([{ key: `${NS}/w`, generation: 1, finalizerOnServer: true }]);
      expect((await stored(NS, 'w'))?.metadata.finalizers).toEqual([FIN]);
      expect(await statusOf('w')).toEqual({ observedGeneration: 1, phase: 'Ready', size: 1 });

      // status written once; its echo and the finalizer's echo trigger no reconcile (read-own-writes)
      await barrier();
      expect(callsOf('w')).toHaveLength(1);
      expect(patchesOf('w')).toHaveLength(1);
      expect(patchesOf('w')[0]?.patch).toEqual({
        type: 'merge',
        body: { status: { observedGeneration: 1, phase: 'Ready', size: 1 } },
      });

      // a label change is a trigger (not ours) but the desired status is the same: no PATCH
      since = results.mark;
      await client.patch(ref(NS, 'w'), { type: 'merge', body: { metadata: { labels: { touched: 'yes' } } } });
      await results.until('reconcile after the label', since, (r) => r.key === `${NS}/w`);
      await barrier();
      expect(callsOf('w')).toHaveLength(2);
      expect(patchesOf('w')).toHaveLength(1);
      expect(statusOutcomes.filter((o) => o.key === `${NS}/w`).at(-1)?.outcome).toEqual({
        type: 'unchanged',
        requests: 0,
        conflicts: 0,
      });

      // spec change → generation 2 → status follows, one more PATCH
      since = results.mark;
      await client.patch(ref(NS, 'w'), { type: 'merge', body: { spec: { size: 3 } } });
      await eventually('observedGeneration 2', async () => (await statusOf('w'))?.observedGeneration === 2);
      expect((await stored(NS, 'w'))?.metadata.generation).toBe(2);
      expect(await statusOf('w')).toEqual({ observedGeneration: 2, phase: 'Ready', size: 3 });
      await barrier();
      expect(callsOf('w').map((c) => c.generation)).toEqual([1, 1, 2]);
      // one PATCH per distinct desired status, never two for the same content
      const bodies = patchesOf('w').map((p) => JSON.stringify(p.patch.body));
      expect(bodies).toHaveLength(2);
      expect(new Set(bodies).size).toBe(bodies.length);

      // delete → deletionTimestamp → cleanup → finalizer removed with test+remove → gone
      since = results.mark;
      await client.delete(ref(NS, 'w'));
      await results.until(
        'w skipped once gone',
        since,
        (r) => r.key === `${NS}/w` && r.outcome === 'skipped',
      );
      expect(await stored(NS, 'w')).toBeUndefined();
      expect(cleanups.filter((n) => n === 'w')).toEqual(['w']);
      const reconcilesOfW = callsOf('w').length;
      expect(reconcilesOfW).toBe(3); // the deleting object went to cleanup, not to the reconcile

      // nothing more for w: changes elsewhere are reconciled, w never again
      await barrier();
      expect(callsOf('w')).toHaveLength(reconcilesOfW);
      expect(patchesOf('w')).toHaveLength(2);
      expect(overlaps).toBe(0);
      expect(results.all.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);

      // Events: one events.k8s.io/v1 Event for w, its repeats aggregated into a series
      // `series` (or `created`) outcome of w's Event with the count of its reconciles
      const wrote = (o: EventOutcome): boolean =>
        (o.type === 'series' || o.type === 'created') && o.name.startsWith('w.') && o.count === reconcilesOfW;
      if (!outcomes.some(wrote)) {
        await firstValueFrom(
          recorder.outcomes$.pipe(
            filter(wrote),
            timeout({
              first: 10_000,
              with: () => Promise.reject(new Error(`no series of ${reconcilesOfW}`)),
            }),
          ),
        );
      }
      expect(outcomes.filter((o) => o.type === 'created' && o.name.startsWith('w.'))).toHaveLength(1);
      expect(outcomes.filter((o) => o.type === 'failed' || o.type === 'dropped')).toEqual([]);
      const events = (await b.cluster.list('events.events.k8s.io', NS)).filter(
        (e) => (e['regarding'] as { name?: string } | undefined)?.name === 'w',
      );
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        reason: 'Reconciled',
        action: 'Reconcile',
        type: 'Normal',
        reportingController: 'example.com/widgets',
        regarding: { kind: 'Widget', name: 'w', namespace: NS },
        series: { count: reconcilesOfW },
      });
    } finally {
      results.stop();
      outcomesSub.unsubscribe();
    }
  });

  it('converges under a conflict storm (another writer changes labels and status), never reconciling a key twice at once', async () => {
    const NS = 'storm';
    // Pinning the resourceVersion makes the concurrent writer cause real 409s at the server.
    let interleaved = 0;
    const counting = countingClient(client, {
      pinResourceVersion: true,
      // another writer's label change lands between our read and the first 3 PATCHes: real 409s
      beforePatch: async (r) => {
        if (++interleaved > 3) return;
        await client.patch(r, {
          type: 'merge',
          body: { metadata: { labels: { raced: String(interleaved) } } },
        });
      },
    });
    const running = new Set<string>();
    let overlaps = 0;
    const results = new Results(
      controller<Widget>({
        for: WIDGET,
        namespace: NS,
        client: counting,
        log: {},
        status: { fieldManager: 'widget-e2e', maxAttempts: 50, conflictBackoff: { baseMs: 1, maxMs: 5 } },
      }).run((_request, ctx) =>
        defer(async () => {
          if (running.has(ctx.key)) overlaps++;
          running.add(ctx.key);
          const object = ctx.object;
          await lastValueFrom(
            ctx.status((s) => {
              setObservedGeneration(s, object);
              s.phase = 'Ready';
              s.size = object.spec?.size ?? 0;
            }),
          );
          running.delete(ctx.key);
          return Action.awaitChange();
        }),
      ),
    );
    try {
      await client.create(widget(NS, 's', 1));
      await eventually('first status', async () => (await stored(NS, 's'))?.status !== undefined);
      // the other writer: 60 label and foreign-status changes, with 6 spec changes among them
      const writer = (async () => {
        for (let i = 1; i <= 60; i++) {
          await client.patch(ref(NS, 's'), {
            type: 'merge',
            body: { metadata: { labels: { n: String(i) } } },
          });
          await client.patch(
            ref(NS, 's'),
            { type: 'merge', body: { status: { external: `e${i}` } } },
            { subresource: 'status' },
          );
          if (i % 10 === 0) await client.patch(ref(NS, 's'), { type: 'merge', body: { spec: { size: i } } });
        }
      })();
      await writer;
      const converged = async (): Promise<boolean> => {
        const o = await stored(NS, 's');
        return o?.status?.observedGeneration === o?.metadata.generation && o?.status?.size === 60;
      };
      await eventually('convergence', converged, { timeoutMs: 30_000 });
      const final = await stored(NS, 's');
      expect(final?.metadata.generation).toBe(7);
      expect(final?.['status']).toEqual({ observedGeneration: 7, phase: 'Ready', size: 60, external: 'e60' });
      expect(overlaps).toBe(0);
      expect(results.all.filter((r) => r.outcome === 'terminal')).toEqual([]);
      // the writer interleaved with our PATCHes: each of the first 3 met a 409, was re-read and retried
      expect(counting.gets.length).toBeGreaterThanOrEqual(3);
    } finally {
      results.stop();
    }
  });
});
