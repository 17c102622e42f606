/**
 * The built-in resources: Namespace, ConfigMap, Secret, Pod, Service, ServiceAccount, Event
 * (core/v1 and events.k8s.io/v1, one storage), Deployment, Lease and CustomResourceDefinition, with
 * the type rules the kube-wire transcripts show (unknown top-level fields dropped, ConfigMap key
 * validation, Deployment required fields, Lease MicroTime and create-on-update, Event checks).
 *
 * Does not: emulate every built-in default or validation rule of kube-apiserver (see README).
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { StatusCause } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { deepEqual, isObject, orderMeta } from '../store/object.js';
import { eventUpdateCauses, legacyEventCauses, strictEventCauses } from '../validation/events.js';
import type { ResourceType } from './types.js';

const ALL_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
] as const;

/** storageVersionHash: base64 of the first 8 bytes of sha256(`group/version/kind`). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256')
    .update(`${group}/${version}/${kind}`)
    .digest()
    .subarray(0, 8)
    .toString('base64');
}

/** Puts kind/apiVersion/metadata first, keeps the other fields in the given order. */
export function typedWireForm(
  o: KObj,
  apiVersion: string,
  kind: string,
  fieldOrder?: readonly string[],
): KObj {
  const out: KObj = { kind, apiVersion, metadata: orderMeta(o.metadata) };
  if (fieldOrder) {
    for (const f of fieldOrder) if (o[f] !== undefined) out[f] = o[f];
  } else {
    for (const [k, v] of Object.entries(o)) {
      if (k !== 'kind' && k !== 'apiVersion' && k !== 'metadata' && v !== undefined) out[k] = v;
    }
  }
  return out;
}

interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: readonly string[];
  hasStatus?: boolean;
  hasGeneration?: boolean;
  knownFields: readonly string[];
  storageKey?: string;
  nameRule?: 'subdomain' | 'label';
  allowCreateOnUpdate?: boolean;
  allowUnconditionalUpdate?: boolean;
  selectableFields?: readonly string[];
  fields?: (o: KObj) => Record<string, string>;
  decodeCheck?: (o: KObj) => string | undefined;
  defaults?: (o: KObj) => void;
  prepare?: (o: KObj, old: KObj | undefined) => void;
  validate?: (o: KObj, old?: KObj) => StatusCause[];
  fromStorage?: (o: KObj) => KObj;
  toStorage?: (o: KObj) => KObj;
  invalidKind?: { readonly group: string; readonly kind: string };
  subresources?: ResourceType['subresources'];
  metaValidation?: ResourceType['metaValidation'];
  statusKeeps?: ResourceType['statusKeeps'];
  etcdPrefix?: string;
  deleteMarksTimestampOnly?: boolean;
  generationChanged?: ResourceType['generationChanged'];
}

