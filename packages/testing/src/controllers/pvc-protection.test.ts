/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
/**
 * The PVC protection controller (`pkg/controller/volume/pvcprotection`): a new claim gets the
 * `kubernetes.io/pvc-protection` finalizer; a deleted claim stays Terminating while a Pod uses it
 * and goes away once none does (without the controller it would stay forever).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';

const PVCS = '/api/v1/namespaces/default/persistentvolumeclaims';
const PODS = '/api/v1/namespaces/default/pods';

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await probe()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('PVC protection', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ logger: { error: () => undefined } });
  });
  afterAll(() => server.stop());

  const claim = (name: string): unknown => ({
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });

  it('an unused claim goes away on delete', async () => {
    const created = await call(server.url, 'POST', PVCS, { body: claim('free') });
    expect(created.body.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    await call(server.url, 'DELETE', `${PVCS}/free`);
    await until(
      'free to go away',
      async () => (await call(server.url, 'GET', `${PVCS}/free`)).status === 404,
    );
  });

  it('a claim in use stays Terminating until its Pod is gone', async () => {
    await call(server.url, 'POST', PVCS, { body: claim('data') });
    await call(server.url, 'POST', PODS, {
      body: {
        metadata: { name: 'user' },
        spec: {
          containers: [{ name: 'c', image: 'busybox' }],
          volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }],
        },
      },
    });
    await call(server.url, 'DELETE', `${PVCS}/data`);
    // a later write is handled after the controller's pass for the delete: then the claim must remain
    await call(server.url, 'POST', PVCS, { body: claim('marker') });
    await call(server.url, 'DELETE', `${PVCS}/marker`);
    await until(
      'marker to go away',
      async () => (await call(server.url, 'GET', `${PVCS}/marker`)).status === 404,
    );
    const held = await call(server.url, 'GET', `${PVCS}/data`);
    expect(held.status).toBe(200);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    await call(server.url, 'DELETE', `${PODS}/user`);
    await until(
      'data to go away',
      async () => (await call(server.url, 'GET', `${PVCS}/data`)).status === 404,
    );
  });
});
