/**
 * PATCH in its four content types — JSON merge patch, JSON patch, strategic merge patch (built-in
 * kinds only) and server-side apply — on top of the engine's update rules.
 *
 * @module
 */
import {
  ApplyConflictError,
  ApplyError,
  serverSideApply,
  serverSideApplyAcrossVersions,
} from '../apply/field-manager.js';
import type { ServedVersions } from '../apply/layers.js';
import { resetFieldsFor } from '../apply/reset-fields.js';
import { applyJsonPatch, PatchError } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge.js';
import type { ResourceType } from '../registry/types.js';
import {
  ApiError,
  badRequest,
  conflict,
  failure,
  internalError,
  invalidGeneric,
  invalidOptions,
  notFound,
  unsupportedMediaType,
  uidMismatchOnCreate,
  unsupportedPatchForCustomResource,
} from '../status.js';
import type { KObj } from '../store/object.js';
import { clone, isObject } from '../store/object.js';
import {
  checkPatchedObject,
  decodeApplyConfig,
  goPatchedJson,
  parsePatchBody,
  patchInvalid,
} from './patch-body.js';
import { parseResourceVersion } from './continue-token.js';
import { sanitize } from './decode.js';
import type { EngineCore as Engine } from './engine-types.js';
import type { WriteOptions, WriteResult } from './engine-types.js';

const PATCH_TYPES = [
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/**
 * 415 unless the Content-Type (parameters dropped) is a patch type the resource takes: built-ins
 * answer go-restful's bare 415, custom resources (no strategic merge) the apiserver's, listing them.
 */
export function checkPatchContentType(type: ResourceType, contentType: string): void {
  const ct = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!type.builtin && (ct === 'application/strategic-merge-patch+json' || !PATCH_TYPES.includes(ct)))
    throw new ApiError(unsupportedPatchForCustomResource());
  if (!PATCH_TYPES.includes(ct)) throw new ApiError(unsupportedMediaType());
}

/** PATCH with any supported content type (apply included). */
export function patchObject(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  contentType: string,
  body: Buffer,
  opts: WriteOptions & { force?: boolean; fieldManagerGiven: boolean },
): WriteResult {
  checkPatchContentType(type, contentType);
  const ct = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (ct === 'application/apply-patch+yaml')
    return serverSideApplyPatch(engine, type, namespace, name, body, opts);
  const patch = parsePatchBody(body, ct);
  const key = engine.keyOf(type, namespace, name);
  const old = engine.store.get(type.storageKey, key);
  if (!old) throw new ApiError(notFound(type, name));
  const oldWire = type.fromStorage(old);
  let patched: unknown;
  try {
    if (ct === 'application/json-patch+json') patched = applyJsonPatch(oldWire, patch);
    else if (ct === 'application/merge-patch+json') patched = applyMergePatch(oldWire, patch);
    else
      patched = applyStrategicMergePatch(oldWire, patch, {
        group: type.group,
        kind: type.kind,
        version: type.version,
        ...(type.schema ? { schema: type.schema } : {}),
      });
  } catch (e) {
    if (e instanceof PatchError) {
      throw new ApiError(e.kind === 'invalid' ? invalidGeneric() : badRequest(e.message));
    }
    throw e;
  }
  const candidate = checkPatchedObject(type, patched, ct === 'application/strategic-merge-patch+json', name);
  candidate.metadata = isObject(candidate.metadata) ? candidate.metadata : {};
  // the patched object is decoded again: a decoder error is a 422 on the patch field
  const msg = type.decodeCheck?.(candidate);
  if (msg !== undefined)
    throw patchInvalid(
      goPatchedJson(candidate, type.builtin),
      msg.replace(/^.* cannot be handled as a \w+: /, ''),
    );
  const rv = candidate.metadata.resourceVersion;
  if (rv !== undefined && rv !== old.metadata.resourceVersion) {
    parseResourceVersion(rv);
    throw new ApiError(conflict(type, name));
  }
  engine.checkNamespace(type, candidate, namespace);
  const requested = candidate.metadata.managedFields;
  return engine.commitUpdate(type, key, old, sanitize(type, candidate), opts, undefined, requested);
}

/** Options of a server-side apply. */
export type ApplyWriteOptions = WriteOptions & { force?: boolean; fieldManagerGiven: boolean };

/** Server-side apply (`application/apply-patch+yaml`). */
export function serverSideApplyPatch(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  body: Buffer,
  opts: ApplyWriteOptions,
): WriteResult {
  const live = (): KObj | undefined => {
    const stored = engine.store.get(type.storageKey, engine.keyOf(type, namespace, name));
    return stored ? type.fromStorage(stored) : undefined;
  };
  const merged = mergeApply(engine, type, namespace, name, body, opts, live);
  return commitApply(engine, type, namespace, name, merged, opts);
}

