/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
/**
 * The simulated Deployment controller (`simulateDeployments: true`), over HTTP: status written as
 * kube-controller-manager through the status path after creates and spec changes, level-triggered
 * (a foreign status write is corrected, its own write causes no second one), and off by default.
 *
 * "Nothing more happened" is proved with a barrier: the controller handles keys in the order their
 * writes arrived, so once a Deployment created later got its status, every earlier pass is done
 * and its writes are already on the watch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';

const NS = 'sim';
const DEPLOY = `/apis/apps/v1/namespaces/${NS}/deployments`;

function deployment(name: string, replicas: number | undefined, text = 'hello'): any {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { sim: name } },
    spec: {
      ...(replicas !== undefined ? { replicas } : {}),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'echo', image: 'hashicorp/http-echo:1.0', args: [`-text=${text}`] }] },
      },
    },
  };
}

/** Watches one Deployment (by its `sim` label) from the current resourceVersion. */
async function watchOne(server: ApiServer, name: string): Promise<WatchReader> {
  const w = new WatchReader(
    server.url,
    `${DEPLOY}?watch=1&resourceVersion=${String(server.resourceVersion)}&labelSelector=sim%3D${name}`,
  );
  await w.ready;
  return w;
}

/** Creates a Deployment and waits until the controller wrote its status: every earlier pass is done. */
let barriers = 0;
async function barrier(server: ApiServer): Promise<void> {
  const name = `barrier-${String(++barriers)}`;
  const w = await watchOne(server, name);
  await call(server.url, 'POST', DEPLOY, { body: deployment(name, 1) });
  await w.until(() => w.lines.some((l) => l.object.status?.observedGeneration === 1), `${name}'s status`);
  w.close();
}

