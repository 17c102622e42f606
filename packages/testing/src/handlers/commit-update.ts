/**
 * The write of an existing object, shared by PUT, every patch type, server-side apply and the
 * `scale` subresource: the status-subresource rules, the system fields `rest.BeforeUpdate`
 * restores, validation and admission, no-op detection, managedFields and the generation rules.
 *
 * @module
 */
import { recordUpdate } from '../apply/field-manager.js';
import type { ResourceType } from '../registry/types.js';
import type { Json, KObj } from '../store/object.js';
import { clone, deepEqual, isObject } from '../store/object.js';
import type { EngineCore as Engine } from './engine-types.js';
import type { WriteAttributes, WriteOptions, WriteResult } from './engine-types.js';
import { checkManagedFields, fieldManagerType } from './field-manager-options.js';
import { validateUpdate } from './validate-write.js';

/**
 * Turns a full candidate (wire form) into the next stored state and writes it, applying the
 * status-subresource rules, finalizer rules, validation, no-op detection, generation and
 * managedFields. `appliedManagedFields` carries managedFields computed by server-side apply.
 */
export function commitUpdate(
  engine: Engine,
  type: ResourceType,
  key: string,
  old: KObj,
  candidate: KObj,
  opts: WriteOptions,
  appliedManagedFields: unknown[] | undefined,
  requestedManagedFields?: unknown,
): WriteResult {
  const oldWire = type.fromStorage(old);
  const statusWrite = type.hasStatus && opts.subresource === 'status';
  const next = statusWrite
    ? statusCandidate(type, oldWire, candidate)
    : mainCandidate(type, oldWire, candidate);
  keepSystemFields(next.metadata, oldWire.metadata);
  next.metadata.resourceVersion = old.metadata.resourceVersion;
  type.defaults?.(next);
  type.prepare?.(next, oldWire);
  const write: WriteAttributes = {
    operation: 'UPDATE',
    type,
    namespace: oldWire.metadata.namespace,
    name: oldWire.metadata.name ?? '',
    subresource: opts.subresource,
    object: next,
    oldObject: oldWire,
    user: opts.user,
    createOnUpdate: false,
  };
  engine.hooks.beforeValidate?.(write);
  validateUpdate(engine, type, next, oldWire, statusWrite);
  engine.hooks.admit?.(write);
  if (Array.isArray(next.metadata.finalizers) && next.metadata.finalizers.length === 0)
    delete next.metadata.finalizers;
  const sameContent = deepEqual(withoutVersioning(next), withoutVersioning(oldWire));
  if (appliedManagedFields) {
    next.metadata.managedFields = appliedManagedFields;
    if (
      sameContent &&
      deepEqual(withoutTimes(appliedManagedFields), withoutTimes(oldWire.metadata.managedFields))
    ) {
      return { code: 200, object: engine.present(type, old) };
    }
  } else if (opts.managedFields !== undefined) {
    // computed in the request's version (a PUT or patch in a non-storage version)
    const mf = [...opts.managedFields];
    if (sameContent && deepEqual(mf, oldWire.metadata.managedFields ?? []))
      return { code: 200, object: engine.present(type, old) };
    next.metadata.managedFields = mf;
    checkManagedFields(type, next, type.group === '' ? 4 : 3);
  } else {
    // the request's managedFields are honoured (kept, reset with `[{}]`): a write of them alone is a write
    const requested =
      requestedManagedFields === undefined ? oldWire.metadata.managedFields : requestedManagedFields;
    if (sameContent && deepEqual(requested, oldWire.metadata.managedFields))
      return { code: 200, object: engine.present(type, old) };
    const mf = recordUpdate(
      oldWire,
      { ...next, metadata: { ...next.metadata, managedFields: requested } },
      {
        fieldManager: opts.manager,
        apiVersion: type.apiVersion,
        now: engine.nowIso(),
        ...(opts.subresource ? { subresource: opts.subresource } : {}),
        ...fieldManagerType(type, opts.subresource),
      },
    );
    if (sameContent && deepEqual(mf, oldWire.metadata.managedFields ?? []))
      return { code: 200, object: engine.present(type, old) };
    next.metadata.managedFields = mf;
    checkManagedFields(type, next, type.group === '' ? 4 : 3);
  }
  if (Array.isArray(next.metadata.managedFields) && next.metadata.managedFields.length === 0)
    delete next.metadata.managedFields;
  // status strategies never touch generation (a built-in's /status may change metadata too)
  if (type.hasGeneration && !sameContent && opts.subresource !== 'status') {
    const specChanged =
      !deepEqual(contentOf(next, type.hasStatus), contentOf(oldWire, type.hasStatus)) ||
      (type.generationChanged?.(next, oldWire) ?? false);
    const gen = typeof oldWire.metadata.generation === 'number' ? oldWire.metadata.generation : 1;
    next.metadata.generation = specChanged ? gen + 1 : gen;
  }
  const stored = type.toStorage(next);
  if (opts.dryRun) return { code: 200, object: engine.present(type, stored) };
  if (stored.metadata.deletionTimestamp && !(stored.metadata.finalizers?.length ?? 0)) {
    // the last finalizer went away: the object is removed; DELETED carries the previous state
    const response = engine.present(type, stored);
    engine.removeNow(type, key, clone(old));
    return { code: 200, object: response };
  }
  engine.store.update(type.storageKey, key, stored);
  return { code: 200, object: engine.present(type, stored) };
}