/** An apply merged into the live object, not yet written. */
export interface MergedApply {
  /** The new object with its managedFields, in the version of the apply. */
  readonly candidate: KObj;
  /** The applied configuration (uid and resourceVersion preconditions). */
  readonly applied: KObj;
}

/**
 * The merge of an apply in `type`'s version into `live()` (the object in that version, or
 * undefined): `versions` converts for managers that wrote in another served version.
 */
export function mergeApply(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  body: Buffer,
  opts: ApplyWriteOptions,
  live: () => KObj | undefined,
  versions?: ServedVersions,
): MergedApply {
  if (!opts.fieldManagerGiven) {
    throw new ApiError(
      invalidOptions('PatchOptions', [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: is required for apply patch',
          field: 'fieldManager',
        },
      ]),
    );
  }
  // the apply body is read as unstructured, never decoded into the Go type: a value of the wrong
  // type is SMD's 500 (`failed to create typed patch object`), not a decoder's 400
  const applied = decodeApplyConfig(type, body, name);
  // how SMD's errors name the object: the body's namespace and name (`objectGVKNN`)
  const describe = `${applied.metadata.namespace ?? ''}/${applied.metadata.name ?? ''}; ${type.group}/${type.version}, Kind=${type.kind}`;
  if (applied.metadata.name !== undefined && applied.metadata.name !== name) {
    throw new ApiError(
      badRequest(
        `the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`,
      ),
    );
  }
  // the configuration as sent (it becomes kubectl's last-applied annotation); name and namespace
  // come from the URL
  const config = clone(applied);
  applied.metadata.name = name;
  engine.checkNamespace(type, applied, namespace);
  const old = live();
  const now = engine.nowIso();
  const custom = !type.builtin || type.schema !== undefined;
  const fmOpts = {
    fieldManager: opts.manager,
    force: opts.force ?? false,
    apiVersion: type.apiVersion,
    now,
    ...(opts.subresource ? { subresource: opts.subresource } : {}),
    resetFields: resetFieldsFor({ ...type, custom }, opts.subresource),
    ...(type.schema ? { schema: type.schema } : {}),
  };
  let merged: Record<string, unknown>;
  try {
    merged =
      versions === undefined
        ? serverSideApply(old, config, fmOpts)
        : serverSideApplyAcrossVersions(old, config, fmOpts, versions);
  } catch (e) {
    if (e instanceof ApplyConflictError)
      throw new ApiError(failure(409, 'Conflict', e.message, { causes: e.causes }));
    if (e instanceof ApplyError) {
      if (e.code === 400) throw new ApiError(badRequest(e.message));
      if (e.what === 'managed fields') throw new ApiError(internalError(e.message));
      throw new ApiError(internalError(`failed to create ${e.what} (${describe}): ${e.detail}`));
    }
    if (e instanceof PatchError)
      throw new ApiError(e.kind === 'invalid' ? invalidGeneric() : badRequest(e.message));
    throw e;
  }
  const candidate = merged as KObj;
  candidate.metadata = isObject(candidate.metadata) ? candidate.metadata : {};
  candidate.metadata.name = name;
  if (applied.metadata.namespace !== undefined) candidate.metadata.namespace = applied.metadata.namespace;
  return { candidate, applied };
}

/** Writes a merged apply as `type` (created when nothing is stored). */
export function commitApply(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  merged: MergedApply,
  opts: ApplyWriteOptions,
): WriteResult {
  const { candidate, applied } = merged;
  const key = engine.keyOf(type, namespace, name);
  const old = engine.store.get(type.storageKey, key);
  if (!old) {
    if (opts.subresource) throw new ApiError(notFound(type, name));
    const uid = applied.metadata.uid;
    if (uid !== undefined && uid !== '') throw new ApiError(uidMismatchOnCreate(type, name, uid));
    return engine.create(type, namespace, candidate, opts, true);
  }
  // the applied uid is merged like any field, so a different one fails as immutable
  if (applied.metadata.uid !== undefined && applied.metadata.uid !== '')
    candidate.metadata.uid = applied.metadata.uid;
  const mf = Array.isArray(candidate.metadata.managedFields) ? candidate.metadata.managedFields : [];
  const rv = applied.metadata.resourceVersion;
  if (rv !== undefined && rv !== old.metadata.resourceVersion) throw new ApiError(conflict(type, name));
  return engine.commitUpdate(type, key, old, sanitize(type, candidate), opts, mf);
}
