/**
 * The object semantics of kube-apiserver, independent of HTTP: create, get, list, update, patch,
 * server-side apply, the status subresource, generation, no-op writes, delete with preconditions,
 * propagation policies and finalizers, deletecollection. Every failure is an {@link ApiError}
 * carrying the real Status.
 *
 * Used by the HTTP handlers, the controllers (GC, namespaces, CRDs) and the test state helpers.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

import { recordUpdate } from '../apply/field-manager.js';
import type { ResourceType } from '../registry/types.js';
import type { StatusCause } from '../status.js';
import {
  alreadyExists,
  ApiError,
  badRequest,
  conflict,
  invalid,
  invalidResource,
  namespaceTerminating,
  notFound,
} from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { clone, deepEqual, isObject, rfc3339, sortKeys } from '../store/object.js';
import type { ObjectStore } from '../store/store.js';
import { objectKey } from '../store/store.js';
import { validateAgainstSchema } from '../validation/schema.js';
import { validateObjectName } from '../validation/names.js';
import { parseResourceVersion } from './continue-token.js';
import { checkNamespace, checkTypeMeta, decodeBody, sanitize } from './decode.js';
import { deleteObject, finalizeNamespace, removeFinalizer } from './delete.js';
import type {
  DeleteOptions,
  DeleteResult,
  EngineConfig,
  EngineHooks,
  ListOptions,
  ListResult,
  Selectors,
  WriteAttributes,
  WriteOptions,
  WriteResult,
} from './engine-types.js';
import { listObjects, matchesSelectors, parseSelectors } from './list.js';
import { patchObject } from './patch.js';

export type {
  DeleteOptions,
  DeleteResult,
  EngineConfig,
  EngineHooks,
  ListOptions,
  ListResult,
  Selectors,
  WriteAttributes,
  WriteOptions,
  WriteResult,
} from './engine-types.js';
export { applyConflict } from './apply-conflict.js';
export { encodeContinue, parseResourceVersion } from './continue-token.js';

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const CREATE_RESET_META = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
] as const;

/** The object semantics. */
export class Engine {
  hooks: EngineHooks = {};

  constructor(
    readonly store: ObjectStore,
    readonly config: EngineConfig,
  ) {}

  /** RFC 3339 seconds of now. */
  nowIso(): string {
    return rfc3339(this.config.now());
  }

  /** Key of an object of a type. */
  keyOf(type: ResourceType, namespace: string | undefined, name: string): string {
    return objectKey(type.namespaced ? namespace : undefined, name);
  }

  /** Converts a stored object to the type's wire form. */
  present(type: ResourceType, stored: KObj): KObj {
    const wire = type.fromStorage(stored);
    return type.builtin ? wire : (sortKeys(wire) as KObj);
  }

  /** The stored object or 404. */
  getStored(type: ResourceType, namespace: string | undefined, name: string): KObj {
    const o = this.store.get(type.storageKey, this.keyOf(type, namespace, name));
    if (!o) throw new ApiError(notFound(type, name));
    return o;
  }

  // ---------------------------------------------------------------- decoding (decode.ts)

  /** Parses a JSON (or YAML) request body into an object; 400 like the real decoder. */
  decode(type: ResourceType, body: Buffer, yaml = false): KObj {
    return decodeBody(type, body, yaml);
  }

  /** 400 when the body's kind/apiVersion do not match the URL; fills them in when absent. */
  checkTypeMeta(type: ResourceType, obj: KObj): void {
    checkTypeMeta(type, obj);
  }

  /** 400 when the body's namespace differs from the URL's; sets it otherwise. */
  checkNamespace(type: ResourceType, obj: KObj, namespace: string | undefined): void {
    checkNamespace(type, obj, namespace);
  }

  /** Validation: name, labels, type rules, schema, hooks. Throws 422. */
  private validate(type: ResourceType, obj: KObj, old: KObj | undefined): void {
    const causes: StatusCause[] = [];
    if (!old) causes.push(...validateObjectName(obj.metadata.name, type.nameRule, obj.metadata.generateName));
    causes.push(...(type.validate?.(obj) ?? []));
    if (type.schema) {
      const { kind: _k, apiVersion: _a, metadata: _m, ...rest } = obj;
      causes.push(...validateAgainstSchema(rest, type.schema, ''));
    }
    causes.push(...(this.hooks.validate?.(type, obj, old) ?? []));
    if (causes.length > 0) throw new ApiError(invalid(type.invalidKind ?? type, obj.metadata.name, causes));
  }

