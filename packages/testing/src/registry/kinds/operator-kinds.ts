/**
 * The remaining built-in kinds an operator commonly owns or reads, generated from one table
 * ({@link OPERATOR_KINDS}): core/v1 PodTemplate and ReplicationController, apps/v1
 * ControllerRevision, networking.k8s.io/v1 IngressClass, scheduling.k8s.io/v1 PriorityClass,
 * storage.k8s.io/v1 CSIStorageCapacity and StorageClass, discovery.k8s.io/v1 EndpointSlice, and the
 * cluster-scoped core/v1 Node and PersistentVolume that operators watch (issue 18 §8). Each row gives its discovery (short names,
 * categories, namespaced, subresources, as kube-apiserver v1.24 lists them —
 * `served-kinds.differential.test.ts` compares) and what the server does when storing it:
 *
 * - ReplicationController: `SetDefaults_ReplicationController` (pkg/apis/core/v1/defaults.go) —
 *   `spec.selector` and `metadata.labels` from the template's labels when empty, `spec.replicas`
 *   1 — and the pod template defaults; the strategy's `PrepareForCreate` zero status
 *   (`replicas: 0`) and generation; `scale` as for ReplicaSets.
 * - PodTemplate: the pod template defaults of `template`.
 * - PriorityClass: `SetDefaults_PriorityClass` — `preemptionPolicy: PreemptLowerPriority`.
 * - IngressClass: `SetDefaults_IngressClass` — `spec.parameters.scope: Cluster` when unset.
 * - ControllerRevision, CSIStorageCapacity: stored as given.
 * - EndpointSlice: port `name: ""` and `protocol: TCP`, each endpoint's `conditions: {}`;
 *   `generation` moves on any change outside metadata.
 * - Node: its status's zero value as Go writes it (`daemonEndpoints.kubeletEndpoint.Port: 0`,
 *   empty `nodeInfo` strings); TaintNodesByCondition admission's `node.kubernetes.io/not-ready`
 *   `NoSchedule` taint on create.
 * - PersistentVolume: `persistentVolumeReclaimPolicy: Retain`, `volumeMode: Filesystem`,
 *   `hostPath.type: ""`, `status.phase: Pending`.
 * - StorageClass: `reclaimPolicy: Delete`, `volumeBindingMode: Immediate`.
 *
 * Does not: run the replication controller (no Pods are made, `status` stays as written), create
 * the two `system-*` PriorityClasses a real server bootstraps, add the `kubernetes.io/pv-protection`
 * finalizer to PersistentVolumes (StorageObjectInUseProtection; nothing would remove it: no PV
 * protection controller), bind volumes, run kubelets or the node lifecycle controller, or apply each
 * kind's validation beyond object metadata. The README's *Served kinds* says so per kind.
 *
 * @module
 */
