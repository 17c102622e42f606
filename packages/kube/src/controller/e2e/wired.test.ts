/**
 * Marble tests of the controller with its status sink and finalizer wired in: fake watches (a
 * `WatchRegistry` of `hot()` streams), fake ports returning `cold()`, time on the TestScheduler.
 */
import { Action } from '@rxkube/core';
import type { Observable } from 'rxjs';
import { defer, map, mergeMap, throwError } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { testScheduler } from '@rxkube/testing/vitest';
import { ScriptedWatchRegistry, watchEvent } from '@rxkube/testing/controller';
import { describe, expect, it } from 'vitest';

import type { Client } from '../../client/client.js';
import { marbleClient } from '../../client/marble-client.test.helper.js';
import type { JsonPatchOperation, Patch } from '../../client/verb-options.js';
import type { WatchRegistry } from '../../reflector/watch-registry.js';
import type { WatchEvent } from '../../types.js';
import type { ControllerResult } from '../controller.js';
import { controller } from '../controller.js';
import type { Widget } from './harness.test.helper.js';
import { WIDGET } from './harness.test.helper.js';

const FIN = 'example.com/cleanup';
const I = watchEvent.init<Widget>();
const D = watchEvent.initDone<Widget>();

function w(rv: string, extra: Partial<Widget> = {}, meta: Partial<Widget['metadata']> = {}): Widget {
  return {
    ...WIDGET,
    metadata: { namespace: 'ns', name: 'w', uid: 'uid-w', resourceVersion: rv, generation: 1, ...meta },
    spec: { size: 1 },
    ...extra,
  };
}
const registryOf = (primary: Observable<WatchEvent<Widget>>): WatchRegistry =>
  new ScriptedWatchRegistry({ Widget: primary as Observable<WatchEvent> });
const label = (r: ControllerResult): string =>
  `${r.outcome}${r.retryInMs !== undefined ? `@${r.retryInMs}` : ''}`;

/** A controller with only a finalizer: its reconcile must never run (the objects are deleting). */
function finalizingController(
  primary: Observable<WatchEvent<Widget>>,
  client: Client,
  ts: TestScheduler,
  cleanup: () => Observable<unknown>,
): Observable<ControllerResult> {
  return controller<Widget>(
    {
      for: WIDGET,
      client,
      registry: registryOf(primary),
      rateLimit: false,
      random: () => 0,
      log: {},
      finalizer: { name: FIN, cleanup },
    },
    ts,
  ).run(() => {
    throw new Error('the reconcile must not run for an object being deleted');
  });
}

