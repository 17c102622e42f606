/**
 * The factory of built-in resource types ({@link builtin}) and the checks several built-in kinds
 * share: Go decoding errors for `map[string]string` fields, config keys, MicroTime values.
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { StatusCause } from '../../status.js';
import type { KObj } from '../../store/object.js';
import { isObject, orderMeta } from '../../store/object.js';
import type { NameRule } from '../../validation/names.js';
import type { ResourceType } from '../types.js';

export const ALL_VERBS = [
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

/** What a built-in kind declares; everything else has the common default. */
export interface BuiltinSpec {
  group: string;
  version: string;
  /** The storage version when it is not `version` (its `storageVersionHash`). */
  storageVersion?: string;
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
  nameRule?: NameRule;
  allowCreateOnUpdate?: boolean;
  allowUnconditionalUpdate?: boolean;
  selectableFields?: readonly string[];
  fields?: (o: KObj) => Record<string, string>;
  decodeCheck?: (o: KObj) => string | undefined;
  defaults?: (o: KObj) => void;
  prepare?: (o: KObj, old: KObj | undefined) => void;
  generationChanged?: (next: KObj, old: KObj) => boolean;
  validate?: (o: KObj) => StatusCause[];
  fromStorage?: (o: KObj) => KObj;
  toStorage?: (o: KObj) => KObj;
  invalidKind?: { readonly group: string; readonly kind: string };
  subresources?: ResourceType['subresources'];
}

/** A built-in {@link ResourceType} from its spec. */
export function builtin(s: BuiltinSpec): ResourceType {
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
    storageVersionHash: storageVersionHash(s.group, s.storageVersion ?? s.version, s.kind),
    fromStorage: s.fromStorage ?? ((o) => typedWireForm(o, apiVersion, s.kind, s.knownFields)),
    toStorage: s.toStorage ?? ((o) => typedWireForm(o, apiVersion, s.kind, s.knownFields)),
  };
  const opt: {
    -readonly [
      K in
        | 'decodeCheck'
        | 'defaults'
        | 'prepare'
        | 'generationChanged'
        | 'validate'
        | 'fields'
        | 'invalidKind'
        | 'subresources'
    ]?: ResourceType[K];
  } = {};
  if (s.prepare) opt.prepare = s.prepare;
  if (s.generationChanged) opt.generationChanged = s.generationChanged;
  if (s.subresources) opt.subresources = s.subresources;
  if (s.invalidKind) opt.invalidKind = s.invalidKind;
  if (s.decodeCheck) opt.decodeCheck = s.decodeCheck;
  if (s.defaults) opt.defaults = s.defaults;
  if (s.validate) opt.validate = s.validate;
  if (s.fields) opt.fields = s.fields;
  return { ...t, ...opt };
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

export function checkStringMap(o: KObj, field: string, kind: string): string | undefined {
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

export function goType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

export function configKeyCauses(o: KObj, field: string): StatusCause[] {
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

export function microTimeError(kind: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && MICRO_TIME.test(value)) return undefined;
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  const frac = /(\.\d*)?(Z|[+-]\d{2}:\d{2})$/.exec(s)?.[0] ?? s;
  return `${kind} in version "v1" cannot be handled as a ${kind}: parsing time "${s}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "${frac}" as ".000000"`;
}

export function labelsOf(v: unknown): Record<string, string> | undefined {
  return isObject(v) ? (v as Record<string, string>) : undefined;
}
