/**
 * The layers of kube-apiserver v1.24's field manager below the public entry points
 * (`apiserver/pkg/endpoints/handlers/fieldmanager`): `capManagersManager`,
 * `buildManagerInfoManager`, `managedFieldsUpdater` (entry times), `stripMetaManager` and
 * `structuredMergeManager` over structured-merge-diff's updater, and the type context of a write.
 * Internal to server-side apply (`field-manager.ts`).
 *
 * @module
 */
import type { JSONSchemaProps } from '../validation/schema.js';
import { FieldSet } from './field-set.js';
import { goForm } from './go-form.js';
import { clone, isObject, type JsonObject } from './json-value.js';
import {
  copyManaged,
  decodeManagedFields,
  emptyManaged,
  identity,
  type Managed,
  ManagedFieldsError,
} from './managed-fields.js';
import { kindType, type SmdType } from './smd-type.js';
import { validate } from './validate.js';
import { type ManagedSets, Updater, type VersionConverter } from './updater.js';

/** Paths the field manager never records (`stripMetaManager`). */
const STRIPPED = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...[
    'name',
    'namespace',
    'creationTimestamp',
    'selfLink',
    'uid',
    'clusterName',
    'generation',
    'managedFields',
    'resourceVersion',
  ].map((f) => ['f:metadata', `f:${f}`]),
);

export const CURRENT_OPERATION = 'current-operation';
export const BEFORE_FIRST_APPLY = 'before-first-apply';
const ANCIENT_CHANGES = 'ancient-changes';
const MAX_UPDATE_MANAGERS = 10;

/** What a write needs to know about the object's type. */
export interface Context {
  readonly type: SmdType;
  /** A built-in (Go-typed) kind: objects are compared in their Go form. */
  readonly typed: boolean;
  readonly groupVersion: string;
  readonly updater: Updater;
  readonly subresource: string | undefined;
  readonly now: string;
}

const PRESERVE_ALL: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** True for the groups served by kube-apiserver itself (core, `apps`, `*.k8s.io`, …). */
function isBuiltinGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io');
}

export function contextOf(
  apiVersion: string,
  kind: string,
  opts: {
    schema?: JSONSchemaProps;
    subresource?: string;
    resetFields?: readonly (readonly string[])[];
    now: string;
    versions?: ServedVersions;
  },
): Context {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const typed = opts.schema === undefined && isBuiltinGroup(group);
  const type = kindType(apiVersion, kind, typed ? undefined : (opts.schema ?? PRESERVE_ALL));
  const reset =
    opts.resetFields && opts.resetFields.length > 0
      ? FieldSet.of(...opts.resetFields.map((p) => p.map((f) => `f:${f}`)))
      : undefined;
  return {
    type,
    typed,
    groupVersion: apiVersion,
    updater: new Updater(type, reset, group, opts.versions && versionConverter(kind, opts.versions)),
    subresource: opts.subresource || undefined,
    now: opts.now,
  };
}

/**
 * The other served versions of a custom resource converted through its webhook: `convert` is
 * synchronous (the embedded server converts ahead and retries, `handlers/patch.ts`).
 */
export interface ServedVersions {
  convert(object: unknown, apiVersion: string): unknown;
  schemaOf(apiVersion: string): JSONSchemaProps | undefined;
}

function versionConverter(kind: string, versions: ServedVersions): VersionConverter {
  const types = new Map<string, SmdType>();
  return {
    convert: (object, version) => versions.convert(object, version),
    typeOf: (version) => {
      let t = types.get(version);
      if (t === undefined) {
        t = kindType(version, kind, versions.schemaOf(version) ?? PRESERVE_ALL);
        types.set(version, t);
      }
      return t;
    },
  };
}

/** The object as structured-merge-diff sees it: Go form for built-ins, without managedFields. */
export function typedForm(obj: JsonObject | undefined, ctx: Context): unknown {
  let v: unknown = obj;
  if (obj !== undefined && isObject(obj.metadata) && 'managedFields' in obj.metadata) {
    const { managedFields: _m, ...metadata } = obj.metadata;
    v = { ...obj, metadata };
  }
  return ctx.typed ? goForm(v, ctx.type) : (v ?? {});
}

/** Validation errors that make the object unreadable; undeclared fields of a stored object are tolerated. */
export function liveErrors(value: unknown, ctx: Context): string[] {
  return validate(value, ctx.type).filter((e) => !e.endsWith('field not declared in schema'));
}