describe('controller with status sink and finalizer (marbles)', () => {
  it('runs the cleanup once although a rerun reads the deleting version the finalizer removal answered unchanged', () => {
    const ts = testScheduler();
    let cleanups = 0;
    ts.run(({ hot, cold, expectObservable }) => {
      const deleting = w('7', {}, { deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: [FIN] });
      // A trigger of the same version at 7 (as a child's Delete would give) requests the Widget again
      // while the cleanup runs; the Delete of the Widget itself arrives at 13.
      const primary = hot<WatchEvent<Widget>>('(IaD)--b-----x', {
        I,
        a: { type: 'InitApply', object: deleting },
        D,
        b: { type: 'Apply', object: deleting },
        x: { type: 'Delete', object: deleting },
      });
      const client = marbleClient({
        // The real API server answers with the deleting object's unchanged resourceVersion
        // (packages/testing/fixtures/kube-wire/13-finalizers.json #7).
        patch: () => cold('-(r|)', { r: w('7', {}, { deletionTimestamp: '2024-01-01T00:00:00Z' }) }),
      });
      const results$ = finalizingController(primary, client, ts, () =>
        defer(() => {
          cleanups++;
          return cold('--------(d|)', { d: 1 });
        }),
      );
      // cleanup 0–8, removal 8–9: success at 9; the rerun queued at 7 reads version 7 again:
      // skipped at 9 (without the fix: a second cleanup); the Delete at 13: skipped (gone).
      expectObservable(results$.pipe(map(label)), '^ 20ms !').toBe('---------(sk)k', {
        s: 'success',
        k: 'skipped',
      });
    });
    expect(cleanups).toBe(1);
  });

  it('backs off a failing cleanup exponentially on the scheduler (5, 10, 20 ms), then removes the finalizer with test+remove', () => {
    const ts = testScheduler();
    const patches: JsonPatchOperation[][] = [];
    const cleanupsAt: number[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const deleting = w(
        '7',
        {},
        { deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['other/x', FIN] },
      );
      const primary = hot<WatchEvent<Widget>>('(IaD)', { I, a: { type: 'InitApply', object: deleting }, D });
      const client = marbleClient({
        patch: (_ref, patch) => {
          if (patch.type === 'json') patches.push([...patch.body]);
          return cold('-(r|)', { r: w('8', {}, { finalizers: ['other/x'] }) });
        },
      });
      let n = 0;
      const results$ = finalizingController(primary, client, ts, () =>
        defer(() => {
          cleanupsAt.push(ts.now());
          return ++n <= 3 ? throwError(() => new Error(`bucket busy ${n}`)) : cold('--(d|)', { d: 1 });
        }),
      );
      // cleanup fails at 0, 5, 15 (backoff 5, 10, 20 with jitter 0); at 35 it takes 2 ms, the
      // removal PATCH 1 ms: success at 38
      expectObservable(results$.pipe(map(label)), '^ 50ms !').toBe(
        'e----f---------g----------------------s',
        { e: 'error@5', f: 'error@10', g: 'error@20', s: 'success' },
      );
    });
    expect(cleanupsAt).toEqual([0, 5, 15, 35]);
    expect(patches).toEqual([
      [
        { op: 'test', path: '/metadata/finalizers/1', value: FIN },
        { op: 'remove', path: '/metadata/finalizers/1' },
      ],
    ]);
  });

  it('adds the finalizer before the reconcile, and neither that echo nor the status echo triggers a rerun — even when an echo beats its response', () => {
    const ts = testScheduler();
    const statusPatches: Patch[] = [];
    const seen: { at: number; rv: string | undefined; finalizers: readonly string[] | undefined }[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const v1 = w('1');
      const v2 = w('2', {}, { finalizers: [FIN] }); // the finalizer PATCH's result
      const v3 = w('3', { status: { observedGeneration: 1 } }, { finalizers: [FIN] }); // the status PATCH's
      const v4 = w('4', { status: { observedGeneration: 1 } }, { finalizers: [FIN], labels: { a: 'b' } });
      // each echo beats its response: v2 at 5 (finalizer PATCH 0–6), v3 at 9 (status PATCH 6–12);
      // a foreign change v4 at 20 ('(IaD)' spans frames 0–4)
      const primary = hot<WatchEvent<Widget>>('(IaD)b---c----------d', {
        I,
        a: { type: 'InitApply', object: v1 },
        D,
        b: { type: 'Apply', object: v2 },
        c: { type: 'Apply', object: v3 },
        d: { type: 'Apply', object: v4 },
      });
      // the one client: the finalizer's patch of the object, the status patch of its subresource
      const client = marbleClient({
        patch: (_ref, patch, options) => {
          if (options?.subresource !== 'status') return cold('------(r|)', { r: v2 });
          statusPatches.push(patch);
          return cold('------(r|)', { r: v3 });
        },
        get: () => cold('(r|)', { r: v3 }),
      });
      const results$ = controller<Widget>(
        {
          for: WIDGET,
          client,
          registry: registryOf(primary),
          rateLimit: false,
          random: () => 0,
          log: {},
          status: {},
          finalizer: { name: FIN, cleanup: () => cold('(d|)', { d: 1 }) },
        },
        ts,
      ).run((_req, ctx) => {
        seen.push({
          at: ts.now(),
          rv: ctx.object.metadata.resourceVersion,
          finalizers: ctx.object.metadata.finalizers,
        });
        return ctx
          .status((s) => void (s.observedGeneration = 1))
          .pipe(mergeMap(() => [Action.awaitChange()]));
      });
      // reconcile 0–12 (finalizer PATCH 0–6, status PATCH 6–12), the echoes held meanwhile and then
      // recognised; only the foreign change at 20 reruns it, with nothing to write
      expectObservable(results$.pipe(map(label)), '^ 30ms !').toBe('------------s-------s', {
        s: 'success',
      });
    });
    expect(seen).toEqual([
      { at: 6, rv: '2', finalizers: [FIN] },
      { at: 20, rv: '4', finalizers: [FIN] },
    ]);
    expect(statusPatches).toEqual([{ type: 'merge', body: { status: { observedGeneration: 1 } } }]);
  });
});
