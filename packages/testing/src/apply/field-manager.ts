/**
 * Server-side apply and `metadata.managedFields` bookkeeping, after structured-merge-diff as used
 * by kube-apiserver v1.24 (`application/apply-patch+yaml`, `fieldManager`, `force`).
 *
 * What it does: computes the merged object of an apply, the owners of every field (`FieldsV1`),
 * conflicts between managers, removal of fields a manager stopped applying, and the ownership
 * changes of ordinary writes (operation `Update`). What it does not: parse YAML, check
 * preconditions or `resourceVersion`, validate the result, reset `status` on the main resource
 * (the server does these).
 *
 * Types: built-in kinds use the merge keys of their Go types (see `strategicListStrategy`),
 * custom resources the `x-kubernetes-list-type`/`-list-map-keys`/`-map-type` of the schema passed
 * in `opts.schema`; unknown shapes are deduced (maps granular, lists atomic).
 *
 * @module
 */
import type { JSONSchemaProps } from '../validation/schema.js';
import { FieldSet, pathToString, type PathElement } from './field-set.js';
import { clone, deepEqual, isObject, type JsonObject } from './json-value.js';
import { typeOf, type ListType, type TypeNode } from './type-info.js';

/**
 * One entry of `metadata.managedFields`: which manager owns which fields (`FieldsV1`), by which
 * operation, through which subresource.
 *
 * ## Example
 * ```ts
 * const entry: ManagedFieldsEntry = {
 *   manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-11-22T06:22:59Z',
 *   fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
 * };
 * ```
 */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/**
 * One conflicting field of an apply: who owns it and its path (`.data.key`).
 *
 * ## Example
 * ```ts
 * const c: ApplyConflict = { manager: 'a', managerDescription: '"a"', field: '.data.key' };
 * ```
 */
export interface ApplyConflict {
  /** The owning manager's name (`a`). */
  manager: string;
  /** How the apiserver names that manager in messages: `"a"`, `"c" using v1`, `"s" with subresource "status"`. */
  managerDescription: string;
  /** The field path as SMD prints it: `.data.key`, `.spec.containers[name="c"].image`. */
  field: string;
}

/**
 * An apply that would take fields other managers own, without `force=true`.
 *
 * `message` is the apiserver's (`Apply failed with 1 conflict: conflict with "a": .data.key`);
 * `causes` are the Status causes (`{reason: 'FieldManagerConflict', message: 'conflict with "a"',
 * field: '.data.key'}`). The server answers `409 Conflict` with both. Retry with `force=true` to
 * take ownership, or stop applying those fields.
 *
 * ## Example
 * ```ts
 * try {
 *   serverSideApply(live, config, { manager: 'b', force: false, apiVersion: 'v1', now });
 * } catch (e) {
 *   if (e instanceof ApplyConflictError) console.log(e.message, e.causes); // answered as 409 Conflict
 * }
 * ```
 */
export class ApplyConflictError extends Error {
  readonly _tag = 'ApplyConflictError';
  constructor(readonly conflicts: ApplyConflict[]) {
    super(conflictMessage(conflicts));
    this.name = 'ApplyConflictError';
  }