describe('simulated Deployment controller (simulateDeployments: true)', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ simulateDeployments: true, logger: { error: () => undefined } });
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
  });
  afterAll(() => server.stop());

  it('writes the rolled-out status after a create, through the status path as kube-controller-manager, once', async () => {
    const w = await watchOne(server, 'web');
    const created = await call(server.url, 'POST', DEPLOY, { body: deployment('web', 3) });
    expect(created.status).toBe(201);
    expect(created.body.status).toBeUndefined();
    await w.count(2);
    await barrier(server);

    expect(w.lines.map((l) => l.type)).toEqual(['ADDED', 'MODIFIED']); // one write, no echo loop
    const d = w.lines[1]?.object;
    expect(d.metadata.generation).toBe(1);
    expect(Object.keys(d.status)).toEqual([
      'observedGeneration',
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'conditions',
    ]);
    expect(d.status).toMatchObject({
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    const [available, progressing] = d.status.conditions;
    expect(Object.keys(available)).toEqual([
      'type',
      'status',
      'lastUpdateTime',
      'lastTransitionTime',
      'reason',
      'message',
    ]);
    expect(available).toMatchObject({
      type: 'Available',
      status: 'True',
      reason: 'MinimumReplicasAvailable',
      message: 'Deployment has minimum availability.',
    });
    expect(progressing).toMatchObject({
      type: 'Progressing',
      status: 'True',
      reason: 'NewReplicaSetAvailable',
    });
    expect(progressing.message).toMatch(
      /^ReplicaSet "web-[bcdfghjklmnpqrstvwxz2456789]+" has successfully progressed\.$/,
    );
    expect(available.lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // the write is the controller's status Update; the user's create stays the user's
    const status = await call(server.url, 'GET', `${DEPLOY}/web/status`);
    expect(status.body.status).toEqual(d.status);
    const entry = d.metadata.managedFields.find((m: any) => m.manager === 'kube-controller-manager');
    expect(entry).toMatchObject({ operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' });
    expect(Object.keys(entry.fieldsV1)).toEqual(['f:status']);
    expect(Object.keys(entry.fieldsV1['f:status'])).toEqual(
      expect.arrayContaining(['f:observedGeneration', 'f:readyReplicas', 'f:conditions']),
    );
    w.close();
  });

  it('follows spec changes: replicas, template (a new ReplicaSet), scale and 0 replicas', async () => {
    const w = await watchOne(server, 'api');
    await call(server.url, 'POST', DEPLOY, { body: deployment('api', 2) });
    await w.until(() => w.lines.at(-1)?.object.status?.observedGeneration === 1, 'generation 1 status');
    const first = w.lines.at(-1)?.object.status;
    const rsName = (s: any): string => s.conditions[1].message;

    // replicas only: same template, same ReplicaSet
    await call(server.url, 'PATCH', `${DEPLOY}/api`, {
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: 4 } },
    });
    await w.until(() => w.lines.at(-1)?.object.status?.observedGeneration === 2, 'generation 2 status');
    const second = w.lines.at(-1)?.object.status;
    expect(second).toMatchObject({ replicas: 4, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4 });
    expect(rsName(second)).toBe(rsName(first));
    expect(second.conditions[0].lastTransitionTime).toBe(first.conditions[0].lastTransitionTime);

    // template change: a new ReplicaSet name in Progressing
    await call(server.url, 'PATCH', `${DEPLOY}/api`, {
      contentType: 'application/json-patch+json',
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/args', value: ['-text=bye'] }],
    });
    await w.until(() => w.lines.at(-1)?.object.status?.observedGeneration === 3, 'generation 3 status');
    const third = w.lines.at(-1)?.object.status;
    expect(third.readyReplicas).toBe(4);
    expect(rsName(third)).not.toBe(rsName(second));

    // the scale subresource
    await call(server.url, 'PATCH', `${DEPLOY}/api/scale`, {
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: 1 } },
    });
    await w.until(() => w.lines.at(-1)?.object.status?.observedGeneration === 4, 'generation 4 status');
    expect(w.lines.at(-1)?.object.status).toMatchObject({ replicas: 1, readyReplicas: 1 });

    // 0 replicas: the counts are omitted (omitempty), the conditions stay
    await call(server.url, 'PATCH', `${DEPLOY}/api`, {
      contentType: 'application/merge-patch+json',
      body: { spec: { replicas: 0 } },
    });
    await w.until(() => w.lines.at(-1)?.object.status?.observedGeneration === 5, 'generation 5 status');
    const zero = w.lines.at(-1)?.object.status;
    expect(Object.keys(zero)).toEqual(['observedGeneration', 'conditions']);
    expect(zero.conditions.map((c: any) => [c.type, c.status])).toEqual([
      ['Available', 'True'],
      ['Progressing', 'True'],
    ]);
    w.close();
  });

  it('is level-triggered: a foreign status write is corrected; a label change writes nothing', async () => {
    const w = await watchOne(server, 'lvl');
    await call(server.url, 'POST', DEPLOY, { body: deployment('lvl', 2) });
    await w.until(() => w.lines.at(-1)?.object.status?.readyReplicas === 2, 'ready status');

    await call(server.url, 'PATCH', `${DEPLOY}/lvl/status`, {
      contentType: 'application/merge-patch+json',
      body: { status: { readyReplicas: 0 } },
    });
    await w.until(
      () =>
        w.lines.filter((l) => l.type === 'MODIFIED').length >= 3 &&
        w.lines.at(-1)?.object.status?.readyReplicas === 2,
      'the corrected status',
    );

    const before = w.lines.length;
    await call(server.url, 'PATCH', `${DEPLOY}/lvl`, {
      contentType: 'application/merge-patch+json',
      // a label, not an annotation: annotations bump the generation (deployment/strategy.go), which
      // the controller then observes
      body: { metadata: { labels: { note: 'x' } } },
    });
    await w.count(before + 1);
    await barrier(server);
    expect(w.lines.length).toBe(before + 1); // the label's own MODIFIED only
    w.close();
  });
});

describe('without simulateDeployments (the default)', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ logger: { error: () => undefined } });
    await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
  });
  afterAll(() => server.stop());

  it('leaves Deployment status alone', async () => {
    await call(server.url, 'POST', DEPLOY, { body: deployment('idle', 2) });
    // a pass would have run on the tick after the create's response; this request comes later
    const got = await call(server.url, 'GET', `${DEPLOY}/idle`);
    expect(got.body.status).toBeUndefined();
    expect(server.object('deployments.apps', NS, 'idle')?.metadata.managedFields).not.toContainEqual(
      expect.objectContaining({ manager: 'kube-controller-manager' }),
    );
  });
});
