/**
 * A watch of a kind whose CRD appears later, goes away and comes back, on both backends: the
 * watcher waits saying which kind is not served, starts once the CRD is Established, says so again
 * when the CRD is deleted (after the Deletes of its objects), and starts again when it returns.
 */
import type { TestBackend } from '@rxkube/testing';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { KubeObject } from '../types.js';
import { FAST, runWatch } from './watch-harness.test.helper.js';
import { watcher } from './watcher.js';

const GADGET = { apiVersion: 'later.example.com/v1', kind: 'Gadget' } as const;
const CRD_NAME = 'gadgets.later.example.com';
const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME },
  spec: {
    group: 'later.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};
const gadget = (name: string): KubeObject => ({ ...GADGET, metadata: { name, namespace: 'default' } });

let cluster: TestBackend;
let client: KubeClient;

describeEachBackend(
  'a watch of a kind whose CRD appears later',
  (b) => {
    beforeAll(() => {
      cluster = b.cluster;
      // discovery may refetch an unknown kind's group-version on every retry
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig, { discoveryRefreshIntervalMs: 1 });
    });
    afterAll(() => {
      client.close();
    });

    it('waits naming the kind, starts when the CRD is served, says so when it is deleted, starts again when it returns', async () => {
      const timeout = b.name === 'real' ? 60_000 : 15_000;
      const run = runWatch((health) => watcher(client, GADGET, { ...FAST, namespace: 'default', health }));
      try {
        await run.until('not-served', () => run.health().lastError?.kind === 'not-served');
        expect(run.health().lastError?.message).toContain(
          'kind "Gadget" of apiVersion "later.example.com/v1" is not served',
        );
        expect(run.store.ready).toBe(false);
        expect(run.health().errors).toBe(0);

        await client.create(gadgetCrd);
        await run.until('InitDone once the CRD is served', () => run.store.ready, timeout);
        await waitFor('Gadgets to be creatable', () => client.create(gadget('g1')).then(() => true), {
          timeoutMs: timeout,
        });
        await run.until('g1', () => run.store.get('default/g1') !== undefined, timeout);

        const before = run.healths.length;
        await client.delete({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: CRD_NAME,
        });
        await run.until(
          'the Delete of g1, then not-served again',
          () =>
            run.store.get('default/g1') === undefined &&
            run.healths.slice(before).some((h) => h.lastError?.kind === 'not-served'),
          timeout,
        );
        expect(run.events.some((e) => e.type === 'Delete' && e.object.metadata.name === 'g1')).toBe(true);
        await waitFor(
          'the CRD to be gone',
          async () =>
            (await cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, CRD_NAME)) ===
            undefined,
          { timeoutMs: timeout },
        );

        await client.create(gadgetCrd);
        await waitFor('Gadgets to be creatable again', () => client.create(gadget('g2')).then(() => true), {
          timeoutMs: timeout,
        });
        await run.until(
          'g2 after the CRD came back',
          () => run.store.get('default/g2') !== undefined,
          timeout,
        );
        expect(run.store.get('default/g1')).toBeUndefined();
        // not-served is a wait, not an error; on 1.24 the one error is the refused streaming list
        expect(run.health().errors).toBe(b.name === 'real' ? 1 : 0);
      } finally {
        run.stop();
        await client
          .delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD_NAME })
          .catch(() => undefined);
      }
    });
  },
  { controllerManager: false },
);