  /** The `details.causes` of the 409 Status. */
  get causes(): { reason: string; message: string; field: string }[] {
    return this.conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${c.managerDescription}`,
      field: c.field,
    }));
  }
}

function conflictMessage(conflicts: ApplyConflict[]): string {
  const [first] = conflicts;
  if (conflicts.length === 1 && first !== undefined) {
    return `Apply failed with 1 conflict: conflict with ${first.managerDescription}: ${first.field}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts)
    byManager.set(c.managerDescription, [...(byManager.get(c.managerDescription) ?? []), c.field]);
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${manager}:`);
    for (const field of byManager.get(manager) ?? []) lines.push(`- ${field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/**
 * Options of {@link serverSideApply}.
 *
 * ## Example
 * ```ts
 * const opts: ApplyOptions = { manager: 'my-operator', force: true, apiVersion: 'v1', now: '2026-11-22T06:23:31Z' };
 * ```
 */
export interface ApplyOptions {
  /** The `fieldManager` query parameter (required for apply). */
  manager: string;
  /** The `force` query parameter: take ownership of conflicting fields instead of failing. */
  force: boolean;
  /** The apiVersion of the request (recorded in the managedFields entry). */
  apiVersion: string;
  /** The time of the write, RFC 3339 seconds (`2026-11-22T06:23:31Z`). */
  now: string;
  /** `status` for an apply to the `/status` subresource: only `status` is applied and owned. */
  subresource?: string;
  /** Top-level fields the endpoint ignores (e.g. `['status']` on a main resource with a status subresource). */
  ignoredFields?: readonly string[];
  /** The CRD version's `openAPIV3Schema`, for custom resources (list types and map types). */
  schema?: JSONSchemaProps;
}

/**
 * Options of {@link recordUpdate}.
 *
 * ## Example
 * ```ts
 * const opts: UpdateOptions = { manager: 'kube-controller-manager', apiVersion: 'v1', now, subresource: 'status' };
 * ```
 */
export interface UpdateOptions {
  /** The `fieldManager` query parameter, or the User-Agent's first word. */
  manager: string;
  /** The apiVersion of the request. */
  apiVersion: string;
  /** The time of the write, RFC 3339 seconds. */
  now: string;
  /** The subresource written (`status`), if any. */
  subresource?: string;
  /** The CRD version's `openAPIV3Schema`, for custom resources. */
  schema?: JSONSchemaProps;
}

/** Metadata the server owns: never part of an applied config nor of any field set. */
const SERVER_METADATA = [
  'managedFields',
  'resourceVersion',
  'uid',
  'creationTimestamp',
  'generation',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/** `stripMetaManager`: paths removed from every field set (non-recursively). */
const STRIPPED = (() => {
  const set = new FieldSet();
  for (const p of [
    ['f:apiVersion'],
    ['f:kind'],
    ['f:metadata'],
    ['f:metadata', 'f:name'],
    ['f:metadata', 'f:namespace'],
    ['f:metadata', 'f:clusterName'],
    ...SERVER_METADATA.map((f) => ['f:metadata', `f:${f}`]),
  ]) {
    set.insert(p);
  }
  return set;
})();

/** A copy without the server-owned metadata. */
function withoutServerMetadata(obj: JsonObject): JsonObject {
  const out = clone(obj);
  const metadata = out.metadata;
  if (isObject(metadata)) for (const f of SERVER_METADATA) delete metadata[f];
  return out;
}

/**
 * Go-typed objects never serialise empty maps and lists (`omitempty`), read `null` as the zero
 * value and hold `""` in the empty object already, so for built-in kinds `data: {}`, `data: null`,
 * `reportingComponent: ""` and an absent field are the same: drop them before comparing.
 */
function withoutEmpty(value: unknown, mapValues = false, path = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutEmpty(v));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const childPath = path === '' ? k : `${path}.${k}`;
    if (v === null && NULL_KEPT.has(childPath)) {
      out[k] = null;
      continue;
    }
    const inner = withoutEmpty(v, STRING_MAPS.has(k), childPath);
    // `""` is a real value in a map[string]string (labels, data), only a zero value in a struct.
    if (inner === null || (inner === '' && !mapValues)) continue;
    if (Array.isArray(inner) && inner.length === 0 && EMPTY_LISTS_KEPT.has(childPath)) {
      out[k] = inner;
      continue;
    }
    if ((isObject(inner) && Object.keys(inner).length === 0) || (Array.isArray(inner) && inner.length === 0))
      continue;
    out[k] = inner;
  }
  return out;
}

/**
 * Fields without `omitempty` that Go serialises as `null` when nil: they exist (as null) for
 * structured-merge-diff, so filling them in later modifies them rather than adding them (no `.`
 * member; CRD `status.conditions` in file 12).
 */
const NULL_KEPT = new Set(['status.conditions']);

/**
 * Lists without `omitempty`: an empty one is serialised (`[]`) and owned, a nil one is not
 * (a Role's `rules: []` gives `f:rules`, no `rules` gives no entry — checked on a v1.24 server).
 */
const EMPTY_LISTS_KEPT = new Set(['rules']);

/** Fields of built-in types that are `map[string]string` (their values may legitimately be `""`). */
const STRING_MAPS = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'matchLabels',
  'nodeSelector',
  'selector',
]);

