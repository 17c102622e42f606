import { Action } from '@rxkube/core';
import { describeEachBackend } from '@rxkube/testing/vitest';
import type { Subscription } from 'rxjs';
import { defer, filter, firstValueFrom, ReplaySubject, timeout } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { KubeObject } from '../types.js';
import type { ControllerResult } from './controller.js';
import { controller } from './controller.js';

const NS = 'ctl';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

describeEachBackend('controller over HTTP (ConfigMaps owning Secrets)', (b) => {
  let client: KubeClient;
  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(() => {
    client.close();
  });

  it('creates the child, reruns the parent when the child changes or goes, and stops once the parent is gone', async () => {
    /** Every reconcile call, in order: its key and the labels of the children it saw. */
    const calls: { key: string; childLabels: (string | undefined)[] }[] = [];
    const results = new ReplaySubject<ControllerResult>(10_000);
    let emitted = 0;
    /** Resolves with the first result from index `from` on that satisfies `predicate`. */
    const until = (
      what: string,
      from: number,
      predicate: (r: ControllerResult) => boolean,
    ): Promise<ControllerResult> =>
      firstValueFrom(
        results.pipe(
          filter((r, i) => i >= from && predicate(r)),
          timeout({ first: 10_000, with: () => Promise.reject(new Error(`timed out waiting for ${what}`)) }),
        ),
      );
    const run$ = controller<KubeObject & { data?: Record<string, string> }>({
      for: CM,
      owns: [SECRET],
      namespace: NS,
      client,
      log: {},
    }).run((request, { object, owned }) =>
      defer(async () => {
        calls.push({
          key: `${request.namespace}/${request.name}`,
          childLabels: owned(SECRET).map((c) => c.metadata.labels?.['touched']),
        });
        const uid = object.metadata.uid ?? '';
        // Declarative child through server-side apply: idempotent, no event when nothing changes.
        await client.apply(
          {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: {
              name: `${request.name}-child`,
              namespace: NS,
              ownerReferences: [
                { apiVersion: 'v1', kind: 'ConfigMap', name: request.name, uid, controller: true },
              ],
            },
            stringData: { copy: object.data?.['value'] ?? '' },
          },
          { fieldManager: 'controller-test', force: true },
        );
        return Action.awaitChange();
      }),
    );
    const sub: Subscription = run$.subscribe((r) => {
      emitted++;
      results.next(r);
    });
    const isP = (r: ControllerResult): boolean => r.key === `${NS}/p`;
    const child = () => b.cluster.get('secrets', NS, 'p-child');
    try {
      // create parent → reconcile → child with a controller ownerReference
      await client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'p', namespace: NS },
        data: { value: 'one' },
      });
      await until('first reconcile of p', 0, (r) => isP(r) && r.outcome === 'success');
      const created = await child();
      expect(created?.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'ConfigMap', name: 'p', controller: true }),
      ]);

      // modify the child → the parent is reconciled again (and its apply restores the content)
      await client.patch(
        { apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 'p-child' },
        { type: 'merge', body: { metadata: { labels: { touched: 'yes' } } } },
      );
      // only p's own and its children's events request p: a reconcile that saw the label was caused by the change
      for (let from = emitted; !calls.some((c) => c.key === `${NS}/p` && c.childLabels.includes('yes'));) {
        await until('reconcile of p after the child changed', from, isP);
        from = emitted;
      }

      // delete the child → the parent is reconciled and recreates it
      await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 'p-child' });
      const recreatedUid = async (): Promise<string | undefined> => {
        for (let from = emitted; ; from = emitted) {
          await until(
            'reconcile of p after the child was deleted',
            from,
            (r) => isP(r) && r.outcome === 'success',
          );
          const now = await child();
          if (now !== undefined && now.metadata.uid !== created?.metadata.uid) return now.metadata.uid;
        }
      };
      expect(await recreatedUid()).toBeDefined();

      // an unrelated parent gets its own child; p is not reconciled for it
      const pCalls = calls.filter((c) => c.key === `${NS}/p`).length;
      let from = emitted;
      await client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'q', namespace: NS },
        data: { value: 'two' },
      });
      await until('reconcile of q', from, (r) => r.key === `${NS}/q` && r.outcome === 'success');

      // delete the parent → a skipped request, never a reconcile of p again
      const callsBeforeDelete = calls.filter((c) => c.key === `${NS}/p`).length;
      from = emitted;
      await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'p' });
      await until('p skipped after its deletion', from, (r) => isP(r) && r.outcome === 'skipped');
      // touching q afterwards is reconciled, p still is not
      from = emitted;
      await client.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'q' },
        { type: 'merge', body: { data: { value: 'three' } } },
      );
      await until(
        'reconcile of q after its change',
        from,
        (r) => r.key === `${NS}/q` && r.outcome === 'success',
      );
      expect(calls.filter((c) => c.key === `${NS}/p`).length).toBe(callsBeforeDelete);
      expect(callsBeforeDelete).toBeGreaterThanOrEqual(pCalls);
      const all: ControllerResult[] = [];
      results.subscribe((r) => all.push(r)).unsubscribe();
      expect(all.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);
    } finally {
      sub.unsubscribe();
    }
  });
});
