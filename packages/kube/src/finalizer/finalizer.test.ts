import { Action, InvalidArgumentError, applier } from '@rxkube/core';
import { map } from 'rxjs';
import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { Client } from '../client/client.js';
import type { JsonPatchOperation, Patch } from '../client/verb-options.js';
import { KubeApiError } from '../errors.js';
import { applyJsonPatchForTest } from '../sink/apply-json-patch.test.helper.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import type { StuckFinalizer } from './finalizer.js';
import { finalizer } from './finalizer.js';

type Widget = KubeObject<{ size: number }>;
const NAME = 'example.com/cleanup';

const widget = (finalizers?: string[], deleting = false): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: {
    namespace: 'ns',
    name: 'w',
    resourceVersion: '1',
    ...(finalizers !== undefined ? { finalizers } : {}),
    ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { size: 1 },
});

const requeue = Action.requeue(60_000);
const awaitChange = Action.awaitChange();

type Cold = (m: string, v?: Record<string, unknown>, e?: unknown) => Observable<unknown>;

/** A recording fake: patches apply to the object with the strict RFC 6902 oracle. */
function harness(
  cold: Cold,
  ts: TestScheduler,
  opts: { patchError?: unknown; cleanup?: () => Observable<unknown> } = {},
) {
  const log: string[] = [];
  const patches: { ref: ObjectRef; ops: readonly JsonPatchOperation[]; result?: Widget }[] = [];
  const applied: Widget[] = [];
  const stuck: StuckFinalizer<Widget>[] = [];
  const events: { reason: string; note: string }[] = [];
  const warnings: { message: string; fields: Readonly<Record<string, unknown>> }[] = [];
  let current: Widget = widget();
  // the `patch` of a `Client`, answering cold() observables (finalizer() takes any ObservableInput)
  const fake = {
    patch: (ref: ObjectRef, patch: Patch) => {
      if (patch.type !== 'json') throw new Error(`finalizer sent a ${patch.type} patch`);
      const ops = patch.body;
      log.push(`patch@${ts.now()}`);
      if (opts.patchError !== undefined) {
        patches.push({ ref, ops });
        return cold('-#', {}, opts.patchError) as Observable<Widget>;
      }
      const result = applyJsonPatchForTest(current, ops) as Widget;
      patches.push({ ref, ops, result });
      return cold('-(r|)', {
        r: { ...result, metadata: { ...result.metadata, resourceVersion: '2' } },
      }) as Observable<Widget>;
    },
  };
  const reconcile = finalizer<Widget>(
    NAME,
    {
      client: fake as unknown as Pick<Client, 'patch'>,
      apply: (o) => {
        log.push(`apply@${ts.now()}`);
        applied.push(o);
        return cold('-(a|)', { a: requeue }) as Observable<Action>;
      },
      cleanup: () => {
        log.push(`cleanup@${ts.now()}`);
        return opts.cleanup?.() ?? cold('--x|');
      },
      stuck: { failures: 3, afterMs: 1_000 },
      onStuck: (s) => stuck.push(s),
      events: { record: (_o, e) => events.push(e) },
      log: { warn: (message, fields) => warnings.push({ message, fields }) },
    },
    ts,
  );
  return {
    log,
    warnings,
    patches,
    applied,
    stuck,
    events,
    reconcile,
    run: (o: Widget) => {
      current = o;
      return reconcile(o);
    },
  };
}

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('finalizer', () => {
  it('no finalizer list: tests it is absent, adds the list, then applies the patched object', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, flush }) => {
      const h = harness(cold, ts);
      // patch 0→1, apply 1→2
      expectObservable(h.run(widget())).toBe('--(a|)', { a: requeue });
      flush();
      expect(h.patches[0]?.ops).toEqual([
        { op: 'test', path: '/metadata/finalizers', value: null },
        { op: 'add', path: '/metadata/finalizers', value: [NAME] },
      ]);
      expect(h.patches[0]?.ref).toEqual({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        namespace: 'ns',
        name: 'w',
      });
      expect(h.log).toEqual(['patch@0', 'apply@1']);
      expect(h.applied[0]?.metadata).toMatchObject({ finalizers: [NAME], resourceVersion: '2' });
    });
  });

  it('other finalizers present: tests the exact list and appends with /-', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, flush }) => {
      const h = harness(cold, ts);
      expectObservable(h.run(widget(['other.io/x']))).toBe('--(a|)', { a: requeue });
      flush();
      expect(h.patches[0]?.ops).toEqual([
        { op: 'test', path: '/metadata/finalizers', value: ['other.io/x'] },
        { op: 'add', path: '/metadata/finalizers/-', value: NAME },
      ]);
      expect(h.patches[0]?.result?.metadata.finalizers).toEqual(['other.io/x', NAME]);
    });
  });

  it('a failing add patch (list changed meanwhile: 422) errors and never applies', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, flush }) => {
      const invalid = { code: 422, reason: 'Invalid' };
      const h = harness(cold, ts, { patchError: invalid });
      expectObservable(h.run(widget())).toBe('-#', undefined, invalid);
      flush();
      expect(h.applied).toEqual([]);
    });
  });

  it('finalizer present and not deleting: applies without any patch', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, flush }) => {
      const h = harness(cold, ts);
      expectObservable(h.run(widget([NAME]))).toBe('-(a|)', { a: requeue });
      flush();
      expect(h.patches).toEqual([]);
    });
  });

  it('deleting with our finalizer: cleanup completes, then test+remove pinned to its index', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, flush }) => {
      const h = harness(cold, ts);
      // cleanup 0→3 (its values ignored), patch 3→4
      expectObservable(h.run(widget(['other.io/x', NAME, 'third.io/y'], true))).toBe('----(w|)', {
        w: awaitChange,
      });
      flush();
      expect(h.log).toEqual(['cleanup@0', 'patch@3']);
      expect(h.patches[0]?.ops).toEqual([
        { op: 'test', path: '/metadata/finalizers/1', value: NAME },
        { op: 'remove', path: '/metadata/finalizers/1' },
      ]);
      expect(h.patches[0]?.result?.metadata.finalizers).toEqual(['other.io/x', 'third.io/y']);
      expect(h.applied).toEqual([]);
    });
  });

  it('deleting without our finalizer: nothing to do', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, flush }) => {
      const h = harness(cold, ts);
      expectObservable(h.run(widget(['other.io/x'], true))).toBe('(w|)', { w: awaitChange });
      flush();
      expect(h.log).toEqual([]);
    });
  });

  it('a cleanup error is thrown and the finalizer is kept (no patch)', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable, flush }) => {
      const boom = new Error('bucket delete refused');
      const h = harness(cold, ts, { cleanup: () => cold('-#', {}, boom) });
      expectObservable(h.run(widget([NAME], true))).toBe('-#', undefined, boom);
      flush();
      expect(h.patches).toEqual([]);
      expect(h.reconcile.failingCount()).toBe(1);
    });
  });

  it.each([
    ['another namespace', 'other', true],
    ['its own namespace', 'ns', false],
  ] as const)(
    'a cleanup refused by a terminating namespace (%s) finishes: logged, Event where storable, finalizer removed (issue 12 §3, 18 §5)',
    (_case, terminating, storable) => {
      const ts = newScheduler();
      ts.run(({ cold, expectObservable, flush }) => {
        // packages/testing/fixtures/kube-wire/20-namespace-deletion.json: a create into a namespace being deleted
        const refused = new KubeApiError({
          httpStatus: 403,
          method: 'POST',
          url: `https://h/api/v1/namespaces/${terminating}/configmaps`,
          target: { verb: 'create', group: '', resource: 'configmaps', namespace: terminating },
          status: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message:
              'configmaps "x" is forbidden: unable to create new content in namespace ns because it is being terminated',
            reason: 'Forbidden',
            details: {
              causes: [
                {
                  reason: 'NamespaceTerminating',
                  message: 'namespace ns is being terminated',
                  field: 'metadata.namespace',
                },
              ],
            },
            code: 403,
          },
        });
        const h = harness(cold, ts, {
          cleanup: () => cold('-#', {}, new Error('copy failed', { cause: refused })),
        });
        // cleanup refused at 1 → treated as done; removal PATCH 1–2; awaitChange at 2
        expectObservable(h.run(widget([NAME], true))).toBe('--(a|)', { a: awaitChange });
        flush();
        expect(h.patches.map((p) => p.ops)).toEqual([
          [
            { op: 'test', path: '/metadata/finalizers/0', value: NAME },
            { op: 'remove', path: '/metadata/finalizers/0' },
          ],
        ]);
        // the Event goes on the widget (namespace ns): not storable when ns itself is terminating
        expect(h.events.map((e) => e.reason)).toEqual(storable ? ['CleanupIncomplete'] : []);
        if (storable) {
          expect(h.events[0]?.note).toMatch(/could not write into namespace other, which is being deleted/);
        }
        // never silent: a warn line either way
        expect(h.warnings.map((w) => w.fields)).toEqual([
          expect.objectContaining({
            key: 'ns/w',
            finalizer: NAME,
            namespace: terminating,
            event: storable
              ? 'Warning CleanupIncomplete recorded on the object'
              : 'not recorded: the object is in the terminating namespace, where no Event can be stored',
          }),
        ]);
        expect(h.reconcile.failingCount()).toBe(0);
      });
    },
  );

  it('a removal that fails its test (422) errors; a 404 (already gone) is success', () => {
    const ts = newScheduler();
    ts.run(({ cold, expectObservable }) => {
      const invalid = { code: 422, reason: 'Invalid' };
      expectObservable(harness(cold, ts, { patchError: invalid }).run(widget([NAME], true))).toBe(
        '----#',
        undefined,
        invalid,
      );
      const notFound = { _tag: 'KubeApiError', code: 404, reason: 'NotFound' };
      expectObservable(harness(cold, ts, { patchError: notFound }).run(widget([NAME], true))).toBe(
        '----(w|)',
        {
          w: awaitChange,
        },
      );
    });
  });

  it('reports a stuck cleanup once after N failures (hook + Warning Event), and clears it on success', () => {
    const ts = newScheduler();
    ts.run(({ cold, flush }) => {
      let fail = true;
      const h = harness(cold, ts, { cleanup: () => (fail ? cold('#', {}, new Error('denied')) : cold('|')) });
      const obj = widget([NAME], true);
      for (let i = 0; i < 4; i++) h.run(obj).subscribe({ error: () => undefined });
      flush();
      expect(h.stuck).toHaveLength(1);
      expect(h.stuck[0]).toMatchObject({ key: 'ns/w', finalizer: NAME, failures: 3, sinceMs: 0 });
      expect(h.events).toEqual([
        expect.objectContaining({
          type: 'Warning',
          reason: 'FinalizerStuck',
          action: 'Cleanup',
          note: expect.stringContaining('failed 3 times') as string,
        }),
      ]);
      expect(h.events[0]?.note).toContain('Last error: denied');
      expect(h.reconcile.stuckCount()).toBe(1);
      fail = false;
      h.run(obj).subscribe();
      flush();
      expect(h.reconcile.stuckCount()).toBe(0);
      expect(h.reconcile.failingCount()).toBe(0);
    });
  });

  it('reports a stuck cleanup after T since the first failure, even below N failures', () => {
    const ts = newScheduler();
    ts.run(({ cold, flush }) => {
      const h = harness(cold, ts, { cleanup: () => cold('#', {}, 'nope') });
      const obj = widget([NAME], true);
      h.run(obj).subscribe({ error: () => undefined }); // t=0: 1st failure
      ts.schedule(() => h.run(obj).subscribe({ error: () => undefined }), 999); // 2nd, 999 ms: not yet
      flush();
      expect(h.stuck).toEqual([]);
      ts.schedule(() => h.run(obj).subscribe({ error: () => undefined }), 1); // t=1000: 3rd (= T)
      flush();
      expect(h.stuck).toHaveLength(1);
      expect(h.stuck[0]?.failures).toBe(3);
    });
  });

  it('composes with applier: a failing cleanup is retried with per-key backoff until it succeeds', () => {
    const ts = newScheduler();
    ts.run(({ cold, hot, expectObservable, flush }) => {
      let attempts = 0;
      const h = harness(cold, ts, {
        cleanup: () => (++attempts < 3 ? cold('#', {}, new Error('busy')) : cold('|')),
      });
      const obj = widget([NAME], true);
      const out = hot('-o', { o: obj }).pipe(
        applier(objectKey, (o: Widget) => h.run(o), { rateLimit: false, backoff: { jitter: 0 } }, ts),
        map((r) => `${r.outcome}${r.retryInMs !== undefined ? `:${r.retryInMs}` : ''}`),
      );
      // fails at 1 (retry in 5), at 6 (retry in 10), succeeds at 16: removal patch 16→17
      expectObservable(out).toBe('-a----b----------c', { a: 'error:5', b: 'error:10', c: 'success' });
      flush();
      expect(h.log).toEqual(['cleanup@1', 'cleanup@6', 'cleanup@16', 'patch@16']);
    });
  });

  it('refuses unqualified names and bad options', () => {
    const client = { patch: () => [] } as unknown as Pick<Client, 'patch'>;
    const fns = { client, apply: () => [awaitChange], cleanup: () => [] };
    expect(() => finalizer('cleanup', fns)).toThrow(InvalidArgumentError);
    expect(() => finalizer('Example.com/x', fns)).toThrow('domain-qualified');
    expect(() => finalizer(NAME, { ...fns, stuck: { failures: 0 } })).toThrow('options.stuck.failures');
    expect(() => finalizer(NAME, { ...fns, cleanup: 1 as never })).toThrow('options.cleanup');
    expect(() => finalizer(NAME, { ...fns, client: {} as Pick<Client, 'patch'> })).toThrow('options.client');
    expect(() => finalizer(NAME, { ...fns, fieldManager: '' })).toThrow('options.fieldManager');
  });
});
