import { describeEachBackend } from '@rxkube/testing/vitest';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { widgetCrd } from '../client/widget-crd.test.helper.js';
import { ensureCrd } from '../crd/ensure-crd.js';
import type { KubeObject } from '../types.js';
import { statusSink } from './status-sink.js';

type WidgetStatus = { phase?: string };
type Widget = KubeObject<{ size: number }, WidgetStatus>;
const ref = { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w1' };

describeEachBackend(
  'statusSink over HTTP',
  (b) => {
    let client: KubeClient;
    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await ensureCrd(client, widgetCrd);
      await client.create({
        ...ref,
        metadata: { name: ref.name, namespace: ref.namespace },
        spec: { size: 1 },
      });
    });
    afterAll(() => {
      client.close();
    });

    for (const patchType of ['merge', 'json', 'apply'] as const) {
      it(`${patchType}: writes the status subresource once, then sends nothing for the same desired status`, async () => {
        const write = async (status: WidgetStatus) => {
          const object = await client.get<Widget>(ref);
          return lastValueFrom(
            from([{ object, status }]).pipe(
              statusSink(client, { patchType, fieldManager: `sink-${patchType}` }),
              toArray(),
            ),
          );
        };
        const [first] = await write({ phase: `Ready-${patchType}` });
        expect(first?.kind).toBe('written');
        const written = first?.kind === 'written' ? first.result : undefined;
        expect(written?.type).toBe('patched');

        const live = await client.get<Widget>(ref);
        expect(live.status).toEqual({ phase: `Ready-${patchType}` });
        expect(live.spec).toEqual({ size: 1 });
        const managed = (live.metadata.managedFields ?? []) as {
          manager: string;
          operation: string;
          subresource?: string;
        }[];
        expect(managed).toContainEqual(
          expect.objectContaining({
            manager: `sink-${patchType}`,
            operation: patchType === 'apply' ? 'Apply' : 'Update',
            subresource: 'status',
          }),
        );

        const rv = live.metadata.resourceVersion;
        const [second] = await write({ phase: `Ready-${patchType}` });
        expect(second?.kind === 'written' ? second.result : undefined).toEqual({
          type: 'unchanged',
          requests: 0,
          conflicts: 0,
        });
        expect((await client.get<Widget>(ref)).metadata.resourceVersion).toBe(rv);
      });
    }
  },
  // no controller of kube-controller-manager takes part: the API server alone, as envtest's default
  { controllerManager: false },
);
