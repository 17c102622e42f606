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
    // PrepareForCreate leaves `status: {}` (a real v1.24 server answers so)
    expect(created.body.status).toEqual({});
    await w.count(2);
    await barrier(server);

    // the revision annotation and the status in one status write (the real UpdateStatus), no echo loop
    expect(w.lines.map((l) => l.type)).toEqual(['ADDED', 'MODIFIED']);
    const d = w.lines[1]?.object;
    expect(d.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
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
    const entry = d.metadata.managedFields.find(
      (m: any) => m.manager === 'kube-controller-manager' && m.subresource === 'status',
    );
    expect(entry).toMatchObject({ operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' });
    // as on a real v1.24 server: the revision annotation and the status, both through /status
    expect(Object.keys(entry.fieldsV1)).toEqual(['f:metadata', 'f:status']);
    expect(entry.fieldsV1['f:metadata']).toEqual({
      'f:annotations': { '.': {}, 'f:deployment.kubernetes.io/revision': {} },
    });
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

  it('owns a ReplicaSet per template: revisions, kubectl rollout undo, revisionHistoryLimit', async () => {
    const RS = `/apis/apps/v1/namespaces/${NS}/replicasets`;
    const body = deployment('hist', 2);
    body.metadata.annotations = { 'kubernetes.io/change-cause': 'v1' };
    body.spec.revisionHistoryLimit = 1;
    await call(server.url, 'POST', DEPLOY, { body });
    const replicaSets = async (): Promise<any[]> =>
      ((await call(server.url, 'GET', `${RS}?labelSelector=app%3Dhist`)).body.items as any[]).sort(
        (a, b) =>
          Number(a.metadata.annotations['deployment.kubernetes.io/revision']) -
          Number(b.metadata.annotations['deployment.kubernetes.io/revision']),
      );
    const settled = async (count: number): Promise<any[]> => {
      for (let i = 0; i < 200; i++) {
        const list = await replicaSets();
        const d = (await call(server.url, 'GET', `${DEPLOY}/hist`)).body;
        if (
          list.length === count &&
          d.status?.observedGeneration === d.metadata.generation &&
          list.every((r) => r.status?.observedGeneration === r.metadata.generation)
        )
          return list;
        await new Promise((r) => setImmediate(r));
      }
      throw new Error(
        `ReplicaSets of hist did not settle at ${String(count)}: ${JSON.stringify(await replicaSets())}`,
      );
    };
    const [first] = await settled(1);
    const uid = (await call(server.url, 'GET', `${DEPLOY}/hist`)).body.metadata.uid;
    const hash = first.metadata.labels['pod-template-hash'];
    // the real controller's shape: <name>-<hash>, hash label on labels/selector/template, owner, annotations
    expect(first.metadata.name).toBe(`hist-${String(hash)}`);
    expect(first.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'hist',
        uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(first.metadata.annotations).toEqual({
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
      'deployment.kubernetes.io/revision': '1',
      'kubernetes.io/change-cause': 'v1',
    });
    expect(first.spec.selector.matchLabels).toEqual({ app: 'hist', 'pod-template-hash': hash });
    expect(first.spec.template.metadata.labels).toEqual({ app: 'hist', 'pod-template-hash': hash });
    expect(first.status).toEqual({
      replicas: 2,
      fullyLabeledReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      observedGeneration: 1,
    });

    // a new template: revision 2 takes the replicas, revision 1 is scaled to 0
    const merge = 'application/merge-patch+json';
    await call(server.url, 'PATCH', `${DEPLOY}/hist`, {
      contentType: merge,
      body: {
        metadata: { annotations: { 'kubernetes.io/change-cause': 'v2' } },
        spec: { template: { spec: { containers: [{ name: 'echo', image: 'hashicorp/http-echo:1.1' }] } } },
      },
    });
    let list = await settled(2);
    expect(
      list.map((r) => [r.metadata.annotations['deployment.kubernetes.io/revision'], r.spec.replicas]),
    ).toEqual([
      ['1', 0],
      ['2', 2],
    ]);

    // kubectl rollout undo: a JSON patch restoring revision 1's template and annotations
    const template = structuredClone(list[0].spec.template);
    delete template.metadata.labels['pod-template-hash'];
    await call(server.url, 'PATCH', `${DEPLOY}/hist`, {
      contentType: 'application/json-patch+json',
      body: [
        { op: 'replace', path: '/spec/template', value: template },
        {
          op: 'replace',
          path: '/metadata/annotations',
          value: { 'deployment.kubernetes.io/revision': '2', 'kubernetes.io/change-cause': 'v1' },
        },
      ],
    });
    list = await settled(2);
    // the old ReplicaSet comes back as revision 3 (history 1), as the real controller renumbers it
    expect(
      list.map((r) => [
        r.metadata.name,
        r.metadata.annotations['deployment.kubernetes.io/revision'],
        r.spec.replicas,
      ]),
    ).toEqual([
      [list[0].metadata.name, '2', 0],
      [first.metadata.name, '3', 2],
    ]);
    expect(list[1].metadata.annotations['deployment.kubernetes.io/revision-history']).toBe('1');
    expect(
      (await call(server.url, 'GET', `${DEPLOY}/hist`)).body.metadata.annotations[
        'deployment.kubernetes.io/revision'
      ],
    ).toBe('3');

    // a third template with revisionHistoryLimit 1: the oldest idle ReplicaSet is deleted
    await call(server.url, 'PATCH', `${DEPLOY}/hist`, {
      contentType: merge,
      body: { spec: { template: { metadata: { labels: { app: 'hist', v: '3' } } } } },
    });
    list = await settled(2);
    expect(list.map((r) => r.metadata.annotations['deployment.kubernetes.io/revision'])).toEqual(['3', '4']);
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
    expect(got.body.status).toEqual({});
    expect(server.object('deployments.apps', NS, 'idle')?.metadata.managedFields).not.toContainEqual(
      expect.objectContaining({ manager: 'kube-controller-manager' }),
    );
  });
});
