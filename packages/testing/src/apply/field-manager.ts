/**
 * Server-side apply and `metadata.managedFields` bookkeeping, as kube-apiserver v1.24 does them:
 * the field manager's layers (`apiserver/pkg/endpoints/handlers/fieldmanager`: `FieldManager`,
 * `lastAppliedUpdater`, `lastAppliedManager`, `skipNonAppliedManager`, `capManagersManager`,
 * `buildManagerInfoManager`, `managedFieldsUpdater`, `stripMetaManager`, `structuredMergeManager`)
 * over structured-merge-diff v4.2.1 (`updater.ts`, `typed.ts`), with types from the kind's schema
 * (`smd-type.ts`: list and map semantics, struct fields) — the recorded v1.24 schema of a built-in,
 * the CRD's `openAPIV3Schema` of a custom resource.
 *
 * What it does not do: parse YAML, check preconditions or `resourceVersion`, validate or default
 * the result, or reset what the endpoint's strategy resets (the server does these; the reset
 * fields are only left unowned here).
 *
 * @module
 */
import type { JSONSchemaProps } from '../validation/schema.js';
import { ApplyConflictError, applyConflicts } from './conflicts.js';
import { isObject, type JsonObject } from './json-value.js';
import { allowedConflicts, hasLastApplied, KUBECTL_MANAGER, setLastApplied } from './last-applied.js';
import {
  BEFORE_FIRST_APPLY,
  applyLayers,
  contextOf,
  decodeOrEmpty,
  liveErrors,
  managedFieldsOf,
  type ServedVersions,
  typedForm,
  updateLayers,
} from './layers.js';
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  type Managed,
  type ManagedFieldsEntry,
  ManagedFieldsError,
} from './managed-fields.js';
import { validate, validationMessage } from './validate.js';
import { Conflicts, InvalidValue } from './updater.js';

export { ApplyConflictError, type ApplyConflict } from './conflicts.js';
export type { ManagedFieldsEntry } from './managed-fields.js';

/**
 * Options of {@link serverSideApply}.
 *
 * ## Example
 * ```ts
 * import type { ApplyOptions } from '@rxkube/testing/apply';
 * const opts: ApplyOptions = { fieldManager: 'my-operator', force: true, apiVersion: 'v1', now: '2026-11-22T06:23:31Z' };
 * ```
 */
export interface ApplyOptions {
  /** The `fieldManager` query parameter (required for apply). */
  fieldManager: string;
  /** The `force` query parameter: take ownership of conflicting fields instead of failing. */
  force: boolean;
  /** The apiVersion of the request (recorded in the managedFields entry). */
  apiVersion: string;
  /** The time of the write, RFC 3339 seconds (`2026-11-22T06:23:31Z`). */
  now: string;
  /** `status` for an apply to the `/status` subresource (recorded in the entry). */
  subresource?: string;
  /**
   * The fields the endpoint's strategy resets (`GetResetFields`), e.g. `[['status']]` on a main
   * resource with a status subresource, `[['spec']]` on its `/status`: nobody owns them through
   * this endpoint and changes to them are no conflict.
   */
  resetFields?: readonly (readonly string[])[];
  /** The CRD version's `openAPIV3Schema`, for custom resources (list, map and struct types). */
  schema?: JSONSchemaProps;
}

/**
 * Options of {@link recordUpdate}.
 *
 * ## Example
 * ```ts
 * import type { UpdateOptions } from '@rxkube/testing/apply';
 * const opts: UpdateOptions = {
 *   fieldManager: 'kube-controller-manager',
 *   apiVersion: 'v1',
 *   now: '2026-11-22T06:23:31Z',
 *   subresource: 'status',
 * };
 * ```
 */
export interface UpdateOptions {
  /** The `fieldManager` query parameter, or the User-Agent's first word. */
  fieldManager: string;
  /** The apiVersion of the request. */
  apiVersion: string;
  /** The time of the write, RFC 3339 seconds. */
  now: string;
  /** The subresource written (`status`), if any: the request's own `managedFields` are then ignored. */
  subresource?: string;
  /** The fields the endpoint's strategy resets (see {@link ApplyOptions.resetFields}). */
  resetFields?: readonly (readonly string[])[];
  /** The CRD version's `openAPIV3Schema`, for custom resources. */
  schema?: JSONSchemaProps;
}