function builtin(s: BuiltinSpec): ResourceType {
  const apiVersion = s.group === '' ? s.version : `${s.group}/${s.version}`;
  const t: ResourceType = {
    group: s.group,
    version: s.version,
    apiVersion,
    resource: s.resource,
    singularName: '',
    kind: s.kind,
    listKind: `${s.kind}List`,
    namespaced: s.namespaced,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    verbs: s.verbs ?? ALL_VERBS,
    hasStatus: s.hasStatus ?? false,
    hasGeneration: s.hasGeneration ?? false,
    builtin: true,
    storageKey: s.storageKey ?? `${s.group}/${s.resource}`,
    nameRule: s.nameRule ?? 'subdomain',
    allowCreateOnUpdate: s.allowCreateOnUpdate ?? false,
    allowUnconditionalUpdate: s.allowUnconditionalUpdate ?? true,
    knownFields: s.knownFields,
    selectableFields: s.selectableFields ?? [],
    storageVersionHash: storageVersionHash(s.group, s.version, s.kind),
    fromStorage: s.fromStorage ?? ((o) => typedWireForm(o, apiVersion, s.kind, s.knownFields)),
    toStorage: s.toStorage ?? ((o) => typedWireForm(o, apiVersion, s.kind, s.knownFields)),
  };
  const opt: {
    -readonly [
      K in
        | 'decodeCheck'
        | 'defaults'
        | 'prepare'
        | 'validate'
        | 'fields'
        | 'invalidKind'
        | 'subresources'
        | 'metaValidation'
        | 'statusKeeps'
        | 'etcdPrefix'
        | 'deleteMarksTimestampOnly'
        | 'generationChanged'
    ]?: ResourceType[K];
  } = {};
  if (s.generationChanged) opt.generationChanged = s.generationChanged;
  if (s.deleteMarksTimestampOnly) opt.deleteMarksTimestampOnly = true;
  if (s.metaValidation) opt.metaValidation = s.metaValidation;
  if (s.statusKeeps) opt.statusKeeps = s.statusKeeps;
  if (s.etcdPrefix) opt.etcdPrefix = s.etcdPrefix;
  if (s.prepare) opt.prepare = s.prepare;
  if (s.subresources) opt.subresources = s.subresources;
  if (s.invalidKind) opt.invalidKind = s.invalidKind;
  if (s.decodeCheck) opt.decodeCheck = s.decodeCheck;
  if (s.defaults) opt.defaults = s.defaults;
  if (s.validate) opt.validate = s.validate;
  if (s.fields) opt.fields = s.fields;
  return { ...t, ...opt };
}

/** ValidateXUpdate calls ValidateObjectMetaUpdate and then the create validation (ValidateConfigMap, …). */
const UPDATE_AND_CREATE = { flavor: 'core', onUpdate: 'update+create' } as const;

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

function checkStringMap(o: KObj, field: string, kind: string): string | undefined {
  const m = o[field];
  if (m === undefined || m === null) return undefined;
  if (!isObject(m)) {
    return `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${goType(m)} into Go struct field ${kind}.${field} of type map[string]string`;
  }
  for (const v of Object.values(m)) {
    if (typeof v !== 'string') {
      return `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${goType(v)} into Go struct field ${kind}.${field} of type string`;
    }
  }
  return undefined;
}

function goType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function configKeyCauses(o: KObj, field: string): StatusCause[] {
  const m = o[field];
  if (!isObject(m)) return [];
  const causes: StatusCause[] = [];
  for (const k of Object.keys(m)) {
    if (!CONFIG_KEY.test(k) || k.length > 253) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${k}": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
        field: `${field}[${k}]`,
      });
    }
  }
  return causes;
}

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

function microTimeError(kind: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && MICRO_TIME.test(value)) return undefined;
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  const frac = /(\.\d*)?(Z|[+-]\d{2}:\d{2})$/.exec(s)?.[0] ?? s;
  return `${kind} in version "v1" cannot be handled as a ${kind}: parsing time "${s}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "${frac}" as ".000000"`;
}

function labelsOf(v: unknown): Record<string, string> | undefined {
  return isObject(v) ? (v as Record<string, string>) : undefined;
}

const OBJECT_REF_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

function orderRef(v: unknown): unknown {
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const k of OBJECT_REF_FIELDS) if (v[k] !== undefined) out[k] = v[k];
  return out;
}

const CORE_EVENT_FIELDS = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'series',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
] as const;

function coreEventForm(o: KObj): KObj {
  const out: KObj = { kind: 'Event', apiVersion: 'v1', metadata: orderMeta(o.metadata) };
  out['involvedObject'] = orderRef(o['involvedObject'] ?? {});
  if (o['reason'] !== undefined) out['reason'] = o['reason'];
  if (o['message'] !== undefined) out['message'] = o['message'];
  out['source'] = o['source'] ?? {};
  out['firstTimestamp'] = o['firstTimestamp'] ?? null;
  out['lastTimestamp'] = o['lastTimestamp'] ?? null;
  if (o['count'] !== undefined) out['count'] = o['count'];
  if (o['type'] !== undefined) out['type'] = o['type'];
  out['eventTime'] = o['eventTime'] ?? null;
  if (o['series'] !== undefined) out['series'] = o['series'];
  if (o['action'] !== undefined) out['action'] = o['action'];
  if (o['related'] !== undefined) out['related'] = orderRef(o['related']);
  out['reportingComponent'] = o['reportingComponent'] ?? '';
  out['reportingInstance'] = o['reportingInstance'] ?? '';
  return out;
}