  private checkNamespaceForCreate(type: ResourceType, namespace: string | undefined, name: string): void {
    if (!type.namespaced || !this.config.namespaceLifecycle || namespace === undefined) return;
    const ns = this.store.get('/namespaces', namespace);
    if (!ns) throw new ApiError(notFound({ group: '', resource: 'namespaces' }, namespace));
    const phase = (ns['status'] as Json | undefined)?.['phase'];
    if (ns.metadata.deletionTimestamp || phase === 'Terminating') {
      throw new ApiError(namespaceTerminating(type, name, namespace));
    }
  }

  // ---------------------------------------------------------------- create

  /**
   * Creates an object from its wire form (TypeMeta already checked). `applied` marks a create by
   * server-side apply (managedFields already computed).
   */
  create(
    type: ResourceType,
    namespace: string | undefined,
    body: KObj,
    opts: WriteOptions,
    applied = false,
  ): WriteResult {
    this.checkNamespace(type, body, namespace);
    const obj = sanitize(type, body);
    for (const k of CREATE_RESET_META) delete obj.metadata[k];
    if (type.hasStatus && !type.builtin) delete obj['status'];
    if (type.hasStatus && type.builtin && type.resource !== 'namespaces') delete obj['status'];
    const nameForErrors = obj.metadata.name ?? obj.metadata.generateName ?? '';
    if (!obj.metadata.name && obj.metadata.generateName) {
      obj.metadata.name = this.generateName(type, namespace, obj.metadata.generateName);
    }
    type.defaults?.(obj);
    const write: WriteAttributes = {
      operation: 'CREATE',
      type,
      namespace: type.namespaced ? namespace : undefined,
      name: obj.metadata.name ?? '',
      subresource: undefined,
      object: obj,
      oldObject: undefined,
      user: opts.user,
      createOnUpdate: applied || opts.createOnUpdate === true,
    };
    this.hooks.beforeValidate?.(write);
    this.validate(type, obj, undefined);
    const name = obj.metadata.name ?? '';
    this.checkNamespaceForCreate(type, namespace, name || nameForErrors);
    this.hooks.admit?.(write);
    const key = this.keyOf(type, namespace, name);
    if (this.store.get(type.storageKey, key)) throw new ApiError(alreadyExists(type, name));
    const now = this.nowIso();
    obj.metadata.uid = randomUUID();
    obj.metadata.creationTimestamp = now;
    if (type.hasGeneration) obj.metadata.generation = 1;
    if (!applied) {
      delete obj.metadata.managedFields;
      obj.metadata.managedFields = recordUpdate(undefined, obj, {
        manager: opts.manager,
        apiVersion: type.apiVersion,
        now,
      });
    }
    // strategy changes after the field manager ran: not owned by the writer
    type.prepare?.(obj, undefined);
    if (Array.isArray(obj.metadata.managedFields) && obj.metadata.managedFields.length === 0)
      delete obj.metadata.managedFields;
    const stored = type.toStorage(obj);
    if (opts.dryRun) {
      stored.metadata.resourceVersion = String(this.store.resourceVersion);
      return { code: 201, object: this.present(type, stored) };
    }
    this.store.create(type.storageKey, key, stored);
    return { code: 201, object: this.present(type, stored) };
  }