/**
 * An apply the server refuses before merging: a body with `metadata.managedFields` (400), a
 * configuration that does not fit the type's schema or a live object that cannot be read (500,
 * as the real server answers: `failed to create typed patch object (ns/name; gvk): .spec.foo:
 * field not declared in schema`), or stored managedFields that do not decode (500).
 *
 * ## Example
 * ```ts
 * import type { ApplyOptions } from '@rxkube/testing/apply';
 * const opts: ApplyOptions = { fieldManager: 'a', force: false, apiVersion: 'v1', now: '2026-11-22T06:23:31Z' };
 * const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { key: 'a' } };
 * try { serverSideApply(undefined, { ...config, spec: { typo: 1 } }, opts); }
 * catch (e) { if (e instanceof ApplyError) console.log(e.code, e.what, e.detail); } // 500 typed patch object .spec: …
 * ```
 */
export class ApplyError extends Error {
  readonly _tag = 'ApplyError';
  constructor(
    /** The HTTP status kube-apiserver answers with. */
    readonly code: 400 | 500,
    /** What failed: `typed patch object`, `typed live object`, `managed fields`, or `request` (400). */
    readonly what: 'typed patch object' | 'typed live object' | 'managed fields' | 'request',
    /** SMD's or the decoder's words. */
    readonly detail: string,
  ) {
    super(
      what === 'request'
        ? detail
        : what === 'managed fields'
          ? `failed to decode managed fields: ${detail}`
          : `failed to create ${what}: ${detail}`,
    );
    this.name = 'ApplyError';
  }
}

function requireManager(manager: unknown, fn: string): void {
  if (typeof manager !== 'string' || manager === '' || manager.length > 128) {
    throw new TypeError(
      `${fn}: opts.fieldManager must be a non-empty field manager name (at most 128 characters)`,
    );
  }
}

function requireObject(value: unknown, what: string): JsonObject {
  if (!isObject(value)) {
    throw new TypeError(`${what} must be a JSON object (a Kubernetes object), got ${JSON.stringify(value)}`);
  }
  return value;
}

const stringField = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The `metadata.managedFields` after an ordinary write (create, update, non-apply patch, or a
 * write to a subresource), as `FieldManager.Update` computes them.
 *
 * ## Example
 * ```ts
 * recordUpdate(undefined, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { app: 'x' } }, data: { a: '1' } },
 *   { fieldManager: 'kubectl', apiVersion: 'v1', now: '2026-11-22T06:22:59Z' });
 * // [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-11-22T06:22:59Z', fieldsType: 'FieldsV1',
 * //    fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } }]
 * ```
 *
 * ## Semantics
 * - The entries start from `next.metadata.managedFields` — the request's — when they decode and
 *   are not empty; `[]` or `[{}]` there resets them (the object then has none until the next
 *   apply); otherwise, and always for a subresource, from `prev`'s.
 * - Added and modified fields join this manager's `Update` entry (maps and list items that appear
 *   get their own `.` member), other entries lose them; removed fields leave every entry; empty
 *   entries are dropped; the reset fields are nobody's.
 * - This manager's entry gets `time = now` only when its set changed; others keep their time.
 * - An object without entries is not tracked by updates (until an apply); beyond ten `Update`
 *   entries the oldest are merged into `ancient-changes`.
 * - A value the type cannot read (duplicate keys in an associative list) drops all entries, as
 *   the real server's `UpdateNoErrors` does.
 *
 * @param prev the stored object before the write, `undefined` on create (not mutated).
 * @param next the object about to be stored, with the request's managedFields (not mutated).
 * @param opts field manager, request apiVersion, time, `subresource`, reset fields, CRD `schema`.
 * @returns the new `managedFields`, sorted like the apiserver sorts them (empty: none).
 * @throws {TypeError} when `next` is not an object or the manager name is empty.
 */
