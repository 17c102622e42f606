import { KubeClient } from '@rxkube/kube';
import { startApiServer, type ApiServer } from '@rxkube/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHasherDemo } from './demo.js';

describe('configmap-hasher against the embedded API server (HTTP)', () => {
  let server: ApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('converges every opted-in ConfigMap, leaves the others alone, and does not loop on its own writes', async () => {
    const lines: string[] = [];
    expect(await runHasherDemo(client, (l) => lines.push(l))).toBe(true);
    const patched = lines.filter((l) => l.includes(' patched '));
    // 4 creates + 2 updates + at most 20 burst writes: never more writes than data versions.
    expect(patched.length).toBeGreaterThanOrEqual(6);
    expect(patched.length).toBeLessThanOrEqual(26);
    expect(patched.some((l) => l.includes('/notes'))).toBe(false);
    const notes = server.objects('configmaps', 'rxkube-demo').find((o) => o.metadata.name === 'notes');
    expect(notes?.metadata.annotations?.['rxkube.io/data-hash']).toBeUndefined();
    expect(server.objects('configmaps', 'rxkube-demo').some((o) => o.metadata.name === 'web')).toBe(false);
  });
});
