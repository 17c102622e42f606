/**
 * CREATE as kube-apiserver does it: the system metadata a client sends is reset, `generateName`
 * is resolved, defaults and the strategy run, then validation, admission and the write (none for a
 * dry run, whose answer has no resourceVersion).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

import { recordUpdate } from '../apply/field-manager.js';
import type { ResourceType } from '../registry/types.js';
import { alreadyExists, ApiError } from '../status.js';
import type { KObj } from '../store/object.js';
import { checkNamespace, sanitize } from './decode.js';
import type { EngineCore as Engine } from './engine-types.js';
import type { WriteAttributes, WriteOptions, WriteResult } from './engine-types.js';
import { checkManagedFields, fieldManagerType } from './field-manager-options.js';
import { checkNamespaceForCreate, validateCreate } from './validate-write.js';

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Metadata the server owns: whatever a create request carries is dropped (`rest.FillObjectMetaSystemFields`). */
const CREATE_RESET_META = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
] as const;

/**
 * Creates an object from its wire form (TypeMeta already checked). `applied` marks a create by
 * server-side apply (managedFields already computed).
 */
export function createObject(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  body: KObj,
  opts: WriteOptions,
  applied: boolean,
): WriteResult {
  checkNamespace(type, body, namespace);
  // the request's managedFields are honoured (kept when they decode, reset with `[{}]`)
  const requested = body.metadata.managedFields;
  const obj = sanitize(type, body);
  for (const k of CREATE_RESET_META) delete obj.metadata[k];
  if (type.hasStatus && !type.builtin) delete obj['status'];
  // a Namespace and a Node (a kubelet registers with its status) keep the status they are created with
  if (
    type.hasStatus &&
    type.builtin &&
    !(type.group === '' && ['namespaces', 'nodes'].includes(type.resource))
  )
    delete obj['status'];
  const nameForErrors = obj.metadata.name ?? obj.metadata.generateName ?? '';
  if (!obj.metadata.name && obj.metadata.generateName) {
    obj.metadata.name = generateName(engine, type, namespace, obj.metadata.generateName);
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
    ...(opts.dryRun === true ? { dryRun: true } : {}),
  };
  engine.hooks.beforeValidate?.(write);
  validateCreate(engine, type, obj);
  const name = obj.metadata.name ?? '';
  checkNamespaceForCreate(engine, type, namespace, name || nameForErrors);
  engine.hooks.admit?.(write);
  const key = engine.keyOf(type, namespace, name);
  if (engine.store.get(type.storageKey, key)) throw new ApiError(alreadyExists(type, name));
  const now = engine.nowIso();
  obj.metadata.uid = randomUUID();
  obj.metadata.creationTimestamp = now;
  if (type.hasGeneration) obj.metadata.generation = 1;
  if (opts.managedFields !== undefined) {
    // computed in the request's version (a create in a non-storage version)
    obj.metadata.managedFields = [...opts.managedFields];
    checkManagedFields(type, obj, 1);
  } else if (!applied) {
    obj.metadata.managedFields = recordUpdate(
      undefined,
      { ...obj, metadata: { ...obj.metadata, managedFields: requested } },
      { fieldManager: opts.manager, apiVersion: type.apiVersion, now, ...fieldManagerType(type, undefined) },
    );
    checkManagedFields(type, obj, 1);
  }
  // strategy changes after the field manager ran: not owned by the writer
  type.prepare?.(obj, undefined);
  if (Array.isArray(obj.metadata.managedFields) && obj.metadata.managedFields.length === 0)
    delete obj.metadata.managedFields;
  const stored = type.toStorage(obj);
  // a dry-run create has no resourceVersion: nothing was written (the storage sets it)
  if (opts.dryRun) return { code: 201, object: engine.present(type, stored) };
  engine.store.create(type.storageKey, key, stored);
  return { code: 201, object: engine.present(type, stored) };
}

/** `names.SimpleNameGenerator`: the prefix cut to 58 characters and 5 random characters. */
function generateName(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  prefix: string,
): string {
  const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  for (let attempt = 0; attempt < 8; attempt++) {
    let s = '';
    for (let i = 0; i < 5; i++)
      s += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)] ?? 'x';
    const name = base + s;
    if (!engine.store.get(type.storageKey, engine.keyOf(type, namespace, name))) return name;
  }
  return base + 'zzzzz';
}