export function recordUpdate(
  prev: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
  opts: UpdateOptions,
): ManagedFieldsEntry[] {
  requireManager(opts.fieldManager, 'recordUpdate');
  const nextObj = requireObject(next, 'recordUpdate: the new object');
  const prevObj = prev === undefined ? undefined : requireObject(prev, 'recordUpdate: the previous object');
  const apiVersion = opts.apiVersion;
  const kind = stringField(nextObj.kind) ?? stringField(prevObj?.kind) ?? '';
  const ctx = contextOf(apiVersion, kind, opts);

  // decodeLiveOrNew
  const liveRaw = managedFieldsOf(prevObj);
  let managed: Managed;
  const requested = managedFieldsOf(nextObj);
  if (ctx.subresource !== undefined) managed = decodeOrEmpty(liveRaw);
  else if (isResetManagedFields(requested)) managed = emptyManaged();
  else {
    managed = decodeOrEmpty(requested);
    if (managed.sets.size === 0) managed = decodeOrEmpty(liveRaw);
  }
  // skipNonAppliedManager: an existing object (one with a uid) without entries is not tracked by updates
  const uid = isObject(prevObj?.metadata) ? prevObj.metadata.uid : undefined;
  if (managed.sets.size === 0 && typeof uid === 'string' && uid !== '') return [];
  try {
    return encodeManagedFields(
      updateLayers(typedForm(prevObj, ctx), typedForm(nextObj, ctx), managed, opts.fieldManager, ctx),
    );
  } catch (e) {
    // UpdateNoErrors: a value SMD cannot read (duplicate list keys) leaves the object without entries
    if (e instanceof InvalidValue) return [];
    throw e;
  }
}

/**
 * {@link recordUpdate} of a custom resource written in a non-storage version: `prev` and `next`
 * are in the request's version (`opts.apiVersion`), and other managers' changes are compared in
 * the version each wrote, converted by `versions` (structured-merge-diff's `Updater.update`).
 * Internal (the embedded server's PUT and patches in a non-storage version).
 */
export function recordUpdateAcrossVersions(
  prev: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
  opts: UpdateOptions,
  versions: ServedVersions,
): ManagedFieldsEntry[] {
  const withVersions: UpdateOptions & { versions: ServedVersions } = { ...opts, versions };
  return recordUpdate(prev, next, withVersions);
}

/**
 * {@link serverSideApply} of a custom resource served in several versions: other managers'
 * changes are compared in the version each wrote, converted by `versions`. Internal (the
 * embedded server's apply in a non-storage version).
 */
export function serverSideApplyAcrossVersions(
  live: Record<string, unknown> | undefined,
  applied: Record<string, unknown>,
  opts: ApplyOptions,
  versions: ServedVersions,
): Record<string, unknown> {
  const withVersions: ApplyOptions & { versions: ServedVersions } = { ...opts, versions };
  return serverSideApply(live, applied, withVersions);
}

