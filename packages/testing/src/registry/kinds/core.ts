/**
 * core/v1 kinds: Namespace (lifecycle fields of the namespace strategy), ConfigMap and Secret
 * (key validation, Secret `stringData`), Pod, Service, ServiceAccount. Events are in `events.ts`.
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
        const status = isObject(o['status']) ? o['status'] : {};
        status['phase'] ??= 'Pending';
        o['status'] = status;
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
  ];
}
