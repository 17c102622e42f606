/**
 * Trigger mapping of `controller()`: which request (the `for` object's ref) a watch event of the
 * primary, of an owned child or of a mapped watch stands for. Pure functions; not exported from
 * the package.
 */
import type { KubeObject, ObjectRef, OwnerReference, ResourceType } from '../../types.js';

/** The API group of an apiVersion: `apps/v1` → `apps`, `v1` → `` (the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The request of `resource` named `name` in `namespace` (cluster-scoped when `namespace` is empty). */
export function requestOf(resource: ResourceType, namespace: string | undefined, name: string): ObjectRef {
  return {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    ...(namespace !== undefined && namespace !== '' ? { namespace } : {}),
    name,
  };
}

/** The request of a primary object: its own ref. */
export function requestOfObject(resource: ResourceType, object: KubeObject): ObjectRef {
  return requestOf(resource, object.metadata.namespace, object.metadata.name ?? '');
}

/**
 * The request of an owned child: its controller owner reference (`controller: true`) when that
 * owner is of the `for` kind (same group and kind; any version of the group matches, as
 * controller-runtime's `EnqueueRequestForOwner` with `OnlyControllerOwner` does). The owner is in
 * the child's namespace: Kubernetes only allows namespaced owners from the same namespace.
 */
export function ownerRequestOf(owner: ResourceType, child: KubeObject): ObjectRef | undefined {
  const refs: readonly OwnerReference[] | undefined = child.metadata.ownerReferences;
  if (refs === undefined) return undefined;
  const group = groupOf(owner.apiVersion);
  const ref = refs.find(
    (r) => r.controller === true && r.kind === owner.kind && groupOf(r.apiVersion) === group,
  );
  return ref === undefined ? undefined : requestOf(owner, child.metadata.namespace, ref.name);
}
