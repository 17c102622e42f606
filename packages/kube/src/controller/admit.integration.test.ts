import { Action } from '@rxkube/core';
import { describeEachBackend } from '@rxkube/testing/vitest';
import type { Observable } from 'rxjs';
import { defer, filter, firstValueFrom, ReplaySubject, Subject, timeout } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { KubeObject, ObjectRef } from '../types.js';
import type { ControllerResult } from './controller.js';
import { controller } from './controller.js';

const NS = 'admit';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

// The two hooks sharding plugs into: `admit` gates a key's whole work (finalizer included),
// `reconcileOn` requests keys from a source of the caller's.
describeEachBackend('controller admit and reconcileOn (over HTTP)', (b) => {
  let client: KubeClient;
  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(() => client.close());

  it('runs admitted keys only; a refused key is skipped before its finalizer is added', async () => {
    const admitted = new Set(['yes']);
    const calls: string[] = [];
    const results = new ReplaySubject<ControllerResult>(1_000);
    const more = new Subject<ObjectRef>();
    const sub = controller<KubeObject>({
      for: CM,
      namespace: NS,
      client,
      log: {},
      finalizer: { name: 'example.com/admit-test', cleanup: () => [undefined] },
      admit: (object, work: Observable<Action>) =>
        admitted.has(object.metadata.labels?.['shard'] ?? '') ? work : undefined,
      reconcileOn: more,
    })
      .run((request) =>
        defer(() => {
          calls.push(request.name);
          return [Action.awaitChange()];
        }),
      )
      .subscribe((r) => results.next(r));
    const result = (key: string, outcome: string, from = 0): Promise<ControllerResult> =>
      firstValueFrom(
        results.pipe(
          filter((r, i) => i >= from && r.key === `${NS}/${key}` && r.outcome === outcome),
          timeout({ first: 10_000, with: () => Promise.reject(new Error(`no ${outcome} for ${key}`)) }),
        ),
      );
    try {
      await client.create({ ...CM, metadata: { name: 'in', namespace: NS, labels: { shard: 'yes' } } });
      await client.create({ ...CM, metadata: { name: 'out', namespace: NS, labels: { shard: 'no' } } });
      await result('in', 'success');
      await result('out', 'skipped');
      expect(calls).not.toContain('out');
      const out = await client.get<KubeObject>({ ...CM, namespace: NS, name: 'out' });
      expect(out.metadata.finalizers ?? []).toEqual([]); // the finalizer stage was not run either
      // Admitting it later does nothing by itself (no event) until a request names it.
      admitted.add('no');
      const mark = calls.length;
      more.next({ ...CM, namespace: NS, name: 'out' });
      await result('out', 'success');
      expect(calls.slice(mark)).toEqual(['out']);
    } finally {
      sub.unsubscribe();
    }
  });
});
