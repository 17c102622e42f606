/**
 * Plain-JSON object helpers shared by the store, the handlers and the controllers.
 *
 * @module
 */

/**
 * Any JSON object.
 *
 * ## Example
 * ```ts
 * const spec: Json = { replicas: 2, template: { metadata: { labels: { app: 'web' } } } };
 * ```
 */
export type Json = Record<string, unknown>;

/**
 * `metadata` as the server handles it.
 *
 * ## Example
 * ```ts
 * const meta: Meta | undefined = server.object('configmaps', 'default', 'settings')?.metadata;
 * console.log(meta?.resourceVersion, meta?.labels);
 * ```
 */
export interface Meta {
  name?: string | undefined;
  generateName?: string | undefined;
  namespace?: string | undefined;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
  generation?: number | undefined;
  creationTimestamp?: string | null | undefined;
  deletionTimestamp?: string | undefined;
  deletionGracePeriodSeconds?: number | undefined;
  labels?: Record<string, string> | undefined;
  annotations?: Record<string, string> | undefined;
  ownerReferences?: OwnerRef[] | undefined;
  finalizers?: string[] | undefined;
  managedFields?: unknown[] | undefined;
  [k: string]: unknown;
}

/**
 * An entry of `metadata.ownerReferences`.
 *
 * ## Example
 * ```ts
 * const uid = 'c0ffee00-0000-4000-8000-000000000001';
 * const owner: OwnerRef = { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid, controller: true };
 * ```
 */
export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * A stored Kubernetes object.
 *
 * ## Example
 * ```ts
 * const cm: KObj | undefined = await cluster.get('configmaps', 'default', 'settings');
 * expect(cm?.['data']).toEqual({ color: 'blue' });
 * ```
 */
export interface KObj extends Json {
  metadata: Meta;
}

/** True for a non-null, non-array object. */
export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object's metadata (an empty object when missing). */
export function metaOf(o: Json): Meta {
  const m = o['metadata'];
  return isObject(m) ? m : {};
}

/** Deep copy of JSON data. */
export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Json;
  const bo = b as Json;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}

/** Recursively sorts object keys (how Go marshals unstructured objects, i.e. custom resources). */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
  return out;
}

const META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
] as const;

/** Orders metadata keys like ObjectMeta's Go struct (built-in types). Unknown keys are dropped. */
export function orderMeta(m: Meta): Meta {
  const out: Meta = {};
  for (const k of META_ORDER) {
    const v: unknown = m[k];
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

const MANAGED_FIELDS_ORDER = [
  'manager',
  'operation',
  'apiVersion',
  'time',
  'fieldsType',
  'fieldsV1',
  'subresource',
];
const OWNER_REF_ORDER = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'];

function orderKeys(v: unknown, order: readonly string[]): unknown {
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const k of order) if (v[k] !== undefined) out[k] = v[k];
  return out;
}

/**
 * Metadata as a typed `ObjectMeta` serialises it (PartialObjectMetadata, Table rows): struct key
 * order, managedFields entries and ownerReferences in their struct order too (custom resources
 * store them with sorted keys).
 */
export function typedObjectMeta(m: Meta): Meta {
  const out = orderMeta(m);
  if (Array.isArray(out.managedFields))
    out.managedFields = out.managedFields.map((e) => orderKeys(e, MANAGED_FIELDS_ORDER));
  if (Array.isArray(out.ownerReferences))
    out.ownerReferences = out.ownerReferences.map((r) => orderKeys(r, OWNER_REF_ORDER)) as never;
  return out;
}

/** RFC 3339 seconds, `Z` (creationTimestamp, deletionTimestamp, managedFields time). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Reads a dotted path (`spec.nodeName`) as a string ('' when missing). */
export function pathString(o: Json, path: string): string {
  let cur: unknown = o;
  for (const p of path.split('.')) {
    if (!isObject(cur)) return '';
    cur = cur[p];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
}