/** The form of a stored object that ownership is computed on. */
function comparable(obj: JsonObject, type: TypeNode): unknown {
  const stripped = withoutServerMetadata(obj);
  return type.typed === true ? withoutEmpty(stripped) : stripped;
}

// ---------------------------------------------------------------------------------------------
// Lists: path elements of items

function itemElement(item: unknown, list: ListType): PathElement | undefined {
  if (list.type === 'set') return `v:${JSON.stringify(item)}`;
  if (list.type !== 'map' || !isObject(item)) return undefined;
  const present = list.keys.filter((k) => item[k] !== undefined && item[k] !== null).sort();
  if (present.length === 0) return undefined;
  const key: JsonObject = {};
  for (const k of present) key[k] = item[k];
  return `k:${JSON.stringify(key)}`;
}

/** Item elements of a list, or `undefined` when the list cannot be keyed (then it is atomic). */
function elements(value: unknown, list: ListType): PathElement[] | undefined {
  if (!Array.isArray(value)) return [];
  const out: PathElement[] = [];
  for (const item of value) {
    const pe = itemElement(item, list);
    if (pe === undefined || out.includes(pe)) return undefined;
    out.push(pe);
  }
  return out;
}

/** The list type to use for these values: atomic when any of them cannot be keyed. */
function effectiveList(list: ListType, ...values: unknown[]): ListType {
  if (list.type === 'atomic') return list;
  return values.every((v) => elements(v, list) !== undefined) ? list : { type: 'atomic' };
}

// ---------------------------------------------------------------------------------------------
// Walkers

/** `TypedValue.ToFieldSet`: the fields an applied configuration specifies. */
function toFieldSet(value: unknown, type: TypeNode, path: PathElement[], set: FieldSet): void {
  if (isObject(value)) {
    if (type.atomicMap) {
      if (path.length > 0) set.insert(path);
      return;
    }
    for (const [k, v] of Object.entries(value)) {
      const child = [...path, `f:${k}`];
      const emptyish =
        v === null || (isObject(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0);
      if (emptyish) set.insert(child);
      else toFieldSet(v, type.field(k), child, set);
    }
  } else if (Array.isArray(value)) {
    const list = effectiveList(type.list, value);
    if (list.type === 'atomic') {
      set.insert(path);
      return;
    }
    const pes = elements(value, list) ?? [];
    value.forEach((item, i) => {
      const itemPath = [...path, pes[i] ?? `i:${i}`];
      set.insert(itemPath);
      if (list.type === 'map' && isObject(item)) toFieldSet(item, type.item(), itemPath, set);
    });
  } else if (path.length > 0) {
    set.insert(path);
  }
}

interface Diff {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const isMapOrAbsent = (v: unknown): boolean => v === undefined || isObject(v);
const isListOrAbsent = (v: unknown): boolean => v === undefined || Array.isArray(v);

/** `TypedValue.Compare`: what changed from `l` to `r` (`undefined` = absent). */
function compare(l: unknown, r: unknown, type: TypeNode, path: PathElement[], diff: Diff): void {
  const leaf = (): void => {
    if (l === undefined && r !== undefined) diff.added.insert(path);
    else if (r === undefined && l !== undefined) diff.removed.insert(path);
    else if (!deepEqual(l, r)) diff.modified.insert(path);
  };
  const container = (): void => {
    if (path.length === 0 || type.alwaysPresent) return;
    if (l === undefined) diff.added.insert(path);
    else if (r === undefined) diff.removed.insert(path);
  };
  if ((isObject(l) || isObject(r)) && isMapOrAbsent(l) && isMapOrAbsent(r)) {
    const lm = (l ?? {}) as JsonObject;
    const rm = (r ?? {}) as JsonObject;
    const bothEmpty = Object.keys(lm).length === 0 && Object.keys(rm).length === 0;
    if ((type.atomicMap || bothEmpty) && path.length > 0) return leaf();
    for (const k of new Set([...Object.keys(lm), ...Object.keys(rm)])) {
      compare(lm[k], rm[k], type.field(k), [...path, `f:${k}`], diff);
    }
    return container();
  }
  // A list that was `null` (a Go field without omitempty) exists: its items are added, the list is not.
  if ((Array.isArray(l) || Array.isArray(r)) && (isListOrAbsent(l) || l === null) && isListOrAbsent(r)) {
    const list = effectiveList(type.list, l, r);
    const la = (l ?? []) as unknown[];
    const ra = (r ?? []) as unknown[];
    if (list.type === 'atomic' || (la.length === 0 && ra.length === 0)) return leaf();
    const lItems = new Map((elements(la, list) ?? []).map((pe, i) => [pe, la[i]]));
    const rItems = new Map((elements(ra, list) ?? []).map((pe, i) => [pe, ra[i]]));
    for (const pe of new Set([...lItems.keys(), ...rItems.keys()])) {
      const itemPath = [...path, pe];
      if (list.type === 'set') {
        if (!lItems.has(pe)) diff.added.insert(itemPath);
        else if (!rItems.has(pe)) diff.removed.insert(itemPath);
      } else {
        compare(lItems.get(pe), rItems.get(pe), type.item(), itemPath, diff);
      }
    }
    return container();
  }
  leaf();
}

function diffOf(l: unknown, r: unknown, type: TypeNode): Diff {
  const diff = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compare(l, r, type, [], diff);
  return diff;
}

/** A config value as stored: `null` in a map means "unset". */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v);
  return out;
}

