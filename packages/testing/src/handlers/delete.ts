/**
 * DELETE as kube-apiserver does it: preconditions, propagation policies (the `orphan` and
 * `foregroundDeletion` finalizers), type finalizers, Terminating namespaces; and the finalizer
 * removals of the namespace controller and the other in-process controllers.
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';
import { ApiError, failure, notFound } from '../status.js';
import type { KObj } from '../store/object.js';
import { clone, deepEqual, isObject } from '../store/object.js';
import type { EngineCore as Engine } from './engine-types.js';
import type { DeleteOptions, DeleteResult } from './engine-types.js';

/** DELETE of one object. */
export function deleteObject(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions,
  gcEnabled: boolean,
): DeleteResult {
  const key = engine.keyOf(type, namespace, name);
  const old = checkDeletable(engine, type, namespace, name, opts);
  if (old.metadata.deletionTimestamp) return { gone: false, object: engine.present(type, old) };
  const finalizers = [...(old.metadata.finalizers ?? [])];
  const policy = opts.propagationPolicy ?? 'Background';
  const extra =
    type.resource === 'namespaces' && type.group === ''
      ? undefined
      : policy === 'Foreground'
        ? 'foregroundDeletion'
        : policy === 'Orphan'
          ? 'orphan'
          : undefined;
  const hasDependents = engine.store.dependentsOf(old.metadata.uid ?? '').length > 0;
  if (extra && (hasDependents || gcEnabled) && !finalizers.includes(extra)) finalizers.push(extra);
  const isNamespace = type.group === '' && type.resource === 'namespaces' && engine.config.namespaceLifecycle;
  for (const f of engine.hooks.deleteFinalizers?.(type, old) ?? [])
    if (!finalizers.includes(f)) finalizers.push(f);
  if (finalizers.length === 0 && !isNamespace) {
    if (opts.dryRun) return { gone: true, last: old };
    const last = engine.removeNow(type, key, clone(old));
    return { gone: true, last };
  }
  const next = clone(old);
  next.metadata.deletionTimestamp = engine.nowIso();
  const plain = isNamespace || type.deleteMarksTimestampOnly === true;
  if (!plain) next.metadata.deletionGracePeriodSeconds = 0;
  if (finalizers.length > 0) next.metadata.finalizers = finalizers;
  if (type.hasGeneration && !plain)
    next.metadata.generation =
      (typeof next.metadata.generation === 'number' ? next.metadata.generation : 1) + 1;
  if (isNamespace) {
    const status = isObject(next['status']) ? next['status'] : {};
    status['phase'] = 'Terminating';
    next['status'] = status;
  }
  engine.hooks.onMarkDeleting?.(type, next);
  if (opts.dryRun) return { gone: false, object: engine.present(type, next) };
  engine.store.update(type.storageKey, key, next);
  engine.hooks.onTerminating?.(type, next);
  return { gone: false, object: engine.present(type, next) };
}

/**
 * What kube-apiserver's registry checks before anything else of a DELETE (`registry/store.go`
 * `Delete`, `rest.BeforeDelete`): the object exists (404) and the preconditions hold (409) —
 * before the admission webhooks are called. Returns the stored object.
 */
export function checkDeletable(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions,
): KObj {
  const old = engine.store.get(type.storageKey, engine.keyOf(type, namespace, name));
  if (!old) throw new ApiError(notFound(type, name));
  const pre = opts.preconditions;
  if (pre?.uid !== undefined && pre.uid !== old.metadata.uid) {
    throw new ApiError(
      failure(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${type.kind} "${name}": the UID in the precondition (${pre.uid}) does not match the UID in record (${old.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
        { name, group: type.group, kind: type.kind },
      ),
    );
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion) {
    throw new ApiError(
      failure(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${type.kind} "${name}": the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${old.metadata.resourceVersion ?? ''}). The object might have been modified`,
        { name, group: type.group, kind: type.kind },
      ),
    );
  }
  return old;
}

/**
 * `PUT namespaces/{name}/finalize`: sets `spec.finalizers` only. When a terminating namespace is
 * left without finalizers it is removed at once; its DELETED event shows the state before
 * (file 20: `spec.finalizers: [kubernetes]`).
 */
export function finalizeNamespace(
  engine: Engine,
  type: ResourceType,
  name: string,
  finalizers: readonly string[],
  manager: string,
): KObj {
  const old = engine.getStored(type, undefined, name);
  const next = clone(old);
  const spec = isObject(next['spec']) ? next['spec'] : {};
  if (finalizers.length > 0) spec['finalizers'] = [...finalizers];
  else delete spec['finalizers'];
  next['spec'] = spec;
  if (deepEqual(next, old)) return engine.present(type, old);
  if (old.metadata.deletionTimestamp && finalizers.length === 0 && !(old.metadata.finalizers?.length ?? 0)) {
    const response = engine.present(type, next);
    engine.removeNow(type, name, clone(old));
    return response;
  }
  engine.controllerUpdate(type, name, next, manager);
  const stored = engine.store.get(type.storageKey, name);
  return engine.present(type, stored ?? next);
}

/** Removes a finalizer from an object (controller `manager`); removes the object when none remain. */
export function removeFinalizer(
  engine: Engine,
  type: ResourceType,
  key: string,
  finalizer: string,
  manager: string,
): void {
  const cur = engine.store.get(type.storageKey, key);
  if (!cur || !(cur.metadata.finalizers ?? []).includes(finalizer)) return;
  const next = clone(cur);
  const rest = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  if (rest.length > 0) next.metadata.finalizers = rest;
  else delete next.metadata.finalizers;
  if (next.metadata.deletionTimestamp && rest.length === 0) {
    engine.removeNow(type, key, clone(cur));
    return;
  }
  engine.controllerUpdate(type, key, next, manager);
}
