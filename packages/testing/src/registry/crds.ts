/**
 * CustomResourceDefinitions: validation of CRDs (422 with causes), the CRD controller that serves
 * custom resources (namespaced or cluster-scoped, several versions with one storage version,
 * `served` flags, `status` subresource), sets `NamesAccepted`/`Established` in CRD status after a
 * short asynchronous step (file 12), updates discovery, and removes the CRs when the CRD is deleted.
 *
 * Does not: run conversion webhooks here (versions convert by rewriting apiVersion; a CRD with a
 * conversion webhook is converted at the HTTP layer, `admission/conversion.ts`),
 * serve `scale`, or validate `additionalPrinterColumns`.
 *
 * @module
 */
import { celCrdCauses } from '../cel-validation.js';
import type { Engine } from '../handlers/engine.js';
import type { StatusCause } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { clone, deepEqual, isObject } from '../store/object.js';
import type { StoreEvent } from '../store/store.js';
import { storageVersionHash } from './builtins.js';
import type { Registry } from './registry.js';
import type { JSONSchema, ResourceType } from './types.js';

const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
const CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: JSONSchema;
  status: boolean;
  printerColumns: NonNullable<ResourceType['printerColumns']>;
}

interface CrdSpec {
  group: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  versions: CrdVersion[];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function readSpec(o: KObj): CrdSpec {
  const spec = isObject(o['spec']) ? o['spec'] : {};
  const names = isObject(spec['names']) ? spec['names'] : {};
  const versions = Array.isArray(spec['versions']) ? spec['versions'] : [];
  const kind = str(names['kind']);
  return {
    group: str(spec['group']),
    plural: str(names['plural']),
    singular: str(names['singular']) || kind.toLowerCase(),
    kind,
    listKind: str(names['listKind']) || `${kind}List`,
    shortNames: Array.isArray(names['shortNames'])
      ? names['shortNames'].filter((s): s is string => typeof s === 'string')
      : [],
    categories: Array.isArray(names['categories'])
      ? names['categories'].filter((s): s is string => typeof s === 'string')
      : [],
    namespaced: spec['scope'] === 'Namespaced',
    versions: versions.filter(isObject).map((v) => {
      const schema =
        isObject(v['schema']) && isObject(v['schema']['openAPIV3Schema'])
          ? v['schema']['openAPIV3Schema']
          : undefined;
      const sub = isObject(v['subresources']) ? v['subresources'] : {};
      const out: CrdVersion = {
        name: str(v['name']),
        served: v['served'] === true,
        storage: v['storage'] === true,
        status: isObject(sub['status']),
        printerColumns: (Array.isArray(v['additionalPrinterColumns']) ? v['additionalPrinterColumns'] : [])
          .filter(isObject)
          .map((c) => ({
            name: str(c['name']),
            type: str(c['type']),
            jsonPath: str(c['jsonPath']),
            ...(typeof c['format'] === 'string' ? { format: c['format'] } : {}),
            ...(typeof c['description'] === 'string' ? { description: c['description'] } : {}),
            ...(typeof c['priority'] === 'number' ? { priority: c['priority'] } : {}),
          })),
      };
      if (schema) out.schema = schema;
      return out;
    }),
  };
}

/** Validates a CRD like the apiextensions strategy (the common rules). */
export function validateCrd(o: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  const req = (field: string, detail = ''): void => {
    causes.push({
      reason: 'FieldValueRequired',
      message: detail ? `Required value: ${detail}` : 'Required value',
      field,
    });
  };
  const inv = (field: string, value: unknown, detail: string): void => {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
      field,
    });
  };
  const spec = isObject(o['spec']) ? o['spec'] : {};
  const s = readSpec(o);
  const name = o.metadata.name ?? '';
  if (s.plural && s.group && name !== `${s.plural}.${s.group}`) {
    inv('metadata.name', name, 'must be spec.names.plural+"."+spec.group');
  }
  if (!s.group) req('spec.group');
  else if (!DNS_SUBDOMAIN.test(s.group) || !s.group.includes('.'))
    inv('spec.group', s.group, 'should be a domain with at least one dot');
  const scope = spec['scope'];
  if (scope === undefined || scope === '') req('spec.scope');
  else if (scope !== 'Namespaced' && scope !== 'Cluster') {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(scope)}: supported values: "Cluster", "Namespaced"`,
      field: 'spec.scope',
    });
  }
  if (!s.plural) req('spec.names.plural');
  else if (!DNS_LABEL.test(s.plural))
    inv(
      'spec.names.plural',
      s.plural,
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
    );
  if (!s.kind) req('spec.names.kind');
  if (!isObject(spec['names'])) req('spec.names');
  if (s.versions.length === 0)
    req('spec.versions', 'must have exactly one version marked as storage version');
  else {
    const storage = s.versions.filter((v) => v.storage).length;
    if (storage !== 1)
      inv(
        'spec.versions',
        spec['versions'] === undefined ? null : 'versions',
        'must have exactly one version marked as storage version',
      );
    if (!s.versions.some((v) => v.served))
      inv('spec.versions', 'versions', 'must have at least one version marked as served');
    s.versions.forEach((v, i) => {
      if (!v.name) req(`spec.versions[${String(i)}].name`);
      else if (!DNS_LABEL.test(v.name))
        inv(
          `spec.versions[${String(i)}].name`,
          v.name,
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-'",
        );
      if (!v.schema) req(`spec.versions[${String(i)}].schema.openAPIV3Schema`, 'schemas are required');
      else if (v.schema['type'] !== 'object') {
        causes.push({
          reason: 'FieldValueRequired',
          message: 'Required value: must be object at the root',
          field: `spec.versions[${String(i)}].schema.openAPIV3Schema.type`,
        });
      }
    });
  }
  causes.push(...celCrdCauses(o));
  return causes;
}

/** Builds the served type of one CRD version. */
export function crdResourceType(crdName: string, s: CrdSpec, v: CrdVersion): ResourceType {
  const apiVersion = `${s.group}/${v.name}`;
  const storage = s.versions.find((x) => x.storage)?.name ?? v.name;
  const storageApiVersion = `${s.group}/${storage}`;
  const t: ResourceType = {
    group: s.group,
    version: v.name,
    apiVersion,
    resource: s.plural,
    singularName: s.singular,
    kind: s.kind,
    listKind: s.listKind,
    namespaced: s.namespaced,
    shortNames: s.shortNames,
    categories: s.categories,
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    hasStatus: v.status,
    hasGeneration: true,
    builtin: false,
    storageKey: `${s.group}/${s.plural}`,
    etcdPrefix: `/registry/${s.group}/${s.plural}`,
    metaValidation: { flavor: 'generic', onUpdate: 'update' },
    nameRule: 'subdomain',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    selectableFields: [],
    storageVersionHash: storageVersionHash(s.group, storage, s.kind),
    preserveUnknownFields: v.schema?.['x-kubernetes-preserve-unknown-fields'] === true,
    crd: crdName,
    printerColumns: v.printerColumns,
    fromStorage: (o) => ({ ...o, apiVersion, kind: s.kind }),
    toStorage: (o) => ({ ...o, apiVersion: storageApiVersion, kind: s.kind }),
  };
  return v.schema ? { ...t, schema: v.schema } : t;
}

/** Whether a CRD update replaces its serving storage: spec or accepted names changed (crdHandler). */
function storageChanged(prev: KObj, next: KObj): boolean {
  const names = (o: KObj): unknown => (isObject(o['status']) ? o['status']['acceptedNames'] : undefined);
  return !deepEqual(prev['spec'], next['spec']) || !deepEqual(names(prev), names(next));
}

/** Serves custom resources from CRDs and maintains CRD status. */
export class CrdController {
  /**
   * Called when a CRD's custom resource storage is torn down: the CRD is gone, or its spec or
   * accepted names changed (apiextensions' crdHandler removes the storage, which ends open watches).
   */
  onStorageReplaced: ((crdName: string) => void) | undefined;
  private readonly served = new Map<string, ResourceType[]>();
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly engine: Engine,
    private readonly registry: Registry,
    private readonly log: (msg: string, err: unknown) => void,
  ) {
    const crdType = registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (crdType) {
      registry.add({
        ...crdType,
        validate: validateCrd,
        // decode-time default: owned by the writer (file 12)
        defaults: (o) => {
          const spec = isObject(o['spec']) ? o['spec'] : {};
          spec['conversion'] ??= { strategy: 'None' };
        },
        // strategy PrepareForCreate: the initial status is the server's, not the writer's
        prepare: (o, old) => {
          if (old === undefined && o['status'] === undefined) {
            const s = readSpec(o);
            o['status'] = {
              conditions: null,
              acceptedNames: { plural: '', kind: '' },
              storedVersions: s.versions.filter((v) => v.storage).map((v) => v.name),
            };
          }
        },
      });
    }
    const prev = engine.hooks;
    engine.hooks = {
      ...prev,
      deleteFinalizers: (type, obj) => [
        ...(prev.deleteFinalizers?.(type, obj) ?? []),
        ...(type.storageKey === CRD_KEY ? [CLEANUP] : []),
      ],
      onMarkDeleting: (type, obj) => {
        prev.onMarkDeleting?.(type, obj);
        // the CRD registry's Delete sets this condition before the finalizer controller runs
        if (type.storageKey === CRD_KEY)
          setCondition(obj, {
            type: 'Terminating',
            status: 'True',
            reason: 'InstanceDeletionPending',
            message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
            now: engine.nowIso(),
          });
      },
      onRemoved: (type, last) => {
        prev.onRemoved?.(type, last);
        // a custom resource of a terminating CRD went away: check whether the CRD can be finalized
        const crdName = type.crd;
        if (crdName !== undefined && engine.store.get(CRD_KEY, crdName)?.metadata.deletionTimestamp)
          this.later(() => this.cleanup(crdName));
      },
      validate: (type, obj, old) => {
        const causes = prev.validate?.(type, obj, old) ?? [];
        if (type.storageKey === CRD_KEY && old) {
          const a = readSpec(old);
          const b = readSpec(obj);
          if (a.group !== b.group)
            causes.push({
              reason: 'FieldValueInvalid',
              message: `Invalid value: ${JSON.stringify(b.group)}: field is immutable`,
              field: 'spec.group',
            });
        }
        return causes;
      },
    };
    this.unsubscribe = engine.store.subscribe(CRD_KEY, (e) => this.onEvent(e));
  }

  /** Stops the controller. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  private later(fn: () => void): void {
    setImmediate(() => {
      if (this.stopped) return;
      try {
        fn();
      } catch (e) {
        this.log('CRD controller pass failed', e);
      }
    });
  }

  private onEvent(e: StoreEvent): void {
    const name = e.object.metadata.name ?? '';
    if (e.type === 'DELETED') {
      this.unserve(name);
      this.onStorageReplaced?.(name);
      return;
    }
    if (e.prev && storageChanged(e.prev, e.object)) this.onStorageReplaced?.(name);
    if (e.object.metadata.deletionTimestamp) {
      this.later(() => this.cleanup(name));
      return;
    }
    const spec = readSpec(e.object);
    const prevSpec = e.prev ? readSpec(e.prev) : undefined;
    if (!prevSpec || JSON.stringify(prevSpec) !== JSON.stringify(spec))
      this.later(() => this.establish(name));
  }

  private unserve(name: string): void {
    for (const t of this.served.get(name) ?? []) this.registry.remove(t.group, t.version, t.resource);
    this.served.delete(name);
  }

  private establish(name: string): void {
    const store = this.engine.store;
    const crd = store.get(CRD_KEY, name);
    if (!crd || crd.metadata.deletionTimestamp) return;
    const s = readSpec(crd);
    // names conflict with another CRD of the same group? As apiextensions-apiserver's naming
    // controller (pkg/controller/status/naming_controller.go): plural, singular, short names, kind,
    // list kind, in this order, each against the names the group's other CRDs use; the last
    // conflict found is the one reported.
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const key of store.sortedKeys(CRD_KEY)) {
      if (key === name) continue;
      const other = store.get(CRD_KEY, key);
      if (!other) continue;
      const o = readSpec(other);
      if (o.group !== s.group) continue;
      for (const r of [o.plural, o.singular, ...o.shortNames]) resources.add(r);
      kinds.add(o.kind).add(o.listKind);
    }
    let conflict: { reason: string; message: string } | undefined;
    const check = (requested: string, used: Set<string>, reason: string): void => {
      if (requested !== '' && used.has(requested))
        conflict = { reason, message: `"${requested}" is already in use` };
    };
    check(s.plural, resources, 'PluralConflict');
    check(s.singular, resources, 'SingularConflict');
    for (const short of s.shortNames) check(short, resources, 'ShortNamesConflict');
    check(s.kind, kinds, 'KindConflict');
    check(s.listKind, kinds, 'ListKindConflict');
    const now = this.engine.nowIso();
    const next = clone(crd);
    const status: Json = isObject(next['status']) ? next['status'] : {};
    if (conflict) {
      status['conditions'] = [
        {
          type: 'NamesAccepted',
          status: 'False',
          lastTransitionTime: now,
          reason: conflict.reason,
          message: conflict.message,
        },
        {
          type: 'Established',
          status: 'False',
          lastTransitionTime: now,
          reason: 'NotAccepted',
          message: 'not all names are accepted',
        },
      ];
    } else {
      this.unserve(name);
      const types = s.versions.filter((v) => v.served).map((v) => crdResourceType(name, s, v));
      for (const t of types) this.registry.add(t);
      this.served.set(name, types);
      const accepted: Json = { plural: s.plural, singular: s.singular };
      if (s.shortNames.length > 0) accepted['shortNames'] = s.shortNames;
      accepted['kind'] = s.kind;
      accepted['listKind'] = s.listKind;
      if (s.categories.length > 0) accepted['categories'] = s.categories;
      status['conditions'] = [
        {
          type: 'NamesAccepted',
          status: 'True',
          lastTransitionTime: now,
          reason: 'NoConflicts',
          message: 'no conflicts found',
        },
        {
          type: 'Established',
          status: 'True',
          lastTransitionTime: now,
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
        },
      ];
      status['acceptedNames'] = accepted;
      const stored = new Set(
        Array.isArray(status['storedVersions']) ? (status['storedVersions'] as string[]) : [],
      );
      for (const v of s.versions) if (v.storage) stored.add(v.name);
      status['storedVersions'] = [...stored];
    }
    next['status'] = status;
    const strip = (x: unknown): string =>
      JSON.stringify(x, (k, v: unknown) => (k === 'lastTransitionTime' ? undefined : v));
    const crdType = this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (strip(next['status']) !== strip(crd['status']) && crdType)
      this.engine.controllerUpdate(crdType, name, next, 'kube-apiserver', 'status');
  }

  /**
   * The CRD finalizer controller: deletes every custom resource (honouring their finalizers), keeps
   * `Terminating` True while some remain, then sets it False and removes the cleanup finalizer.
   */
  private cleanup(name: string): void {
    const store = this.engine.store;
    const crd = store.get(CRD_KEY, name);
    const crdType = this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    if (!crd?.metadata.deletionTimestamp || !crdType) return;
    if (!(crd.metadata.finalizers ?? []).includes(CLEANUP)) return;
    const s = readSpec(crd);
    const storageKey = `${s.group}/${s.plural}`;
    const type = this.served.get(name)?.[0] ?? this.registry.typesOfStorage(storageKey)[0];
    let remaining = 0;
    if (type) {
      for (const k of [...store.sortedKeys(storageKey)]) {
        const o = store.get(storageKey, k);
        if (!o) continue;
        remaining++;
        if (o.metadata.deletionTimestamp) continue;
        const r = this.engine.delete(
          type,
          o.metadata.namespace,
          o.metadata.name ?? '',
          { propagationPolicy: 'Background' },
          true,
        );
        if (r.gone) remaining--;
      }
    }
    const next = clone(crd);
    setCondition(
      next,
      remaining > 0
        ? {
            type: 'Terminating',
            status: 'True',
            reason: 'InstanceDeletionInProgress',
            message: 'CustomResource deletion is in progress',
            now: this.engine.nowIso(),
          }
        : {
            type: 'Terminating',
            status: 'False',
            reason: 'InstanceDeletionCompleted',
            message: 'removed all instances',
            now: this.engine.nowIso(),
          },
    );
    if (JSON.stringify(next['status']) !== JSON.stringify(crd['status']))
      this.engine.controllerUpdate(crdType, name, next, 'kube-apiserver', 'status');
    if (remaining > 0) return;
    this.unserve(name);
    this.engine.removeFinalizer(crdType, name, CLEANUP, 'kube-apiserver');
  }
}

/** Sets (or replaces, keeping lastTransitionTime when the status is unchanged) a CRD condition. */
function setCondition(
  crd: KObj,
  c: { type: string; status: string; reason: string; message: string; now: string },
): void {
  const status: Json = isObject(crd['status']) ? crd['status'] : {};
  const conditions = Array.isArray(status['conditions']) ? [...(status['conditions'] as Json[])] : [];
  const i = conditions.findIndex((x) => isObject(x) && x['type'] === c.type);
  const old = i >= 0 ? conditions[i] : undefined;
  const entry: Json = {
    type: c.type,
    status: c.status,
    lastTransitionTime: old && old['status'] === c.status ? old['lastTransitionTime'] : c.now,
    reason: c.reason,
    message: c.message,
  };
  if (i >= 0) conditions[i] = entry;
  else conditions.push(entry);
  status['conditions'] = conditions;
  crd['status'] = status;
}
