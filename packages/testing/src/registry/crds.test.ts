/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';

let server: ApiServer;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const G = '/apis/example.com/v1/namespaces/default/gadgets';

const CRD = {
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
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

type Condition = { type: string; status: string; reason: string; message: string };
const conditions = (crd: unknown): Condition[] =>
  (crd as { status?: { conditions?: Condition[] } } | undefined)?.status?.conditions ?? [];

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
});
afterAll(async () => {
  await server.stop();
});

describe('CRD deletion', () => {
  it('waits for custom resource finalizers: Terminating condition, 405 on create, then the CRD goes', async () => {
    const w = new WatchReader(
      server.url,
      `${CRDS}?watch=1&resourceVersion=${String(server.resourceVersion)}&fieldSelector=metadata.name%3Dgadgets.example.com`,
    );
    await w.ready;
    expect((await call(server.url, 'POST', CRDS, { body: CRD })).status).toBe(201);
    await w.until(
      () =>
        w.lines.some((l) =>
          conditions(l.object).some((c) => c.type === 'Established' && c.status === 'True'),
        ),
      'the CRD Established',
    );
    await call(server.url, 'POST', G, {
      body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    await call(server.url, 'POST', G, { body: { metadata: { name: 'free' } } });

    const del = await call(server.url, 'DELETE', `${CRDS}/gadgets.example.com`);
    expect(del.status).toBe(200);
    expect(del.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    expect(conditions(del.body)).toContainEqual(
      expect.objectContaining({
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      }),
    );
    const late = await call(server.url, 'POST', G, { body: { metadata: { name: 'late' } } });
    expect(late.status).toBe(405);
    expect(late.body).toMatchObject({
      reason: 'MethodNotAllowed',
      message: 'create not allowed while custom resource definition is terminating',
      details: { group: 'example.com', kind: 'gadgets' },
    });

    // the finalizer controller deleted what it could; `held` waits for its finalizer
    await w.until(
      () => w.lines.some((l) => conditions(l.object).some((c) => c.reason === 'InstanceDeletionInProgress')),
      'InstanceDeletionInProgress',
    );
    expect((await call(server.url, 'GET', `${G}/free`)).status).toBe(404);
    const held = await call(server.url, 'GET', `${G}/held`);
    expect(held.status).toBe(200);
    expect(held.body.metadata.deletionTimestamp).toBeDefined();
    expect((await call(server.url, 'GET', `${CRDS}/gadgets.example.com`)).status).toBe(200);

    await call(server.url, 'PATCH', `${G}/held`, {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    await w.until(() => w.lines.some((l) => l.type === 'DELETED'), 'the CRD DELETED');
    expect(conditions(w.lines.at(-2)?.object)).toContainEqual(
      expect.objectContaining({ type: 'Terminating', status: 'False', reason: 'InstanceDeletionCompleted' }),
    );
    expect((await call(server.url, 'GET', `${CRDS}/gadgets.example.com`)).status).toBe(404);
    expect((await call(server.url, 'GET', G)).status).toBe(404);
    w.close();
  });
});
