import { KubeClient } from '@rxkube/kube';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runHasherDemo } from './demo.js';

describeEachBackend('configmap-hasher (HTTP, the layers without the Manager)', (b) => {
  let client: KubeClient;
  beforeAll(() => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
  });
  afterAll(() => {
    client.close();
  });

  it('converges every opted-in ConfigMap, leaves the others alone, and does not loop on its own writes', async () => {
    const lines: string[] = [];
    expect(await runHasherDemo(client, (l) => lines.push(l)), lines.join('\n')).toBe(true);
    const patched = lines.filter((l) => l.includes(' patched '));
    // 4 creates + 2 updates + at most 20 burst writes: never more writes than data versions.
    expect(patched.length).toBeGreaterThanOrEqual(6);
    expect(patched.length).toBeLessThanOrEqual(26);
    expect(patched.some((l) => l.includes('/notes'))).toBe(false);
    const configMaps = await b.cluster.list('configmaps', 'rxkube-demo');
    const notes = configMaps.find((o) => o.metadata.name === 'notes');
    expect(notes?.metadata.annotations?.['rxkube.io/data-hash']).toBeUndefined();
    expect(configMaps.some((o) => o.metadata.name === 'web')).toBe(false);
  });
});