/**
 * Server-side apply: merges an applied configuration into the live object and updates
 * `metadata.managedFields`, as `FieldManager.Apply` does.
 *
 * ## Example
 * ```ts
 * const configMap = (key: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { key } });
 * const at = { force: false, apiVersion: 'v1', now: '2026-11-22T06:23:31Z' };
 * const created = serverSideApply(undefined, configMap('from-a'), { fieldManager: 'a', ...at });
 * // created.metadata.managedFields: [{ manager: 'a', operation: 'Apply', fieldsV1: { 'f:data': { 'f:key': {} } }, ... }]
 * serverSideApply(created, configMap('from-b'), { fieldManager: 'b', ...at });
 * // throws ApplyConflictError: Apply failed with 1 conflict: conflict with "a": .data.key
 * ```
 *
 * ## Semantics
 * - The applier's entry becomes exactly the fields of its config (`FieldsV1`: fields `f:<name>`,
 *   associative list items `k:{"name":"c"}` — keys from `x-kubernetes-list-map-keys` or the
 *   patch merge key, missing keys filled from their schema default — with `.` for the item, set
 *   items `v:<value>`, atomic lists and maps, empty maps and nulls as leaves), minus the reset
 *   fields and the metadata the server owns.
 * - Conflict: another manager owns a field whose value this apply changes; without `force`
 *   nothing changes and {@link ApplyConflictError} is thrown; with `force` those fields move to the
 *   applier. For the manager `kubectl`, fields whose live value still is the
 *   `last-applied-configuration` one are no conflict, and that annotation follows the config.
 * - Fields the applier applied before and no longer applies are removed, unless another manager
 *   owns them; an object without entries first gets a `before-first-apply` entry owning
 *   everything it holds.
 * - The applier's entry gets `time = now` when the object or any entry changed.
 *
 * @param live the stored object, or `undefined` when the apply creates it (not mutated).
 * @param applied the decoded apply body (not mutated).
 * @returns the new object (a fresh value) with `metadata.managedFields` set.
 * @throws {ApplyConflictError} on conflicts without `force`.
 * @throws {ApplyError} for a body with managedFields, a config or live object the type cannot read.
 * @throws {TypeError} when `live`/`applied` are not objects or the manager name is empty.
 */
export function serverSideApply(
  live: Record<string, unknown> | undefined,
  applied: Record<string, unknown>,
  opts: ApplyOptions,
): Record<string, unknown> {
  requireManager(opts.fieldManager, 'serverSideApply');
  const appliedObj = requireObject(applied, 'serverSideApply: the applied configuration');
  const liveObj = live === undefined ? undefined : requireObject(live, 'serverSideApply: the live object');
  const kind = stringField(appliedObj.kind) ?? stringField(liveObj?.kind) ?? '';
  const ctx = contextOf(opts.apiVersion, kind, opts);

  const requested = managedFieldsOf(appliedObj);
  if (requested !== undefined && requested !== null) {
    throw new ApplyError(400, 'request', 'metadata.managedFields must be nil');
  }
  let managed: Managed;
  try {
    managed = decodeManagedFields(managedFieldsOf(liveObj));
  } catch (e) {
    if (e instanceof ManagedFieldsError) throw new ApplyError(500, 'managed fields', e.message);
    throw e;
  }
  const configErrors = validate(appliedObj, ctx.type);
  if (configErrors.length > 0)
    throw new ApplyError(500, 'typed patch object', validationMessage(configErrors));
  const liveTyped = typedForm(liveObj, ctx);
  const errors = liveErrors(liveTyped, ctx);
  if (errors.length > 0) throw new ApplyError(500, 'typed live object', validationMessage(errors));

  const run = (force: boolean): { object: JsonObject; managed: Managed } => {
    let m = managed;
    if (m.sets.size === 0) m = updateLayers(typedForm(undefined, ctx), liveTyped, m, BEFORE_FIRST_APPLY, ctx);
    return applyLayers(liveObj, liveTyped, appliedObj, m, opts.fieldManager, force, ctx);
  };
  let result: { object: JsonObject; managed: Managed };
  try {
    result = run(opts.force);
  } catch (e) {
    if (!(e instanceof Conflicts)) throw e;
    // lastAppliedManager: kubectl's conflicts on fields it applied client-side are no conflicts
    const allowed =
      opts.fieldManager === KUBECTL_MANAGER
        ? allowedConflicts(liveObj, liveTyped, ctx.groupVersion, ctx.type)
        : undefined;
    const conflicts = allowed === undefined ? e.conflicts : e.conflicts.filter((c) => !allowed.has(c.path));
    if (conflicts.length > 0) throw new ApplyConflictError(applyConflicts(conflicts));
    result = run(true);
  }
  const { object, managed: after } = result;
  if (opts.fieldManager === KUBECTL_MANAGER && hasLastApplied(object)) setLastApplied(object, appliedObj);
  const metadata = isObject(object.metadata) ? object.metadata : (object.metadata = {});
  const entries = encodeManagedFields(after);
  if (entries.length > 0) metadata.managedFields = entries;
  else delete metadata.managedFields;
  return object;
}
