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
import { recordUpdate } from '../apply/field-manager.js';
import type { ResourceType } from '../registry/types.js';
import { ApiError, notFound } from '../status.js';
import type { KObj } from '../store/object.js';
import { rfc3339, sortKeys } from '../store/object.js';
import type { ObjectStore } from '../store/store.js';
import { objectKey } from '../store/store.js';
import { commitUpdate } from './commit-update.js';
import { createObject } from './create.js';
import { checkNamespace, checkTypeMeta, decodeBody } from './decode.js';
import { deleteObject, finalizeNamespace, removeFinalizer } from './delete.js';
import type {
  DeleteOptions,
  DeleteResult,
  EngineConfig,
  EngineCore,
  EngineHooks,
  ListOptions,
  ListResult,
  Selectors,
  WriteOptions,
  WriteResult,
} from './engine-types.js';
import { fieldManagerType } from './field-manager-options.js';
import { listObjects, matchesSelectors, parseSelectors } from './list.js';
import { patchObject } from './patch.js';
import { updateObject, updateScale } from './update.js';

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
export { encodeContinue, parseResourceVersion } from './continue-token.js';

/** The object semantics. */
export class Engine implements EngineCore {
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

  /** The object's etcd key as storage errors name it (`/registry/configmaps/ns/name`). */
  etcdKey(type: ResourceType, namespace: string | undefined, name: string): string {
    const prefix = type.etcdPrefix ?? `/registry/${type.resource}`;
    return type.namespaced && namespace !== undefined
      ? `${prefix}/${namespace}/${name}`
      : `${prefix}/${name}`;
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

  // ---------------------------------------------------------------- create (create.ts)

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
    return createObject(this, type, namespace, body, opts, applied);
  }

  // ---------------------------------------------------------------- update (update.ts, commit-update.ts)

  /** PUT (main resource or /status). */
  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: KObj,
    opts: WriteOptions,
  ): WriteResult {
    return updateObject(this, type, namespace, name, body, opts);
  }

  /**
   * Turns a full candidate (wire form) into the next stored state and writes it (see
   * {@link commitUpdate}). For the write paths of this folder (patch.ts) only.
   */
  commitUpdate(
    type: ResourceType,
    key: string,
    old: KObj,
    candidate: KObj,
    opts: WriteOptions,
    appliedManagedFields: unknown[] | undefined,
    requestedManagedFields?: unknown,
  ): WriteResult {
    return commitUpdate(this, type, key, old, candidate, opts, appliedManagedFields, requestedManagedFields);
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
        fieldManager: manager,
        apiVersion: type.apiVersion,
        now: this.nowIso(),
        ...(subresource ? { subresource } : {}),
        ...fieldManagerType(type, subresource),
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
    shardSelector?: string | null,
  ): Selectors {
    return parseSelectors(type, labelSelector, fieldSelector, shardSelector);
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

  // ---------------------------------------------------------------- scale (update.ts)

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
    return updateScale(this, type, namespace, name, replicas, resourceVersion, opts);
  }
}
