import { KubeClient } from '@rxkube/kube';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runDemo } from './run-demo.js';
import { table } from './table.js';

describeEachBackend(
  'the demo: every example operator on one Manager (HTTP, simulated Deployment rollouts)',
  (b) => {
    let client: KubeClient;
    beforeAll(() => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterAll(() => {
      client.close();
    });

    it('converges the samples and the scenario, and prints a live log and a summary per operator', async () => {
      const lines: string[] = [];
      // a failure bound: the real control plane deletes the Widget through its finalizer in its own time
      const outcome = await runDemo(client, { out: (l) => lines.push(l), timeoutMs: 45_000 });
      expect(outcome.problems, lines.join('\n')).toEqual([]);
      expect(outcome.converged).toBe(true);
      const text = lines.join('\n');
      for (const title of [
        'namespace-watcher —',
        'widget —',
        'echo-server —',
        'copyrator —',
        'deployment-notifier —',
      ]) {
        expect(text).toContain(title);
      }
      expect(text).toMatch(/converged: the samples/);
      expect(text).toMatch(/converged: the scenario/);
      expect(text).toMatch(/converged: every sample reached the state its operator promises/);
      // One image change: one notification per notifier watching web, one webhook POST.
      expect(lines.filter((l) => /image nginx:1.26 → nginx:1.27/.test(l))).toHaveLength(3);
      expect(outcome.webhookPosts).toBe(1);
      // The Secret copied by copyrator is never printed.
      expect(text).not.toContain('demo-not-a-real-token');
      expect(text).not.toContain(Buffer.from('demo-not-a-real-token').toString('base64'));
      // The server state behind the summary.
      expect((await b.cluster.list('widgets.example.com', 'default')).map((w) => w.metadata.name)).toEqual([
        'large',
      ]);
      expect((await b.cluster.get('deployments.apps', 'default', 'hello'))?.['spec']).toMatchObject({
        replicas: 3,
      });
      expect(
        (await b.cluster.list('secrets', 'team-c')).some((s) => s.metadata.name === 'registry-pull'),
      ).toBe(true);
      expect(Object.keys(outcome.reconciles).sort()).toEqual([
        'copyrator',
        'deployment-notifier',
        'echo-server',
        'namespace-watcher',
        'widget',
      ]);
    });
  },
  { simulateDeployments: true },
);

describe('the demo tables', () => {
  it('lays out tables with columns padded to the widest cell', () => {
    expect(
      table([
        ['name', 'ready'],
        ['hello', 'True'],
        ['a', ''],
      ]),
    ).toEqual(['name   ready', 'hello  True', 'a']);
  });
});
