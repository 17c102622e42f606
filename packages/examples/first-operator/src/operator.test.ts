import { KubeClient, Manager } from '@rxkube/kube';
import { type ApiServer, startApiServer, waitFor } from '@rxkube/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConfigMap, name, setup } from './operator.js';

let server: ApiServer;
let client: KubeClient;
beforeAll(async () => {
  server = await startApiServer(); // in memory, real HTTP, a free port; namespace default exists
  client = KubeClient.fromKubeConfig(server.kubeConfig);
});
afterAll(async () => {
  client.close();
  await server.stop();
});

const configMap = (cmName: string, labels: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: cmName, namespace: 'default', labels },
});
const stored = (cmName: string) => server.object('configmaps', 'default', cmName) as ConfigMap | undefined;

it('greets the labelled ConfigMaps, and only those', async () => {
  const mgr = new Manager({ client, name, logLevel: 'silent' });
  setup(mgr);
  await mgr.start();
  try {
    await client.create(configMap('alice', { greet: 'true' }));
    await client.create(configMap('bob', {}));
    // Wait for the outcome (bounded: 10 s by default), never for a duration.
    await waitFor('alice greeted', () => stored('alice')?.data?.greeting === 'hello, alice');
    expect(stored('bob')?.data).toBeUndefined();
  } finally {
    await mgr.stop();
  }
});