/** `TypedValue.Merge`: the applied config over the live object. */
function merge(l: unknown, r: unknown, type: TypeNode): unknown {
  if (r === undefined) return clone(l);
  if (l === undefined || l === null) return withoutNulls(r);
  if (isObject(l) && isObject(r) && !type.atomicMap) {
    const out = clone(l);
    for (const [k, v] of Object.entries(r)) {
      if (v === null) delete out[k];
      else out[k] = merge(l[k], v, type.field(k));
    }
    return out;
  }
  if (Array.isArray(l) && Array.isArray(r)) {
    const list = effectiveList(type.list, l, r);
    if (list.type === 'atomic') return withoutNulls(r);
    return mergeList(l, r, list, type.item());
  }
  return withoutNulls(r);
}

/** SMD's ordered merge of associative lists and sets: shared items follow the config's order. */
function mergeList(l: unknown[], r: unknown[], list: ListType, itemType: TypeNode): unknown[] {
  const lPEs = elements(l, list) ?? [];
  const rPEs = elements(r, list) ?? [];
  const lMap = new Map(lPEs.map((pe, i) => [pe, l[i]]));
  const rMap = new Map(rPEs.map((pe, i) => [pe, r[i]]));
  const mergeItem = (pe: PathElement): unknown =>
    list.type === 'set' ? clone(rMap.get(pe) ?? lMap.get(pe)) : merge(lMap.get(pe), rMap.get(pe), itemType);
  const sharedOrder = rPEs.filter((pe) => lMap.has(pe));
  let nextShared = sharedOrder.shift();
  const emitted = new Set<PathElement>();
  const out: unknown[] = [];
  let li = 0;
  let ri = 0;
  while (li < lPEs.length || ri < rPEs.length) {
    const lpe = lPEs[li];
    if (lpe !== undefined && emitted.has(lpe)) {
      li++;
      continue;
    }
    const rpe = rPEs[ri];
    if (lpe !== undefined && rpe !== undefined) {
      if (lpe === rpe) {
        out.push(mergeItem(lpe));
        emitted.add(lpe);
        li++;
        ri++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (rMap.has(lpe) && nextShared !== undefined && nextShared !== lpe) {
        li++;
        continue;
      }
    }
    if (lpe !== undefined && !rMap.has(lpe)) {
      out.push(clone(lMap.get(lpe)));
      emitted.add(lpe);
      li++;
      continue;
    }
    if (rpe !== undefined) {
      out.push(mergeItem(rpe));
      emitted.add(rpe);
      ri++;
      if (nextShared === rpe) nextShared = sharedOrder.shift();
      continue;
    }
    li++;
  }
  return out;
}

/** Removes the value at `path` (a field or a list item) from `root` in place. */
function removeAt(root: unknown, path: readonly PathElement[], type: TypeNode): void {
  let node = root;
  let t = type;
  for (let i = 0; i < path.length; i++) {
    const pe = path[i] ?? '';
    const last = i === path.length - 1;
    if (pe.startsWith('f:') && isObject(node)) {
      const name = pe.slice(2);
      if (last) {
        delete node[name];
        return;
      }
      node = node[name];
      t = t.field(name);
    } else if (Array.isArray(node)) {
      const list = effectiveList(t.list, node);
      const index = (elements(node, list) ?? []).indexOf(pe);
      if (index < 0) return;
      if (last) {
        node.splice(index, 1);
        return;
      }
      node = node[index];
      t = t.item();
    } else {
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// managedFields entries

interface Entry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string | undefined;
  subresource: string | undefined;
  set: FieldSet;
}

/** `BuildManagerIdentifier`: Apply entries ignore apiVersion, Update entries include it. */
function identity(e: Pick<Entry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([
    e.manager,
    e.operation,
    e.operation === 'Apply' ? '' : e.apiVersion,
    e.subresource ?? '',
  ]);
}

function describeManager(e: Entry): string {
  let out = JSON.stringify(e.manager);
  if (e.subresource !== undefined && e.subresource !== '')
    out += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') out += ` using ${e.apiVersion}`;
  return out;
}

function parseEntries(managedFields: unknown): Entry[] {
  if (!Array.isArray(managedFields)) return [];
  const entries: Entry[] = [];
  for (const raw of managedFields) {
    if (!isObject(raw) || typeof raw.manager !== 'string') continue;
    if (raw.operation !== 'Apply' && raw.operation !== 'Update') continue;
    entries.push({
      manager: raw.manager,
      operation: raw.operation,
      apiVersion: typeof raw.apiVersion === 'string' ? raw.apiVersion : '',
      time: typeof raw.time === 'string' ? raw.time : undefined,
      subresource:
        typeof raw.subresource === 'string' && raw.subresource !== '' ? raw.subresource : undefined,
      set: FieldSet.fromFieldsV1(raw.fieldsV1),
    });
  }
  return entries;
}

const seconds = (time: string | undefined): number => {
  const ms = time === undefined ? NaN : Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

/** `sortEncodedManagedFields`: Apply before Update, then time, manager, apiVersion, subresource. */
function encode(entries: Entry[]): ManagedFieldsEntry[] {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return entries
    .filter((e) => !e.set.empty)
    .sort(
      (a, b) =>
        cmp(a.operation, b.operation) ||
        seconds(a.time) - seconds(b.time) ||
        cmp(a.manager, b.manager) ||
        cmp(a.apiVersion, b.apiVersion) ||
        cmp(a.subresource ?? '', b.subresource ?? ''),
    )
    .map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      time: e.time ?? '',
      fieldsType: 'FieldsV1' as const,
      fieldsV1: e.set.toFieldsV1(),
      ...(e.subresource !== undefined ? { subresource: e.subresource } : {}),
    }));
}

const stringField = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function requireObject(value: unknown, what: string): JsonObject {
  if (!isObject(value)) {
    throw new TypeError(`${what} must be a JSON object (a Kubernetes object), got ${JSON.stringify(value)}`);
  }
  return value;
}

function requireManager(manager: string, fn: string): void {
  if (typeof manager !== 'string' || manager === '' || manager.length > 128) {
    throw new TypeError(
      `${fn}: opts.manager must be a non-empty field manager name (at most 128 characters)`,
    );
  }
}

/** The config an endpoint actually applies: `/status` applies only status, others drop ignored fields. */
function restrictConfig(
  config: JsonObject,
  subresource: string | undefined,
  ignored: readonly string[],
): JsonObject {
  if (subresource === 'status') {
    const metadata = isObject(config.metadata) ? config.metadata : {};
    const out: JsonObject = {};
    for (const k of ['apiVersion', 'kind']) if (k in config) out[k] = config[k];
    out.metadata = {
      ...(metadata.name !== undefined ? { name: metadata.name } : {}),
      ...(metadata.namespace !== undefined ? { namespace: metadata.namespace } : {}),
    };
    if ('status' in config) out.status = config.status;
    return out;
  }
  const out = { ...config };
  for (const f of ignored) delete out[f];
  return out;
}

/**
 * Server-side apply: merges an applied configuration into the live object and updates
 * `metadata.managedFields`.
 *
 * ## Example
 * ```ts
 * const created = serverSideApply(undefined,
 *   { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { key: 'from-a' } },
 *   { manager: 'a', force: false, apiVersion: 'v1', now: '2026-11-22T06:23:31Z' });
 * // created.metadata.managedFields: [{ manager: 'a', operation: 'Apply', fieldsV1: { 'f:data': { 'f:key': {} } }, ... }]
 * serverSideApply(created, { ...sameButDataKey: 'from-b' }, { manager: 'b', force: false, ... });
 * // throws ApplyConflictError: Apply failed with 1 conflict: conflict with "a": .data.key
 * ```
 *
 * ## Semantics
 * - The applier's field set becomes exactly the fields of its config (`FieldsV1`: maps by
 *   `f:<name>`, associative list items by `k:{"name":"c"}` with `.` for the item, set items by
 *   `v:<value>`, atomic lists and empty maps as leaves).
 * - Conflict: another manager (Apply or Update) owns a field whose value this apply changes.
 *   Without `force` nothing changes and {@link ApplyConflictError} is thrown; with `force` those
 *   fields move to the applier. Setting a field to the value it already has shares ownership.
 * - Fields the applier owned before and no longer applies are removed from the object, unless
 *   another manager (or this config) still owns them or something below them.
 * - Server-owned metadata in the config (`managedFields`, `resourceVersion`, `uid`, ...) is
 *   ignored; `apiVersion`, `kind`, `metadata.name`/`namespace` are never owned.
 * - The applier's entry gets `time = now` when the object changed or the entry is new.
 *
 * @param live the stored object, or `undefined` when the apply creates it (not mutated).
 * @param applied the decoded apply body (not mutated).
 * @param opts manager, force, request apiVersion, time; `subresource`, `ignoredFields` and the
 *   CRD `schema` when relevant.
 * @returns the new object (a fresh value) with `metadata.managedFields` set.
 * @throws {ApplyConflictError} on conflicts without `force`.
 * @throws {TypeError} when `live`/`applied` are not objects or the manager name is empty.
 */
export function serverSideApply(
  live: Record<string, unknown> | undefined,
  applied: Record<string, unknown>,
  opts: ApplyOptions,
): Record<string, unknown> {
  requireManager(opts.manager, 'serverSideApply');
  const appliedObj = requireObject(applied, 'serverSideApply: the applied configuration');
  const liveObj = live === undefined ? undefined : requireObject(live, 'serverSideApply: the live object');
  const apiVersion =
    stringField(appliedObj.apiVersion) ?? stringField(liveObj?.apiVersion) ?? opts.apiVersion;
  const kind = stringField(appliedObj.kind) ?? stringField(liveObj?.kind) ?? '';
  const type = typeOf(apiVersion, kind, opts.schema);

  const entries = parseEntries(isObject(liveObj?.metadata) ? liveObj.metadata.managedFields : undefined);
  const me = {
    manager: opts.manager,
    operation: 'Apply' as const,
    apiVersion: opts.apiVersion,
    subresource: opts.subresource,
  };
  const meId = identity(me);
  const previous = entries.find((e) => identity(e) === meId);
  const others = entries.filter((e) => e !== previous);

  const config = restrictConfig(
    withoutServerMetadata(appliedObj),
    opts.subresource,
    opts.ignoredFields ?? [],
  );
  const set = new FieldSet();
  toFieldSet(config, type, [], set);
  const applierSet = set.difference(STRIPPED);

  const base: JsonObject = liveObj === undefined ? {} : clone(liveObj);
  if (isObject(base.metadata)) delete base.metadata.managedFields;
  const merged = merge(base, config, type) as JsonObject;

  if (previous !== undefined) {
    const owned = others.reduce((acc, e) => acc.union(e.set), applierSet);
    const dropped = previous.set.difference(applierSet).paths();
    const removedPrefixes: PathElement[][] = [];
    for (const path of dropped) {
      if (removedPrefixes.some((p) => p.every((pe, i) => path[i] === pe))) continue;
      if (owned.hasAtOrBelow(path)) continue;
      removeAt(merged, path, type);
      removedPrefixes.push(path);
    }
  }

  const diff = diffOf(comparable(base, type), comparable(merged, type), type);
  const changed = diff.modified.union(diff.added);
  const conflicts: ApplyConflict[] = [];
  for (const e of others) {
    for (const path of e.set.intersection(changed).paths()) {
      conflicts.push({
        manager: e.manager,
        managerDescription: describeManager(e),
        field: pathToString(path),
      });
    }
  }
  if (conflicts.length > 0 && !opts.force) {
    conflicts.sort((a, b) =>
      a.managerDescription === b.managerDescription
        ? a.field < b.field
          ? -1
          : 1
        : a.managerDescription < b.managerDescription
          ? -1
          : 1,
    );
    throw new ApplyConflictError(conflicts);
  }
  for (const e of others) e.set = e.set.difference(changed).difference(diff.removed);

  const objectChanged = !deepEqual(comparable(base, type), comparable(merged, type));
  const mine: Entry = {
    ...me,
    time: objectChanged || previous === undefined ? opts.now : previous.time,
    set: applierSet,
  };
  const metadata = isObject(merged.metadata) ? merged.metadata : {};
  merged.metadata = { ...metadata, managedFields: encode([...others, mine]) };
  return merged;
}

/**
 * The `metadata.managedFields` after an ordinary write (create, update, non-apply patch, or a
 * write to a subresource): the fields this write changed belong to `(manager, Update)` and are
 * taken away from every other entry.
 *
 * ## Example
 * ```ts
 * recordUpdate(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { app: 'x' } }, data: { a: '1' } },
 *   { manager: 'kubectl', apiVersion: 'v1', now: '2026-11-22T06:22:59Z' });
 * // [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-11-22T06:22:59Z', fieldsType: 'FieldsV1',
 * //    fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } }]
 * ```
 *
 * ## Semantics
 * - Added and modified fields join this manager's set (maps and list items that appear get
 *   their own `.` member); removed fields leave every set.
 * - Other entries lose the fields this write changed; entries left empty are dropped.
 * - This manager's entry gets `time = now` only when the write changed something it now owns;
 *   every other entry keeps its time. A no-op write returns the entries unchanged.
 * - The base is `prev.metadata.managedFields` (the body's own `managedFields` is ignored).
 *
 * @param prev the stored object before the write, `undefined` on create (not mutated).
 * @param next the object about to be stored (not mutated).
 * @param opts manager, request apiVersion, time, `subresource`, CRD `schema`.
 * @returns the new `managedFields`, sorted like the apiserver sorts them.
 * @throws {TypeError} when `next` is not an object or the manager name is empty.
 */
export function recordUpdate(
  prev: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
  opts: UpdateOptions,
): ManagedFieldsEntry[] {
  requireManager(opts.manager, 'recordUpdate');
  const nextObj = requireObject(next, 'recordUpdate: the new object');
  const prevObj = prev === undefined ? undefined : requireObject(prev, 'recordUpdate: the previous object');
  const apiVersion = stringField(nextObj.apiVersion) ?? stringField(prevObj?.apiVersion) ?? opts.apiVersion;
  const type = typeOf(apiVersion, stringField(nextObj.kind) ?? stringField(prevObj?.kind) ?? '', opts.schema);

  const entries = parseEntries(isObject(prevObj?.metadata) ? prevObj.metadata.managedFields : undefined);
  const diff = diffOf(comparable(prevObj ?? {}, type), comparable(nextObj, type), type);
  const changed = diff.modified.union(diff.added);
  for (const e of entries) e.set = e.set.difference(changed).difference(diff.removed);

  const mine = changed.difference(diff.removed).difference(STRIPPED);
  if (!mine.empty) {
    const me = {
      manager: opts.manager,
      operation: 'Update' as const,
      apiVersion: opts.apiVersion,
      subresource: opts.subresource,
    };
    const existing = entries.find((e) => identity(e) === identity(me));
    if (existing !== undefined) {
      existing.set = existing.set.union(mine);
      existing.time = opts.now;
    } else {
      entries.push({ ...me, time: opts.now, set: mine });
    }
  }
  return encode(entries);
}
