import { KubeClient, Manager } from '@rxkube/kube';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConfigMap, name, setup } from './operator.js';

describeEachBackend('greeter', (b) => {
  let client: KubeClient;
  beforeAll(() => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
  });
  afterAll(() => client.close());

  it('greets a labelled ConfigMap', async () => {
    const mgr = new Manager({ client, name, logLevel: 'silent' });
    setup(mgr);
    await mgr.start();
    try {
      await client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'carol', namespace: 'default', labels: { greet: 'true' } },
      });
      const greeted = async () =>
        ((await b.cluster.get('configmaps', 'default', 'carol')) as ConfigMap | undefined)?.data?.greeting;
      expect(await waitFor('carol greeted', greeted)).toBe('hello, carol');
    } finally {
      await mgr.stop();
    }
  });
});