  private generateName(type: ResourceType, namespace: string | undefined, prefix: string): string {
    const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
    for (let attempt = 0; attempt < 8; attempt++) {
      let s = '';
      for (let i = 0; i < 5; i++)
        s += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)] ?? 'x';
      const name = base + s;
      if (!this.store.get(type.storageKey, this.keyOf(type, namespace, name))) return name;
    }
    return base + 'zzzzz';
  }

  // ---------------------------------------------------------------- update

  /** PUT (main resource or /status). */
  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: KObj,
    opts: WriteOptions,
  ): WriteResult {
    if (body.metadata.name !== undefined && body.metadata.name !== name) {
      throw new ApiError(
        badRequest(
          `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
        ),
      );
    }
    body.metadata.name = name;
    this.checkNamespace(type, body, namespace);
    const key = this.keyOf(type, namespace, name);
    const old = this.store.get(type.storageKey, key);
    const rvText = body.metadata.resourceVersion;
    if (rvText !== undefined && rvText !== '') parseResourceVersion(rvText);
    if (!old) {
      if (type.allowCreateOnUpdate && opts.subresource === undefined) {
        delete body.metadata.resourceVersion;
        return this.create(type, namespace, body, { ...opts, createOnUpdate: true });
      }
      throw new ApiError(notFound(type, name));
    }
    if ((rvText === undefined || rvText === '') && !type.allowUnconditionalUpdate) {
      throw new ApiError(
        invalidResource(type, name, [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ]),
      );
    }
    if (rvText !== undefined && rvText !== '' && rvText !== old.metadata.resourceVersion) {
      throw new ApiError(conflict(type, name));
    }
    const candidate = sanitize(type, body);
    return this.commitUpdate(type, key, old, candidate, opts, undefined);
  }

  /**
   * Turns a full candidate (wire form) into the next stored state and writes it, applying the
   * status-subresource rules, finalizer rules, validation, no-op detection, generation and
   * managedFields. `applied` carries managedFields computed by server-side apply. For the write
   * paths of this folder (patch.ts) only.
   */
  commitUpdate(
    type: ResourceType,
    key: string,
    old: KObj,
    candidate: KObj,
    opts: WriteOptions,
    appliedManagedFields: unknown[] | undefined,
  ): WriteResult {
    const oldWire = type.fromStorage(old);
    let next: KObj;
    if (type.hasStatus && opts.subresource === 'status') {
      next = clone(oldWire);
      if (candidate['status'] === undefined) delete next['status'];
      else next['status'] = clone(candidate['status']);
    } else {
      next = candidate;
      if (type.hasStatus) {
        if (oldWire['status'] === undefined) delete next['status'];
        else next['status'] = clone(oldWire['status']);
      }
      const m = next.metadata;
      const om = oldWire.metadata;
      m.name = om.name;
      if (om.namespace !== undefined) m.namespace = om.namespace;
      else delete m.namespace;
      m.uid = om.uid;
      m.creationTimestamp = om.creationTimestamp;
      if (om.generateName !== undefined && m.generateName === undefined) m.generateName = om.generateName;
      for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
        if (om[k] !== undefined) m[k] = om[k] as never;
        else delete m[k];
      }
      if (!Array.isArray(m.managedFields)) m.managedFields = om.managedFields;
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    type.defaults?.(next);
    type.prepare?.(next, oldWire);
    if (oldWire.metadata.deletionTimestamp) {
      const before = new Set(oldWire.metadata.finalizers ?? []);
      const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0) {
        const msg = `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
        const cause = { reason: 'FieldValueForbidden', message: msg, field: 'metadata.finalizers' };
        // Quirk 4, copied: v1.24 validates ObjectMeta twice on update (validateCommonFields and the
        // strategy), so the cause is listed twice; the message shows it once (ToAggregate dedupes).
        throw new ApiError(invalid(type.invalidKind ?? type, next.metadata.name, [cause, { ...cause }]));
      }
    }
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
    this.hooks.beforeValidate?.(write);
    this.validate(type, next, old);
    this.hooks.admit?.(write);
    if (Array.isArray(next.metadata.finalizers) && next.metadata.finalizers.length === 0)
      delete next.metadata.finalizers;
    const strip = (o: KObj): KObj => {
      const c: KObj = { ...o, metadata: { ...o.metadata } };
      delete c.metadata.managedFields;
      delete c.metadata.resourceVersion;
      return c;
    };
    const sameContent = deepEqual(strip(next), strip(oldWire));
    const now = this.nowIso();
    if (appliedManagedFields) {
      next.metadata.managedFields = appliedManagedFields;
      if (
        sameContent &&
        deepEqual(withoutTimes(appliedManagedFields), withoutTimes(oldWire.metadata.managedFields))
      ) {
        return { code: 200, object: this.present(type, old) };
      }
    } else {
      if (sameContent) return { code: 200, object: this.present(type, old) };
      const prevForFm: KObj = { ...oldWire };
      const nextForFm: KObj = {
        ...next,
        metadata: { ...next.metadata, managedFields: oldWire.metadata.managedFields },
      };
      const mf = recordUpdate(prevForFm, nextForFm, {
        manager: opts.manager,
        apiVersion: type.apiVersion,
        now,
        ...(opts.subresource ? { subresource: opts.subresource } : {}),
      });
      next.metadata.managedFields = mf;
    }
    if (Array.isArray(next.metadata.managedFields) && next.metadata.managedFields.length === 0)
      delete next.metadata.managedFields;
    if (type.hasGeneration && !sameContent) {
      const specChanged =
        !deepEqual(contentOf(next), contentOf(oldWire)) || (type.generationChanged?.(next, oldWire) ?? false);
      const gen = typeof oldWire.metadata.generation === 'number' ? oldWire.metadata.generation : 1;
      next.metadata.generation = specChanged ? gen + 1 : gen;
    }
    const stored = type.toStorage(next);
    if (opts.dryRun) return { code: 200, object: this.present(type, stored) };
    if (stored.metadata.deletionTimestamp && !(stored.metadata.finalizers?.length ?? 0)) {
      // the last finalizer went away: the object is removed; DELETED carries the previous state
      const response = this.present(type, stored);
      this.removeNow(type, key, clone(old));
      return { code: 200, object: response };
    }
    this.store.update(type.storageKey, key, stored);
    return { code: 200, object: this.present(type, stored) };
  }

  /**
   * Stores a controller's write (garbage collector, namespace controller, CRD status) as an
   * ordinary `Update` by `manager`, so managedFields change as on the real server: the fields it
   * changed move to its entry, and a manager that only removed fields gets no entry (file 14).
   * `next` is in storage form; nothing happens when the object is gone.
   */
  controllerUpdate(
    type: ResourceType,
    key: string,
    next: KObj,
    manager: string,
    subresource?: 'status',
  ): void {
    const old = this.store.get(type.storageKey, key);
    if (!old) return;
    const oldWire = type.fromStorage(old);
    const nextWire = type.fromStorage(next);
    const managedFields = recordUpdate(
      oldWire,
      { ...nextWire, metadata: { ...nextWire.metadata, managedFields: oldWire.metadata.managedFields } },
      {
        manager,
        apiVersion: type.apiVersion,
        now: this.nowIso(),
        ...(subresource ? { subresource } : {}),
      },
    );
    if (managedFields.length > 0) next.metadata.managedFields = managedFields;
    else delete next.metadata.managedFields;
    this.store.update(type.storageKey, key, next);
  }

  /** Removes an object now (DELETED with `last` at the new revision) and runs the removal hook. */
  removeNow(type: ResourceType, key: string, last: KObj): KObj {
    const ev = this.store.remove(type.storageKey, key, last);
    this.hooks.onRemoved?.(type, ev.object);
    return ev.object;
  }

  // ---------------------------------------------------------------- patch (patch.ts)

  /** PATCH with any supported content type (apply included). */
  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: Buffer,
    opts: WriteOptions & { force?: boolean; fieldManagerGiven: boolean },
  ): WriteResult {
    return patchObject(this, type, namespace, name, contentType, body, opts);
  }

  // ---------------------------------------------------------------- read (list.ts)

  /** Parses selectors (400 on bad input). */
  selectors(
    type: ResourceType,
    labelSelector: string | null | undefined,
    fieldSelector: string | null | undefined,
  ): Selectors {
    return parseSelectors(type, labelSelector, fieldSelector);
  }

  /** Whether a stored object matches selectors. */
  matches(type: ResourceType, sel: Selectors, o: KObj): boolean {
    return matchesSelectors(type, sel, o);
  }

  /** LIST with selectors, pagination, resourceVersion semantics. Items in storage form. */
  list(type: ResourceType, namespace: string | undefined, q: ListOptions): ListResult {
    return listObjects(this, type, namespace, q);
  }

  /** Whether reads at `rv` are no longer possible (compacted, or superseded longer than the TTL ago). */
  isExpired(rv: number): boolean {
    if (rv < this.store.compactedRevision) return true;
    return false;
  }

  // ---------------------------------------------------------------- delete (delete.ts)

  /** DELETE of one object. */
  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions,
    gcEnabled: boolean,
  ): DeleteResult {
    return deleteObject(this, type, namespace, name, opts, gcEnabled);
  }

  /**
   * `PUT namespaces/{name}/finalize`: sets `spec.finalizers` only. When a terminating namespace is
   * left without finalizers it is removed at once; its DELETED event shows the state before
   * (file 20: `spec.finalizers: [kubernetes]`).
   */
  finalizeNamespace(type: ResourceType, name: string, finalizers: readonly string[], manager: string): KObj {
    return finalizeNamespace(this, type, name, finalizers, manager);
  }

  /** Removes a finalizer from an object (controller `manager`); removes the object when none remain. */
  removeFinalizer(type: ResourceType, key: string, finalizer: string, manager: string): void {
    removeFinalizer(this, type, key, finalizer, manager);
  }

  // ---------------------------------------------------------------- scale

  /**
   * A write of `spec.replicas` through the `scale` subresource (autoscaling/v1 Scale): 409 on a
   * stale `resourceVersion`, 422 for a negative count; recorded with `subresource: scale`.
   */
  updateScale(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    replicas: number,
    resourceVersion: string | undefined,
    opts: WriteOptions,
  ): WriteResult {
    const key = this.keyOf(type, namespace, name);
    const old = this.getStored(type, namespace, name);
    if (resourceVersion !== undefined && resourceVersion !== '') {
      parseResourceVersion(resourceVersion);
      if (resourceVersion !== old.metadata.resourceVersion) throw new ApiError(conflict(type, name));
    }
    const candidate = clone(type.fromStorage(old));
    const spec = isObject(candidate['spec']) ? candidate['spec'] : {};
    spec['replicas'] = replicas;
    candidate['spec'] = spec;
    return this.commitUpdate(type, key, old, candidate, { ...opts, subresource: 'scale' }, undefined);
  }
}

function contentOf(o: KObj): Json {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
}

function withoutTimes(mf: unknown): unknown {
  if (!Array.isArray(mf)) return [];
  return mf.map((e: unknown) => (isObject(e) ? { ...e, time: undefined } : e));
}
