/**
 * core/v1 kinds: Namespace (lifecycle fields of the namespace strategy), ConfigMap and Secret
 * (key validation, Secret `stringData`), Pod (PodSpec defaults of `pod-spec.ts`), Service,
 * ServiceAccount, PersistentVolumeClaim (`volumeMode`, `phase: Pending`, the
 * `kubernetes.io/pvc-protection` finalizer the StorageObjectInUseProtection admission plugin adds;
 * `controllers/pvc-protection.ts` removes it), Endpoints (port protocols). Events are in
 * `events.ts`.
 *
 * @module
 */
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import {
  base64DecodeError,
  configMapCauses,
  configMapUpdateCauses,
  secretCauses,
  secretUpdateCauses,
} from '../../validation/config-data.js';
import { defaultServicePorts, serviceCauses } from '../../validation/services.js';
import { builtin, checkStringMap, UPDATE_AND_CREATE } from './builtin.js';
import { defaultPodSpec } from './pod-spec.js';

/**
 * `qos.GetPodQOS`: BestEffort without any request or limit, Guaranteed when every container limits
 * CPU and memory with requests equal to the limits (or unset), Burstable otherwise.
 */
export function qosClass(spec: Record<string, unknown>): string {
  const containers = [
    ...(Array.isArray(spec['containers']) ? (spec['containers'] as unknown[]) : []),
    ...(Array.isArray(spec['initContainers']) ? (spec['initContainers'] as unknown[]) : []),
  ].filter(isObject);
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const resources = isObject(c['resources']) ? c['resources'] : {};
    const requests = isObject(resources['requests']) ? resources['requests'] : {};
    const limits = isObject(resources['limits']) ? resources['limits'] : {};
    if (Object.keys(requests).length > 0 || Object.keys(limits).length > 0) any = true;
    for (const r of ['cpu', 'memory']) {
      if (limits[r] === undefined) guaranteed = false;
      else if (requests[r] !== undefined && JSON.stringify(requests[r]) !== JSON.stringify(limits[r]))
        guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The finalizer of the StorageObjectInUseProtection admission plugin on every new PVC. */
export const PVC_PROTECTION = 'kubernetes.io/pvc-protection';

/** The core/v1 kinds (Events excepted). */
export function coreKinds(): ResourceType[] {
  return [
    builtin({
      group: '',
      version: 'v1',
      resource: 'namespaces',
      kind: 'Namespace',
      // ValidateNamespace then ValidateNamespaceUpdate on update
      metaValidation: { flavor: 'core', onUpdate: 'create+update' },
      namespaced: false,
      shortNames: ['ns'],
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      hasStatus: true,
      subresources: [{ name: 'finalize', kind: 'Namespace', verbs: ['update'] }],
      knownFields: ['spec', 'status'],
      nameRule: 'label',
      selectableFields: ['status.phase'],
      fields: (o) => {
        const phase = isObject(o['status']) ? o['status']['phase'] : undefined;
        return { 'status.phase': typeof phase === 'string' ? phase : '' };
      },
      // decode-time default: owned by the writer (file 20's managedFields list the label)
      defaults: (o) => {
        const name = o.metadata.name;
        if (name) o.metadata.labels = { ...(o.metadata.labels ?? {}), 'kubernetes.io/metadata.name': name };
      },
      // namespace strategy: spec.finalizers only change through /finalize, status.phase is the server's
      prepare: (o, old) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        const oldSpec = old && isObject(old['spec']) ? old['spec'] : undefined;
        if (oldSpec) {
          if (oldSpec['finalizers'] === undefined) delete spec['finalizers'];
          else spec['finalizers'] = oldSpec['finalizers'];
        } else spec['finalizers'] = ['kubernetes'];
        o['spec'] = spec;
        const status = isObject(o['status']) ? o['status'] : {};
        status['phase'] ??= 'Active';
        o['status'] = status;
      },
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'configmaps',
      kind: 'ConfigMap',
      metaValidation: UPDATE_AND_CREATE,
      namespaced: true,
      shortNames: ['cm'],
      knownFields: ['immutable', 'data', 'binaryData'],
      decodeCheck: (o) =>
        checkStringMap(o, 'data', 'ConfigMap') ??
        checkStringMap(o, 'binaryData', 'ConfigMap') ??
        base64DecodeError(o, 'binaryData', 'ConfigMap'),
      validate: (o, old) => (old ? configMapUpdateCauses(o, old) : configMapCauses(o)),
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'secrets',
      kind: 'Secret',
      metaValidation: UPDATE_AND_CREATE,
      namespaced: true,
      knownFields: ['immutable', 'data', 'stringData', 'type'],
      selectableFields: ['type'],
      fields: (o) => ({ type: typeof o['type'] === 'string' ? o['type'] : '' }),
      decodeCheck: (o) =>
        checkStringMap(o, 'data', 'Secret') ??
        checkStringMap(o, 'stringData', 'Secret') ??
        base64DecodeError(o, 'data', 'Secret'),
      defaults: (o) => {
        const sd = o['stringData'];
        if (isObject(sd)) {
          const data = isObject(o['data']) ? o['data'] : {};
          for (const [k, v] of Object.entries(sd)) data[k] = Buffer.from(String(v)).toString('base64');
          o['data'] = data;
        }
        delete o['stringData'];
        if (o['type'] === undefined || o['type'] === '') o['type'] = 'Opaque';
      },
      validate: (o, old) => (old ? secretUpdateCauses(o, old) : secretCauses(o)),
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'pods',
      kind: 'Pod',
      metaValidation: UPDATE_AND_CREATE,
      statusKeeps: ['ownerReferences'],
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      hasStatus: true,
      subresources: [{ name: 'log', kind: 'Pod', verbs: ['get'] }],
      knownFields: ['spec', 'status'],
      selectableFields: [
        'spec.nodeName',
        'spec.restartPolicy',
        'spec.schedulerName',
        'spec.serviceAccountName',
        'status.phase',
        'status.podIP',
        'status.nominatedNodeName',
      ],
      fields: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        const status = isObject(o['status']) ? o['status'] : {};
        const s = (v: unknown): string => (typeof v === 'string' ? v : '');
        return {
          'spec.nodeName': s(spec['nodeName']),
          'spec.restartPolicy': s(spec['restartPolicy']),
          'spec.schedulerName': s(spec['schedulerName']),
          'spec.serviceAccountName': s(spec['serviceAccountName']),
          'status.phase': s(status['phase']),
          'status.podIP': s(status['podIP']),
          'status.nominatedNodeName': s(status['nominatedNodeName']),
        };
      },
      defaults: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        defaultPodSpec(spec);
        spec['enableServiceLinks'] ??= true;
        // SetDefaults_Pod (not templates): a container's limits fill its missing requests
        for (const list of ['containers', 'initContainers']) {
          const cs = spec[list];
          if (!Array.isArray(cs)) continue;
          for (const c of cs) {
            const resources = isObject(c) && isObject(c['resources']) ? c['resources'] : undefined;
            if (!resources || !isObject(resources['limits'])) continue;
            const requests = isObject(resources['requests']) ? resources['requests'] : {};
            for (const [k, v] of Object.entries(resources['limits'])) if (!(k in requests)) requests[k] = v;
            if (Object.keys(requests).length > 0) resources['requests'] = requests;
          }
        }
        o['spec'] = spec;
      },
      // pod strategy PrepareForCreate: `status` is `{phase: Pending, qosClass}` whatever was sent; a
      // strategy change, so no manager owns it (there is no PodStatus default: a status write
      // without `phase` clears it — both measured on v1.24)
      prepare: (o, old) => {
        if (old !== undefined) return;
        o['status'] = { phase: 'Pending', qosClass: qosClass(isObject(o['spec']) ? o['spec'] : {}) };
      },
      validate: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        const c = spec['containers'];
        return Array.isArray(c) && c.length > 0
          ? []
          : [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }];
      },
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'services',
      kind: 'Service',
      metaValidation: UPDATE_AND_CREATE,
      etcdPrefix: '/registry/services/specs',
      namespaced: true,
      shortNames: ['svc'],
      categories: ['all'],
      hasStatus: true,
      knownFields: ['spec', 'status'],
      nameRule: 'label',
      defaults: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        spec['type'] ??= 'ClusterIP';
        spec['sessionAffinity'] ??= 'None';
        if (spec['type'] === 'ClusterIP' || spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer')
          spec['internalTrafficPolicy'] ??= 'Cluster';
        if (Array.isArray(spec['ports']))
          for (const p of spec['ports']) {
            if (!isObject(p)) continue;
            p['protocol'] ??= 'TCP';
            p['targetPort'] ??= p['port'];
          }
        o['spec'] = spec;
        o['status'] ??= { loadBalancer: {} };
        defaultServicePorts(o);
      },
      validate: serviceCauses,
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'serviceaccounts',
      kind: 'ServiceAccount',
      metaValidation: UPDATE_AND_CREATE,
      namespaced: true,
      shortNames: ['sa'],
      knownFields: ['secrets', 'imagePullSecrets', 'automountServiceAccountToken'],
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'persistentvolumeclaims',
      kind: 'PersistentVolumeClaim',
      namespaced: true,
      shortNames: ['pvc'],
      hasStatus: true,
      knownFields: ['spec', 'status'],
      defaults: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        spec['volumeMode'] ??= 'Filesystem';
        o['spec'] = spec;
        const status = isObject(o['status']) ? o['status'] : {};
        status['phase'] ??= 'Pending';
        o['status'] = status;
      },
      prepare: (o, old) => {
        if (old !== undefined) return;
        const finalizers = o.metadata.finalizers ?? [];
        if (!finalizers.includes(PVC_PROTECTION)) o.metadata.finalizers = [...finalizers, PVC_PROTECTION];
      },
    }),
    builtin({
      group: '',
      version: 'v1',
      resource: 'endpoints',
      kind: 'Endpoints',
      namespaced: true,
      shortNames: ['ep'],
      knownFields: ['subsets'],
      defaults: (o) => {
        const subsets = o['subsets'];
        if (!Array.isArray(subsets)) return;
        for (const subset of subsets) {
          if (!isObject(subset) || !Array.isArray(subset['ports'])) continue;
          for (const port of subset['ports']) if (isObject(port)) port['protocol'] ??= 'TCP';
        }
      },
    }),
  ];
}
