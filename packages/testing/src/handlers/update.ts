/**
 * PUT as kube-apiserver checks it before the write: the name in the body against the URL, the
 * body's uid as a storage precondition, create-on-update, the resourceVersion a type requires and
 * its 409; and the `scale` subresource's write of `spec.replicas`. The write itself is
 * {@link commitUpdate}.
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';
import {
  ApiError,
  badRequest,
  conflict,
  invalidResource,
  notFound,
  uidPreconditionFailed,
} from '../status.js';
import type { KObj } from '../store/object.js';
import { clone, isObject } from '../store/object.js';
import { commitUpdate } from './commit-update.js';
import { parseResourceVersion } from './continue-token.js';
import { checkNamespace, sanitize } from './decode.js';
import type { EngineCore as Engine } from './engine-types.js';
import type { WriteOptions, WriteResult } from './engine-types.js';
import { nameUndeterminable } from './patch-body.js';

/** PUT (main resource or /status). */
export function updateObject(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  body: KObj,
  opts: WriteOptions,
): WriteResult {
  if (body.metadata.name === undefined || body.metadata.name === '') throw nameUndeterminable(name);
  if (body.metadata.name !== name) {
    throw new ApiError(
      badRequest(
        `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
      ),
    );
  }
  body.metadata.name = name;
  checkNamespace(type, body, namespace);
  const key = engine.keyOf(type, namespace, name);
  const old = engine.store.get(type.storageKey, key);
  const rvText = body.metadata.resourceVersion;
  if (rvText !== undefined && rvText !== '') parseResourceVersion(rvText);
  // the body's uid is a storage precondition of the update, checked before the resourceVersion
  // (and against "no object" by a create-on-update)
  const uid = body.metadata.uid;
  if (uid !== undefined && uid !== '' && uid !== old?.metadata.uid && (old || type.allowCreateOnUpdate)) {
    throw new ApiError(
      uidPreconditionFailed(type, name, engine.etcdKey(type, namespace, name), uid, old?.metadata.uid ?? ''),
    );
  }
  if (!old) {
    if (type.allowCreateOnUpdate && opts.subresource === undefined) {
      delete body.metadata.resourceVersion;
      return engine.create(type, namespace, body, { ...opts, createOnUpdate: true });
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
  const requested = body.metadata.managedFields;
  const candidate = sanitize(type, body);
  return commitUpdate(engine, type, key, old, candidate, opts, undefined, requested);
}

/**
 * A write of `spec.replicas` through the `scale` subresource (autoscaling/v1 Scale): 409 on a
 * stale `resourceVersion`, 422 for a negative count; recorded with `subresource: scale`.
 */
export function updateScale(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  replicas: number,
  resourceVersion: string | undefined,
  opts: WriteOptions,
): WriteResult {
  const key = engine.keyOf(type, namespace, name);
  const old = engine.getStored(type, namespace, name);
  if (resourceVersion !== undefined && resourceVersion !== '') {
    parseResourceVersion(resourceVersion);
    if (resourceVersion !== old.metadata.resourceVersion) throw new ApiError(conflict(type, name));
  }
  const candidate = clone(type.fromStorage(old));
  const spec = isObject(candidate['spec']) ? candidate['spec'] : {};
  spec['replicas'] = replicas;
  candidate['spec'] = spec;
  return commitUpdate(engine, type, key, old, candidate, { ...opts, subresource: 'scale' }, undefined);
}