/**
 * The status strategy's PrepareForUpdate: everything but status (and, for built-ins, the request's
 * metadata minus what the type resets) comes from the stored object.
 */
function statusCandidate(type: ResourceType, oldWire: KObj, candidate: KObj): KObj {
  const next = clone(oldWire);
  if (candidate['status'] === undefined) delete next['status'];
  else next['status'] = clone(candidate['status']);
  if (type.builtin) {
    const meta = { ...candidate.metadata };
    for (const k of type.statusKeeps ?? []) {
      if (oldWire.metadata[k] === undefined) delete meta[k];
      else meta[k] = oldWire.metadata[k] as never;
    }
    next.metadata = meta;
  }
  return next;
}

/** A main-resource write of a type with a status subresource keeps the stored status. */
function mainCandidate(type: ResourceType, oldWire: KObj, candidate: KObj): KObj {
  if (type.hasStatus) {
    if (oldWire['status'] === undefined) delete candidate['status'];
    else candidate['status'] = clone(oldWire['status']);
  }
  return candidate;
}

/**
 * What `rest.BeforeUpdate` resets before validating: generation and creationTimestamp always come
 * from the stored object, uid when the request has none, deletionTimestamp once set, a grace period
 * the request omits. Other differences (uid, deletionTimestamp, grace period) fail validation.
 */
function keepSystemFields(m: KObj['metadata'], om: KObj['metadata']): void {
  m.name = om.name;
  if (om.namespace !== undefined) m.namespace = om.namespace;
  else delete m.namespace;
  if (m.uid === undefined || m.uid === '') m.uid = om.uid;
  m.creationTimestamp = om.creationTimestamp;
  if (om.generateName !== undefined && m.generateName === undefined) m.generateName = om.generateName;
  if (om.generation !== undefined) m.generation = om.generation;
  else delete m.generation;
  if (om.deletionTimestamp !== undefined) m.deletionTimestamp = om.deletionTimestamp;
  if (om.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds === undefined)
    m.deletionGracePeriodSeconds = om.deletionGracePeriodSeconds;
  if (!Array.isArray(m.managedFields)) m.managedFields = om.managedFields;
}

/** The object without managedFields and resourceVersion: what a no-op write leaves equal. */
function withoutVersioning(o: KObj): KObj {
  const c: KObj = { ...o, metadata: { ...o.metadata } };
  delete c.metadata.managedFields;
  delete c.metadata.resourceVersion;
  return c;
}

/**
 * What the generation follows by default: everything but metadata, and but status when the type has
 * a status subresource (a custom resource without one bumps on status changes too:
 * apiextensions-apiserver customresource strategy PrepareForUpdate).
 */
function contentOf(o: KObj, hasStatus: boolean): Json {
  const { metadata: _m, ...rest } = o;
  if (hasStatus) delete rest['status'];
  return rest;
}

function withoutTimes(mf: unknown): unknown {
  if (!Array.isArray(mf)) return [];
  return mf.map((e: unknown) => (isObject(e) ? { ...e, time: undefined } : e));
}