export function managedFieldsOf(obj: JsonObject | undefined): unknown {
  return isObject(obj?.metadata) ? obj.metadata.managedFields : undefined;
}

export function decodeOrEmpty(raw: unknown): Managed {
  try {
    return decodeManagedFields(raw);
  } catch (e) {
    if (e instanceof ManagedFieldsError) return emptyManaged();
    throw e;
  }
}

function stripMeta(sets: ManagedSets, id: string): void {
  const vs = sets.get(id);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED);
  if (set.empty) sets.delete(id);
  else sets.set(id, { ...vs, set });
}

/** `capManagersManager`: beyond ten Update entries, the oldest are merged into `ancient-changes`. */
function capUpdateManagers(m: Managed): void {
  const updaters = [...m.sets].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const secs = (id: string): number => {
    const t = m.times.get(id);
    const ms = t === undefined ? NaN : Date.parse(t);
    return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
  };
  updaters.sort((a, b) => secs(a) - secs(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i] ?? '';
    const vs = m.sets.get(id);
    if (!vs) continue;
    const bucket = identity({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstByVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstByVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!m.sets.has(bucket)) {
      const s = m.sets.get(first);
      m.sets.delete(first);
      if (s) m.sets.set(bucket, s);
    }
    m.sets.set(bucket, {
      set: vs.set.union(m.sets.get(bucket)?.set ?? new FieldSet()),
      apiVersion: vs.apiVersion,
      applied: vs.applied,
    });
    m.sets.delete(id);
    length--;
    m.times.set(bucket, m.times.get(id));
  }
}

/** The Update layers below `skipNonAppliedManager`: cap ← build info ← managedFieldsUpdater ← strip ← SMD. */
export function updateLayers(
  liveTyped: unknown,
  newTyped: unknown,
  managed: Managed,
  manager: string,
  ctx: Context,
): Managed {
  const m = copyManaged(managed);
  const id = identity({
    manager: manager === '' ? 'unknown' : manager,
    operation: 'Update',
    apiVersion: ctx.groupVersion,
    ...(ctx.subresource ? { subresource: ctx.subresource } : {}),
  });
  const former = m.sets.get(id);
  ctx.updater.updateManagers(liveTyped, newTyped, ctx.groupVersion, m.sets, CURRENT_OPERATION);
  stripMeta(m.sets, CURRENT_OPERATION);
  const vs = m.sets.get(CURRENT_OPERATION);
  if (vs) {
    m.sets.delete(CURRENT_OPERATION);
    const previous = m.sets.get(id);
    const merged = previous
      ? { set: vs.set.union(previous.set), apiVersion: vs.apiVersion, applied: false }
      : vs;
    m.sets.set(id, merged);
    if (former === undefined || !merged.set.equals(former.set)) m.times.set(id, ctx.now);
  }
  capUpdateManagers(m);
  return m;
}

/** The Apply layers: build info ← managedFieldsUpdater ← strip ← structured merge. */
export function applyLayers(
  live: JsonObject | undefined,
  liveTyped: unknown,
  config: JsonObject,
  managed: Managed,
  manager: string,
  force: boolean,
  ctx: Context,
): { object: JsonObject; managed: Managed } {
  const m = copyManaged(managed);
  const id = identity({
    manager,
    operation: 'Apply',
    ...(ctx.subresource ? { subresource: ctx.subresource } : {}),
  });
  const former = new Map(m.sets);
  const merged = ctx.updater.apply(liveTyped, config, ctx.groupVersion, m.sets, id, force);
  stripMeta(m.sets, id);
  if (merged !== undefined || !sameSets(m.sets, former)) m.times.set(id, ctx.now);
  // unchanged: the live object as stored; changed: what Go would store (its form of the merge)
  const object = (
    merged === undefined ? clone(live) : ctx.typed ? goForm(merged, ctx.type, false) : clone(merged)
  ) as JsonObject;
  return { object: isObject(object) ? object : {}, managed: m };
}

function sameSets(a: ManagedSets, b: ManagedSets): boolean {
  if (a.size !== b.size) return false;
  for (const [id, vs] of a) {
    const o = b.get(id);
    if (!o || o.apiVersion !== vs.apiVersion || o.applied !== vs.applied || !o.set.equals(vs.set))
      return false;
  }
  return true;
}
