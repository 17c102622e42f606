/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
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
  [
    'EndpointSlice',
    'discovery.k8s.io/v1',
    `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`,
    { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] },
    {
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], conditions: {} }],
      ports: [{ name: '', protocol: 'TCP', port: 80 }],
    },
  ],
  [
    'StorageClass',
    'storage.k8s.io/v1',
    '/apis/storage.k8s.io/v1/storageclasses',
    { provisioner: 'example.com/fast' },
    { provisioner: 'example.com/fast', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' },
  ],
  [
    'PersistentVolume',
    'v1',
    '/api/v1/persistentvolumes',
    { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } } },
    {
      spec: {
        capacity: { storage: '1Gi' },
        hostPath: { path: '/tmp/x', type: '' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    },
  ],
  [
    'Node',
    'v1',
    '/api/v1/nodes',
    // a label, so the applier owns a field: with none, the second apply records the admission's
    // taint under `before-first-apply` and moves the resourceVersion (both backends)
    { metadata: { name: `${NS}-x`, labels: { role: 'worker' } } },
    {
      // TaintNodesByCondition admission
      spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] },
      // the zero value of NodeStatus as Go writes it
      status: {
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: {
          machineID: '',
          systemUUID: '',
          bootID: '',
          kernelVersion: '',
          osImage: '',
          containerRuntimeVersion: '',
          kubeletVersion: '',
          kubeProxyVersion: '',
          operatingSystem: '',
          architecture: '',
        },
      },
    },
  ],
];

/** Kinds kube-controller-manager writes on its own on the real backend, and what it writes. */
const WRITTEN_BY_CONTROLLERS: Readonly<Record<string, string>> = {
  PersistentVolume: 'the persistent volume binder sets status.phase Available',
  Node: 'the node lifecycle controller taints and annotates a Node no kubelet updates',
};

describeEachBackend(
  'PodTemplate, ReplicationController, ControllerRevision, IngressClass, PriorityClass, CSIStorageCapacity, EndpointSlice, StorageClass, PersistentVolume, Node',
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
      await send('DELETE', `/apis/storage.k8s.io/v1/storageclasses/${name}`);
      await send('DELETE', `/api/v1/nodes/${name}`);
      // a real PersistentVolume keeps its kubernetes.io/pv-protection finalizer until
      // kube-controller-manager sees it unbound: deletion is not awaited
      await send('DELETE', `/api/v1/persistentvolumes/${name}`);
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
        const controller = b.name === 'real' ? WRITTEN_BY_CONTROLLERS[kind] : undefined;
        if (controller === undefined) {
          expect(again.body.metadata.resourceVersion).toBe(metadata.resourceVersion);
        } else {
          // kube-controller-manager may write the object between the two applies: the applier's
          // own entry is what must not change
          const entry = (m: { managedFields?: { manager: string }[] }) =>
            m.managedFields?.find((e) => e.manager === 'op');
          expect(entry(again.body.metadata)).toEqual(entry(metadata));
        }
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
