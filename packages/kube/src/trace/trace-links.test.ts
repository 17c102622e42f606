/**
 * The link sets of reconcile spans, in marbles: triggers coalesced while a reconcile runs become
 * one link each on the next reconcile's span — to the trigger object's `tracing.k8s.io/traceparent`,
 * or without a context when it carries none — bounded by `maxLinks` with the rest counted; a
 * requeue links to the run that asked. Fake watches (hot streams through a real Store), the span
 * clock and the controller on the TestScheduler.
 */
import type { Link, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Action } from '@rxkube/core';
import { ScriptedWatchRegistry, watchEvent } from '@rxkube/testing/controller';
import { testScheduler } from '@rxkube/testing/vitest';
import type { Observable } from 'rxjs';
import { map } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';

import type { ControllerOptions, ControllerResult } from '../controller/controller.js';
import { controller } from '../controller/controller.js';
import type { KubeObject, WatchEvent } from '../types.js';
import type { ReconcileTracingOptions } from './index.js';
import { reconcileTracing, TRACEPARENT_ANNOTATION } from './index.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const I: WatchEvent = watchEvent.init();
const D: WatchEvent = watchEvent.initDone();
const T1 = '00-11111111111111111111111111111111-1111111111111111-01';
const T2 = '00-22222222222222222222222222222222-2222222222222222-01';
const NONE: SpanContext = { traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 };
const remote = (traceparent: string): SpanContext => {
  const [, traceId = '', spanId = ''] = traceparent.split('-');
  return { traceId, spanId, traceFlags: 1, isRemote: true };
};

function obj(name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { metadata: { namespace: 'ns', name, uid: `uid-${name}`, resourceVersion: rv, ...extra } };
}
const ownedBy = (owner: string) => ({
  ownerReferences: [{ ...CM, name: owner, uid: `uid-${owner}`, controller: true }],
});
const stamped = (traceparent: string) => ({ annotations: { [TRACEPARENT_ANNOTATION]: traceparent } });
const ia = (object: KubeObject): WatchEvent => ({ type: 'InitApply', object });
const apply = (object: KubeObject): WatchEvent => ({ type: 'Apply', object });
const short = (r: ControllerResult): string => `${r.key}:${r.outcome}`;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
afterEach(() => exporter.reset());

function options(
  streams: Record<string, Observable<WatchEvent>>,
  tracing: ReconcileTracingOptions,
  now: () => number,
): ControllerOptions<KubeObject> {
  return {
    for: CM,
    owns: [SECRET],
    registry: new ScriptedWatchRegistry(streams),
    rateLimit: false,
    random: () => 0,
    log: {},
    name: 'links',
    tracing: reconcileTracing(provider.getTracer('marbles'), { now, ...tracing }),
  };
}

/** A link as asserted: its context, the trigger's reason, object (name@resourceVersion) and wait. */
const link = (context: SpanContext, reason: string, object: string, waitMs: number): Link => ({
  context,
  attributes: {
    'rxkube.trigger.reason': reason,
    'k8s.namespace.name': 'ns',
    'k8s.object.name': object.split('@')[0] ?? '',
    'k8s.object.resource_version': object.split('@')[1] ?? '',
    'rxkube.trigger.wait_ms': waitMs,
  },
});
const linksOf = (span: ReadableSpan | undefined) =>
  span?.links.map((l) => ({ context: l.context, attributes: l.attributes }));

describe('reconcile span links (marbles)', () => {
  it('links each trigger coalesced while the key was busy, with or without a trace context', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      // a@1 (no context) at 0; while its reconcile runs (10 frames): its child s stamped T2 at 4,
      // a@2 stamped T1 and its child u (no context) at 6 — coalesced into the rerun at 10
      const primary = hot<WatchEvent>('(IaD)-A', {
        I,
        D,
        a: ia(obj('a', '1')),
        A: apply(obj('a', '2', stamped(T1))),
      });
      const secrets = hot<WatchEvent>('(ID)s-u', {
        I,
        D,
        s: apply(obj('s', '1', { ...ownedBy('a'), ...stamped(T2) })),
        u: apply(obj('u', '1', ownedBy('a'))),
      });
      const results$ = controller(
        options({ ConfigMap: primary, Secret: secrets }, {}, () => ts.now()),
        ts,
      ).run(() => cold('----------(d|)', { d: Action.awaitChange() }));
      expectObservable(results$.pipe(map(short)), '^ 40ms !').toBe('----------a---------a', {
        a: 'ns/a:success',
      });
    });
    const [first, rerun] = exporter.getFinishedSpans();
    expect(linksOf(first)).toEqual([link(NONE, 'object updated', 'a@1', 0)]);
    expect(first?.attributes['rxkube.reconcile.triggers']).toBe(1);
    // frame arithmetic: the rerun starts at 10; s came at 4 (after the 4-frame group '(ID)'),
    // A and u at 6 (after the 5-frame group '(IaD)' and '-'; s, '-', u): in arrival order
    expect(linksOf(rerun)).toEqual([
      link(remote(T2), 'related object updated', 's@1', 6),
      link(remote(T1), 'object updated', 'a@2', 4),
      link(NONE, 'related object updated', 'u@1', 4),
    ]);
    expect(rerun?.attributes).toMatchObject({
      'rxkube.reconcile.triggers': 3,
      'rxkube.reconcile.reasons': ['related object updated', 'object updated'],
    });
  });

  it('keeps at most maxLinks links, the requeue link first, and counts the triggers left out', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      // the first reconcile asks for a requeue in 10; three child triggers arrive meanwhile
      const primary = hot<WatchEvent>('(IaD)', { I, D, a: ia(obj('a', '1')) });
      const secrets = hot<WatchEvent>('(ID)stu', {
        I,
        D,
        s: apply(obj('s', '1', { ...ownedBy('a'), ...stamped(T1) })),
        t: apply(obj('t', '1', ownedBy('a'))),
        u: apply(obj('u', '1', { ...ownedBy('a'), ...stamped(T2) })),
      });
      let calls = 0;
      const results$ = controller(
        options({ ConfigMap: primary, Secret: secrets }, { maxLinks: 2 }, () => ts.now()),
        ts,
      ).run(() =>
        calls++ === 0
          ? cold('--------(d|)', { d: Action.requeue(10) })
          : cold('(d|)', { d: Action.awaitChange() }),
      );
      // the first ends at 8 (requeue due at 18); the triggers at 4, 5, 6 rerun it at 8
      expectObservable(results$.pipe(map(short)), '^ 40ms !').toBe('--------(ab)', {
        a: 'ns/a:requeue',
        b: 'ns/a:success',
      });
    });
    const [first, rerun] = exporter.getFinishedSpans();
    // maxLinks 2: the link to the run that asked for the requeue, then s (T1, at 4; the rerun at
    // 8); t and u are counted only
    expect(linksOf(rerun)).toEqual([
      { context: first?.spanContext(), attributes: { 'rxkube.link.reason': 'requeue requested' } },
      link(remote(T1), 'related object updated', 's@1', 4),
    ]);
    expect(rerun?.attributes).toMatchObject({
      'rxkube.reconcile.triggers': 3,
      'rxkube.reconcile.triggers_dropped': 2,
      'rxkube.reconcile.reasons': ['related object updated', 'requeue requested'],
    });
    expect(first?.attributes['rxkube.reconcile.outcome']).toBe('requeue');
  });
});