function eventsV1Form(o: KObj): KObj {
  const out: KObj = { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: orderMeta(o.metadata) };
  out['eventTime'] = o['eventTime'] ?? null;
  if (o['series'] !== undefined) out['series'] = o['series'];
  if (o['reportingComponent']) out['reportingController'] = o['reportingComponent'];
  if (o['reportingInstance']) out['reportingInstance'] = o['reportingInstance'];
  if (o['action'] !== undefined) out['action'] = o['action'];
  if (o['reason'] !== undefined) out['reason'] = o['reason'];
  out['regarding'] = orderRef(o['involvedObject'] ?? {});
  if (o['related'] !== undefined) out['related'] = orderRef(o['related']);
  if (o['message'] !== undefined) out['note'] = o['message'];
  if (o['type'] !== undefined) out['type'] = o['type'];
  out['deprecatedSource'] = o['source'] ?? {};
  out['deprecatedFirstTimestamp'] = o['firstTimestamp'] ?? null;
  out['deprecatedLastTimestamp'] = o['lastTimestamp'] ?? null;
  if (o['count'] !== undefined) out['deprecatedCount'] = o['count'];
  return out;
}

function eventsV1ToCore(o: KObj): KObj {
  const core: KObj = { metadata: o.metadata };
  const map: Record<string, string> = {
    regarding: 'involvedObject',
    note: 'message',
    deprecatedSource: 'source',
    deprecatedFirstTimestamp: 'firstTimestamp',
    deprecatedLastTimestamp: 'lastTimestamp',
    deprecatedCount: 'count',
    reportingController: 'reportingComponent',
  };
  for (const [k, v] of Object.entries(o)) {
    if (k === 'kind' || k === 'apiVersion' || k === 'metadata') continue;
    core[map[k] ?? k] = v;
  }
  return coreEventForm(core);
}

const EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

function eventFields(o: KObj): Record<string, string> {
  const io = isObject(o['involvedObject']) ? o['involvedObject'] : {};
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const src = isObject(o['source']) ? o['source'] : {};
  return {
    'involvedObject.kind': str(io['kind']),
    'involvedObject.namespace': str(io['namespace']),
    'involvedObject.name': str(io['name']),
    'involvedObject.uid': str(io['uid']),
    'involvedObject.apiVersion': str(io['apiVersion']),
    'involvedObject.resourceVersion': str(io['resourceVersion']),
    'involvedObject.fieldPath': str(io['fieldPath']),
    reason: str(o['reason']),
    reportingComponent: str(o['reportingComponent']),
    source: str(src['component']),
    type: str(o['type']),
  };
}