import type { Json, KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import type { BuiltinSpec } from './builtin.js';
import { builtin, UPDATE_AND_CREATE } from './builtin.js';
import { defaultPodTemplate } from './pod-spec.js';

/** One row of the table: a kind, its discovery and what the server does when storing it. */
type KindRow = Pick<
  BuiltinSpec,
  | 'group'
  | 'storageVersion'
  | 'resource'
  | 'kind'
  | 'namespaced'
  | 'shortNames'
  | 'categories'
  | 'hasStatus'
  | 'hasGeneration'
  | 'knownFields'
  | 'subresources'
  | 'defaults'
  | 'prepare'
>;

/** `SetDefaults_ReplicationController` and the pod template defaults. */
function defaultReplicationController(o: KObj): void {
  const spec: Json = isObject(o['spec']) ? o['spec'] : {};
  o['spec'] = spec;
  const template = spec['template'];
  const labels =
    isObject(template) && isObject(template['metadata']) ? template['metadata']['labels'] : undefined;
  if (isObject(labels)) {
    if (!isObject(spec['selector']) || Object.keys(spec['selector']).length === 0)
      spec['selector'] = { ...labels };
    if (Object.keys(o.metadata.labels ?? {}).length === 0)
      o.metadata.labels = { ...(labels as Record<string, string>) };
  }
  spec['replicas'] ??= 1;
  defaultPodTemplate(template);
}

/** The taint TaintNodesByCondition admission puts on every new Node. */
const NOT_READY = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' } as const;

/** A Node's status as Go serialises its zero value (struct fields without `omitempty`). */
function defaultNode(o: KObj): void {
  const status: Json = isObject(o['status']) ? o['status'] : {};
  o['status'] = status;
  const endpoints: Json = isObject(status['daemonEndpoints']) ? status['daemonEndpoints'] : {};
  status['daemonEndpoints'] = endpoints;
  const kubelet: Json = isObject(endpoints['kubeletEndpoint']) ? endpoints['kubeletEndpoint'] : {};
  endpoints['kubeletEndpoint'] = kubelet;
  kubelet['Port'] ??= 0;
  const info: Json = isObject(status['nodeInfo']) ? status['nodeInfo'] : {};
  status['nodeInfo'] = info;
  for (const k of [
    'machineID',
    'systemUUID',
    'bootID',
    'kernelVersion',
    'osImage',
    'containerRuntimeVersion',
    'kubeletVersion',
    'kubeProxyVersion',
    'operatingSystem',
    'architecture',
  ])
    info[k] ??= '';
}

/** `SetDefaults_EndpointPort` and each endpoint's `conditions` struct. */
function defaultEndpointSlice(o: KObj): void {
  for (const e of Array.isArray(o['endpoints']) ? o['endpoints'] : []) {
    if (isObject(e) && !isObject(e['conditions'])) e['conditions'] = {};
  }
  for (const p of Array.isArray(o['ports']) ? o['ports'] : []) {
    if (!isObject(p)) continue;
    p['name'] ??= '';
    p['protocol'] ??= 'TCP';
  }
}

/** The table (issue 18 §8); ResourceQuota and LimitRange are in `namespace-policy.ts`. */
export const OPERATOR_KINDS: readonly KindRow[] = [
  {
    group: '',
    resource: 'podtemplates',
    kind: 'PodTemplate',
    namespaced: true,
    knownFields: ['template'],
    defaults: (o) => defaultPodTemplate(o['template']),
  },
  {
    group: '',
    resource: 'replicationcontrollers',
    kind: 'ReplicationController',
    namespaced: true,
    shortNames: ['rc'],
    categories: ['all'],
    hasStatus: true,
    hasGeneration: true,
    subresources: [
      {
        name: 'scale',
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      },
    ],
    knownFields: ['spec', 'status'],
    defaults: defaultReplicationController,
    prepare: (o, old) => {
      const status: Json = old === undefined ? {} : isObject(o['status']) ? o['status'] : {};
      status['replicas'] ??= 0;
      o['status'] = status;
    },
  },
  {
    group: 'apps',
    resource: 'controllerrevisions',
    kind: 'ControllerRevision',
    namespaced: true,
    knownFields: ['data', 'revision'],
  },
  {
    group: 'networking.k8s.io',
    resource: 'ingressclasses',
    kind: 'IngressClass',
    namespaced: false,
    knownFields: ['spec'],
    defaults: (o) => {
      const spec = o['spec'];
      if (isObject(spec) && isObject(spec['parameters'])) spec['parameters']['scope'] ??= 'Cluster';
    },
  },
  {
    group: 'scheduling.k8s.io',
    resource: 'priorityclasses',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
    knownFields: ['value', 'globalDefault', 'description', 'preemptionPolicy'],
    defaults: (o) => {
      o['preemptionPolicy'] ??= 'PreemptLowerPriority';
    },
  },
  {
    group: 'discovery.k8s.io',
    resource: 'endpointslices',
    kind: 'EndpointSlice',
    // as CSIStorageCapacity: v1.24 still stores it as v1beta1 (its storageVersionHash says so)
    storageVersion: 'v1beta1',
    namespaced: true,
    hasGeneration: true,
    knownFields: ['addressType', 'endpoints', 'ports'],
    defaults: defaultEndpointSlice,
  },
  {
    group: '',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    hasStatus: true,
    knownFields: ['spec', 'status'],
    defaults: defaultNode,
    prepare: (o, old) => {
      // TaintNodesByCondition admission: a new Node is not ready until its kubelet says so
      if (old !== undefined) return;
      const spec: Json = isObject(o['spec']) ? o['spec'] : {};
      o['spec'] = spec;
      const taints: unknown[] = Array.isArray(spec['taints']) ? spec['taints'] : [];
      if (!taints.some((t) => isObject(t) && t['key'] === NOT_READY.key && t['effect'] === NOT_READY.effect))
        spec['taints'] = [...taints, { ...NOT_READY }];
    },
  },
  {
    group: '',
    resource: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    hasStatus: true,
    knownFields: ['spec', 'status'],
    defaults: (o) => {
      const spec: Json = isObject(o['spec']) ? o['spec'] : {};
      o['spec'] = spec;
      spec['persistentVolumeReclaimPolicy'] ??= 'Retain';
      spec['volumeMode'] ??= 'Filesystem';
      if (isObject(spec['hostPath'])) spec['hostPath']['type'] ??= '';
      const status: Json = isObject(o['status']) ? o['status'] : {};
      status['phase'] ??= 'Pending';
      o['status'] = status;
    },
  },
  {
    group: 'storage.k8s.io',
    resource: 'storageclasses',
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
    knownFields: [
      'provisioner',
      'parameters',
      'reclaimPolicy',
      'mountOptions',
      'allowVolumeExpansion',
      'volumeBindingMode',
      'allowedTopologies',
    ],
    defaults: (o) => {
      o['reclaimPolicy'] ??= 'Delete';
      o['volumeBindingMode'] ??= 'Immediate';
    },
  },
  {
    group: 'storage.k8s.io',
    resource: 'csistoragecapacities',
    kind: 'CSIStorageCapacity',
    // v1 is new in 1.24; etcd still holds v1beta1 (its storageVersionHash says so)
    storageVersion: 'v1beta1',
    namespaced: true,
    knownFields: ['nodeTopology', 'storageClassName', 'capacity', 'maximumVolumeSize'],
  },
];

/** The kinds of {@link OPERATOR_KINDS}, all in version v1. */
export function operatorKinds(): ResourceType[] {
  return OPERATOR_KINDS.map((row) =>
    builtin({
      ...row,
      version: 'v1',
      ...(row.group === '' ? { metaValidation: UPDATE_AND_CREATE } : {}),
    }),
  );
}
