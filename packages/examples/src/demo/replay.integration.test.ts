import type { ControllerReconcile, KubeObject, KubeClient as Client } from '@rxkube/kube';
import { KubeClient, Manager } from '@rxkube/kube';
import type { ObjectLike } from '@rxkube/kube/client';
import type { ReplayController, ReplayWrite } from '@rxkube/kube/record';
import { diffWrites, formatReplay, parseRecording, replay, setupClient } from '@rxkube/kube/record';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { VirtualTimeScheduler } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import * as copyrator from '../../copyrator/src/operator.js';
import { runDemo } from './run-demo.js';

const LABEL = 'replay.rxkube.io/version';

/** A write with the new version's label taken out of its body. */
const withoutLabel = (w: ReplayWrite): unknown => {
  const body = structuredClone(w.body) as { metadata?: { labels?: Record<string, string> } } | undefined;
  delete body?.metadata?.labels?.[LABEL];
  return { ...w, body };
};

/** copyrator with one deliberate change: every copy it applies carries one more label. */
const labelled =
  (reconcile: ControllerReconcile<KubeObject>): ControllerReconcile<KubeObject> =>
  (request, ctx) =>
    reconcile(
      request,
      new Proxy(ctx, {
        get: (target, property, receiver) =>
          property === 'apply'
            ? <O extends ObjectLike>(object: O, options?: Parameters<typeof target.apply>[1]) =>
                target.apply(
                  {
                    ...object,
                    metadata: {
                      ...object.metadata,
                      labels: {
                        ...(object as unknown as KubeObject).metadata.labels,
                        [LABEL]: 'two',
                      },
                    },
                  },
                  options,
                )
            : (Reflect.get(target, property, receiver) as unknown),
      }),
    );

describeEachBackend(
  'the demo, recorded and replayed (copyrator)',
  (b) => {
    let client: KubeClient;
    beforeAll(() => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterAll(() => client.close());

    it("replays copyrator's recording of the demo the same twice; a changed reconcile changes exactly its copies", async () => {
      const lines: string[] = [];
      const out: string[] = [];
      const outcome = await runDemo(client, {
        out: (l) => out.push(l),
        timeoutMs: 45_000,
        record: { sink: (l) => lines.push(l) },
      });
      expect(outcome.problems, out.join('\n')).toEqual([]);
      const text = lines.join('\n');
      // the demo's pull Secret is copied by copyrator: its token never reaches the recording
      expect(text).not.toContain('demo-not-a-real-token');
      expect(text).not.toContain(Buffer.from('demo-not-a-real-token').toString('base64'));
      const full = parseRecording(text);
      const recording = { ...full, writes: full.writes.filter((w) => w.controller === 'copyrator') };
      expect(recording.writes.some((w) => w.verb === 'apply')).toBe(true);

      // copyrator's registration, from its own setup on a Manager that never starts
      const mgr = new Manager({
        client: setupClient(recording) as unknown as Client,
        name: full.header.name,
        logLevel: 'silent',
        scheduler: new VirtualTimeScheduler(),
      });
      await copyrator.setup(mgr);
      const controllers: readonly ReplayController[] = mgr.registered;

      const first = formatReplay(await replay(recording, controllers));
      expect(formatReplay(await replay(recording, controllers))).toBe(first);
      expect(first).toContain('copyrator registry-credentials');

      // The new version changes exactly the copies it applies: each gains the label, nothing else
      // differs (status writes, Events, deletes, order), against the replay of the old version…
      const before = await replay(recording, controllers);
      const changedVersion = controllers.map((c) => ({ ...c, reconcile: labelled(c.reconcile) }));
      const after = await replay(recording, changedVersion);
      const applies = after.writes.filter((w) => w.verb === 'apply');
      expect(applies.length).toBeGreaterThan(0);
      expect(applies.every((w) => JSON.stringify(w.body).includes(LABEL))).toBe(true);
      expect(after.writes.map(withoutLabel)).toEqual(before.writes.map(withoutLabel));
      expect(before.writes.some((w) => JSON.stringify(w.body).includes(LABEL))).toBe(false);
      // … and against the recording, every one of them shows as a changed write
      const added = diffWrites(after).filter((l) => l.startsWith('+ apply '));
      expect(added.length).toBe(applies.length);
      expect(added.every((l) => l.includes(`"${LABEL}":"two"`))).toBe(true);
    });
  },
  { simulateDeployments: true },
);