function deploymentValidate(o: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = isObject(o['spec']) ? o['spec'] : {};
  const selector = isObject(spec['selector']) ? spec['selector'] : undefined;
  const template = isObject(spec['template']) ? spec['template'] : {};
  const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
  const tlabels = labelsOf(tmeta['labels']);
  const tspec = isObject(template['spec']) ? template['spec'] : {};
  if (!selector)
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  const matchLabels = selector ? (labelsOf(selector['matchLabels']) ?? {}) : {};
  const matches =
    selector !== undefined &&
    Object.keys(matchLabels).length + (Array.isArray(selector['matchExpressions']) ? 1 : 0) > 0 &&
    Object.entries(matchLabels).every(([k, v]) => tlabels?.[k] === v);
  if (!matches) {
    const shown = tlabels
      ? `map[string]string{${Object.entries(tlabels)
          .map(([k, v]) => `"${k}":"${v}"`)
          .join(', ')}}`
      : 'map[string]string(nil)';
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${shown}: \`selector\` does not match template \`labels\``,
      field: 'spec.template.metadata.labels',
    });
  }
  const containers = tspec['containers'];
  if (!Array.isArray(containers) || containers.length === 0) {
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.template.spec.containers',
    });
  }
  const replicas = spec['replicas'];
  if (typeof replicas === 'number' && replicas < 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${String(replicas)}: must be greater than or equal to 0`,
      field: 'spec.replicas',
    });
  }
  return causes;
}

function deploymentDefaults(o: KObj): void {
  const spec = isObject(o['spec']) ? o['spec'] : undefined;
  if (!spec) return;
  spec['replicas'] ??= 1;
  spec['revisionHistoryLimit'] ??= 10;
  spec['progressDeadlineSeconds'] ??= 600;
  spec['strategy'] ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
}

/** Creates the built-in resource types. */
export function builtinTypes(): ResourceType[] {
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
        checkStringMap(o, 'data', 'ConfigMap') ?? checkStringMap(o, 'binaryData', 'ConfigMap'),
      validate: (o) => [...configKeyCauses(o, 'data'), ...configKeyCauses(o, 'binaryData')],
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
      decodeCheck: (o) => checkStringMap(o, 'data', 'Secret') ?? checkStringMap(o, 'stringData', 'Secret'),
      defaults: (o) => {
        const sd = o['stringData'];
        if (isObject(sd)) {
          const data = isObject(o['data']) ? o['data'] : {};
          for (const [k, v] of Object.entries(sd)) data[k] = Buffer.from(String(v)).toString('base64');
          o['data'] = data;
        }
        delete o['stringData'];
        o['type'] ??= 'Opaque';
      },
      validate: (o) => {
        const causes = configKeyCauses(o, 'data');
        const data = o['data'];
        if (isObject(data)) {
          for (const [k, v] of Object.entries(data)) {
            if (typeof v === 'string' && !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) {
              causes.push({
                reason: 'FieldValueInvalid',
                message: 'Invalid value: illegal base64 data',
                field: `data[${k}]`,
              });
            }
          }
        }
        return causes;
      },
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
      },
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
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      // events.go skips ObjectMeta for the v1 API: only rest.BeforeCreate/BeforeUpdate's generic checks run
      metaValidation: { flavor: 'none', onUpdate: 'none' },
      knownFields: CORE_EVENT_FIELDS,
      storageKey: 'events',
      selectableFields: EVENT_FIELDS,
      fields: eventFields,
      fromStorage: coreEventForm,
      toStorage: coreEventForm,
      decodeCheck: (o) => microTimeError('Event', o['eventTime']),
      // events.go legacyValidateEvent: the only rules the core/v1 API applies
      validate: (o) => legacyEventCauses(o),
    }),
    builtin({
      group: 'events.k8s.io',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      knownFields: [
        'eventTime',
        'series',
        'reportingController',
        'reportingInstance',
        'action',
        'reason',
        'regarding',
        'related',
        'note',
        'type',
        'deprecatedSource',
        'deprecatedFirstTimestamp',
        'deprecatedLastTimestamp',
        'deprecatedCount',
      ],
      storageKey: 'events',
      invalidKind: { group: '', kind: 'Event' },
      fromStorage: eventsV1Form,
      toStorage: eventsV1ToCore,
      selectableFields: EVENT_FIELDS,
      fields: eventFields,
      decodeCheck: (o) => microTimeError('Event', o['eventTime']),
      // events.go: the legacy rules, then the strict ones on create or the immutable fields on
      // update, on the core form the Event is stored in
      validate: (o, old) => {
        const core = eventsV1ToCore(o);
        const causes = legacyEventCauses(core);
        causes.push(...(old ? eventUpdateCauses(core, eventsV1ToCore(old)) : strictEventCauses(core)));
        return causes;
      },
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      statusKeeps: ['labels'],
      // annotations are copied to the ReplicaSets, so they bump the generation like the spec
      generationChanged: (next, old) =>
        !deepEqual(next['spec'], old['spec']) ||
        !deepEqual(next.metadata.annotations, old.metadata.annotations),
      namespaced: true,
      shortNames: ['deploy'],
      categories: ['all'],
      hasStatus: true,
      subresources: [
        {
          name: 'scale',
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get', 'patch', 'update'],
        },
      ],
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: deploymentDefaults,
      validate: deploymentValidate,
    }),
    builtin({
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      kind: 'Lease',
      metaValidation: { flavor: 'generic', onUpdate: 'update' },
      namespaced: true,
      knownFields: ['spec'],
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: false,
      decodeCheck: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        return microTimeError('Lease', spec['acquireTime']) ?? microTimeError('Lease', spec['renewTime']);
      },
      validate: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        const causes: StatusCause[] = [];
        for (const f of ['leaseDurationSeconds', 'leaseTransitions'] as const) {
          const v = spec[f];
          if (typeof v === 'number' && (f === 'leaseDurationSeconds' ? v <= 0 : v < 0)) {
            causes.push({
              reason: 'FieldValueInvalid',
              message: `Invalid value: ${String(v)}: must be greater than ${f === 'leaseDurationSeconds' ? '0' : 'or equal to 0'}`,
              field: `spec.${f}`,
            });
          }
        }
        return causes;
      },
    }),
    builtin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      resource: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      metaValidation: { flavor: 'generic', onUpdate: 'update' },
      etcdPrefix: '/registry/apiextensions.k8s.io/customresourcedefinitions',
      deleteMarksTimestampOnly: true,
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      hasStatus: true,
      hasGeneration: true,
      knownFields: ['spec', 'status'],
    }),
  ];
}

/** Go `map[string]string` fields (with `omitempty`) of the emulated built-in types, by name. */
const GO_MAPS = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'matchLabels',
  'nodeSelector',
]);

/** `[]T` fields with `omitempty` of ObjectMeta and the emulated built-in types, by name. */
const GO_OMITEMPTY_LISTS = new Set([
  'finalizers',
  'ownerReferences',
  'managedFields',
  'matchExpressions',
  'imagePullSecrets',
  'secrets',
  'tolerations',
  'volumes',
  'initContainers',
  'env',
  'envFrom',
  'volumeMounts',
  'args',
  'command',
]);

/**
 * Go's `omitempty` on a built-in object: empty maps (`labels: {}`, `data: {}`) and empty
 * `omitempty` lists (`finalizers: []`) are never serialised by kube-apiserver, so they are dropped
 * before storing (mutates `o`). Structs stay even when empty (`status.loadBalancer: {}`, Event
 * `source: {}`): Go's `omitempty` does not omit structs. Custom resources are untouched.
 *
 * @param kind the object's Kind (Service `spec.selector` is a map; Deployment's is a struct).
 */
export function omitEmptyBuiltin(o: Json, kind: string): void {
  const visit = (v: unknown, path: readonly string[]): void => {
    if (Array.isArray(v)) {
      for (const item of v) visit(item, path);
      return;
    }
    if (!isObject(v)) return;
    for (const [k, child] of Object.entries(v)) {
      const isMap =
        GO_MAPS.has(k) || (kind === 'Service' && k === 'selector' && path.length === 1 && path[0] === 'spec');
      if (isMap && isObject(child) && Object.keys(child).length === 0) delete v[k];
      else if (GO_OMITEMPTY_LISTS.has(k) && Array.isArray(child) && child.length === 0) delete v[k];
      else if (child === null && (isMap || GO_OMITEMPTY_LISTS.has(k))) delete v[k];
      else visit(child, [...path, k]);
    }
  };
  visit(o, []);
}
