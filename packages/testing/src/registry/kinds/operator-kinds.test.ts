/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- response bodies are untyped JSON */
/**
 * The kinds of `operator-kinds.ts` (issue 18 §8) on both backends: created by server-side apply
 * (which needs their OpenAPI schemas), stored with the defaults kube-apiserver v1.24 applies (the
 * expected bodies were read from the real server), listed, applied again without a change, and a
 * ReplicationController scaled through `scale`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';

import { call } from '../../internal/test-client.js';
import { describeEachBackend } from '../../vitest/describe-each-backend.js';

const NS = 'operator-kinds';
const APPLY = 'application/apply-patch+yaml';
const CONTAINERS = [{ name: 'c', image: 'example.com/app:1' }];
/** The pod template defaults both servers store (`SetDefaults_PodSpec`, `SetDefaults_Container`). */
const DEFAULTED_TEMPLATE_SPEC = {
  containers: [
    {
      name: 'c',
      image: 'example.com/app:1',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'IfNotPresent',
    },
  ],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
};

/** Kind, collection path, the applied body's fields, and the fields as stored. */
const CASES: readonly [string, string, string, Record<string, unknown>, Record<string, unknown>][] = [
  [
    'PodTemplate',
    'v1',
    `/api/v1/namespaces/${NS}/podtemplates`,
    { template: { metadata: { labels: { app: 'pt' } }, spec: { containers: CONTAINERS } } },
    {
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'pt' } },
        spec: DEFAULTED_TEMPLATE_SPEC,
      },
    },
  ],
  [
    'ControllerRevision',
    'apps/v1',
    `/apis/apps/v1/namespaces/${NS}/controllerrevisions`,
    { data: { spec: { x: 1 } }, revision: 2 },
    { data: { spec: { x: 1 } }, revision: 2 },
  ],
  [
    'IngressClass',
    'networking.k8s.io/v1',
    '/apis/networking.k8s.io/v1/ingressclasses',
    { spec: { controller: 'example.com/ic', parameters: { apiGroup: 'example.com', kind: 'P', name: 'p' } } },
    {
      spec: {
        controller: 'example.com/ic',
        parameters: { apiGroup: 'example.com', kind: 'P', name: 'p', scope: 'Cluster' },
      },
    },
  ],
  [
    'PriorityClass',
    'scheduling.k8s.io/v1',
    '/apis/scheduling.k8s.io/v1/priorityclasses',
    { value: 1000, description: 'batch' },
    { value: 1000, description: 'batch', preemptionPolicy: 'PreemptLowerPriority' },
  ],
  [
    'CSIStorageCapacity',
    'storage.k8s.io/v1',
    `/apis/storage.k8s.io/v1/namespaces/${NS}/csistoragecapacities`,
    { storageClassName: 'fast', capacity: '10Gi', nodeTopology: { matchLabels: { zone: 'a' } } },
    { storageClassName: 'fast', capacity: '10Gi', nodeTopology: { matchLabels: { zone: 'a' } } },
  ],
];

describeEachBackend(
  'PodTemplate, ReplicationController, ControllerRevision, IngressClass, PriorityClass, CSIStorageCapacity',
  (b) => {
    const send = (method: string, path: string, body?: unknown, contentType?: string) =>
      call(b.cluster.url, method, path, {
        ...(body !== undefined ? { body } : {}),
        ...(contentType ? { contentType } : {}),
        headers: { Authorization: `Bearer ${b.cluster.token}` },
        ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
      });
    const name = `${NS}-x`;

    beforeAll(async () => {
      expect((await send('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    });
    afterAll(async () => {
      // the cluster-scoped ones outlive the namespace
      await send('DELETE', `/apis/networking.k8s.io/v1/ingressclasses/${name}`);
      await send('DELETE', `/apis/scheduling.k8s.io/v1/priorityclasses/${name}`);
    });

    it.each(CASES)(
      '%s is created by server-side apply with the server defaults, listed, and re-applied unchanged',
      async (kind, apiVersion, collection, fields, stored) => {
        const apply = () =>
          send(
            'PATCH',
            `${collection}/${name}?fieldManager=op`,
            { apiVersion, kind, metadata: { name }, ...fields },
            APPLY,
          );
        const first = await apply();
        expect(first.status, first.text).toBe(201);
        const { apiVersion: v, kind: k, metadata, ...rest } = first.body;
        expect([v, k, metadata.name]).toEqual([apiVersion, kind, name]);
        expect(rest).toEqual(stored);
        const list = await send('GET', collection);
        expect([list.status, list.body.kind]).toEqual([200, `${kind}List`]);
        expect(list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain(name);
        const again = await apply();
        expect(again.status, again.text).toBe(200);
        expect(again.body.metadata.resourceVersion).toBe(metadata.resourceVersion);
      },
    );

    it('a ReplicationController gets its selector, labels and replicas from the template, and scales', async () => {
      const rcs = `/api/v1/namespaces/${NS}/replicationcontrollers`;
      const created = await send('POST', rcs, {
        apiVersion: 'v1',
        kind: 'ReplicationController',
        metadata: { name: 'rc' },
        spec: {
          template: { metadata: { labels: { app: 'rc', tier: 'web' } }, spec: { containers: CONTAINERS } },
        },
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.metadata.labels).toEqual({ app: 'rc', tier: 'web' });
      expect(created.body.metadata.generation).toBe(1);
      expect(created.body.spec).toEqual({
        replicas: 1,
        selector: { app: 'rc', tier: 'web' },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'rc', tier: 'web' } },
          spec: DEFAULTED_TEMPLATE_SPEC,
        },
      });
      expect(created.body.status).toEqual({ replicas: 0 });
      const scale = await send('GET', `${rcs}/rc/scale`);
      expect(scale.status, scale.text).toBe(200);
      expect([scale.body.apiVersion, scale.body.kind, scale.body.spec, scale.body.status]).toEqual([
        'autoscaling/v1',
        'Scale',
        { replicas: 1 },
        { replicas: 0, selector: 'app=rc,tier=web' },
      ]);
      const scaled = await send(
        'PATCH',
        `${rcs}/rc/scale`,
        { spec: { replicas: 3 } },
        'application/merge-patch+json',
      );
      expect(scaled.status, scaled.text).toBe(200);
      const after = await send('GET', `${rcs}/rc`);
      expect([after.body.spec.replicas, after.body.metadata.generation]).toEqual([3, 2]);
    });
  },
);
