/**
 * The `owns` combinations that cannot work (issue 18 §1): a cluster-scoped child kind under a
 * namespaced `for` kind. Kubernetes does not let a cluster-scoped object have a namespaced owner
 * (the garbage collector ignores such a reference), so the child's events could never name one.
 *
 * Checked twice: when `controller()` is called, for the built-in kinds whose scope Kubernetes
 * fixes ({@link BUILTIN_NAMESPACED}); and through discovery once the controller runs (a bare
 * controller) or starts (`Manager.start()`), for the kinds the table does not know (custom
 * resources). Both refuse with the same `InvalidArgumentError`.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import type { ResourceType } from '../types.js';

/**
 * Scope of Kubernetes' built-in kinds (v1.24; the same in every later release), keyed by
 * `group/Kind` (`/Kind` for core): `true` namespaced, `false` cluster-scoped. A kind's scope never
 * changes between versions of its group.
 */
const BUILTIN_NAMESPACED: ReadonlyMap<string, boolean> = new Map([
  ...[
    '/ConfigMap',
    '/Secret',
    '/Pod',
    '/Service',
    '/ServiceAccount',
    '/PersistentVolumeClaim',
    '/Endpoints',
    '/Event',
    '/ResourceQuota',
    '/LimitRange',
    '/PodTemplate',
    '/ReplicationController',
    'apps/Deployment',
    'apps/ReplicaSet',
    'apps/StatefulSet',
    'apps/DaemonSet',
    'apps/ControllerRevision',
    'batch/Job',
    'batch/CronJob',
    'networking.k8s.io/Ingress',
    'networking.k8s.io/NetworkPolicy',
    'policy/PodDisruptionBudget',
    'autoscaling/HorizontalPodAutoscaler',
    'coordination.k8s.io/Lease',
    'discovery.k8s.io/EndpointSlice',
    'events.k8s.io/Event',
    'rbac.authorization.k8s.io/Role',
    'rbac.authorization.k8s.io/RoleBinding',
    'storage.k8s.io/CSIStorageCapacity',
  ].map((k) => [k, true] as const),
  ...[
    '/Namespace',
    '/Node',
    '/PersistentVolume',
    '/ComponentStatus',
    'rbac.authorization.k8s.io/ClusterRole',
    'rbac.authorization.k8s.io/ClusterRoleBinding',
    'apiextensions.k8s.io/CustomResourceDefinition',
    'apiregistration.k8s.io/APIService',
    'admissionregistration.k8s.io/MutatingWebhookConfiguration',
    'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
    'certificates.k8s.io/CertificateSigningRequest',
    'flowcontrol.apiserver.k8s.io/FlowSchema',
    'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
    'networking.k8s.io/IngressClass',
    'node.k8s.io/RuntimeClass',
    'scheduling.k8s.io/PriorityClass',
    'storage.k8s.io/StorageClass',
    'storage.k8s.io/CSIDriver',
    'storage.k8s.io/CSINode',
    'storage.k8s.io/VolumeAttachment',
  ].map((k) => [k, false] as const),
]);

/** Whether a built-in kind is namespaced; `undefined` for a kind the table does not know. */
export function builtinNamespaced(type: ResourceType): boolean | undefined {
  if (typeof type.apiVersion !== 'string') return undefined;
  const slash = type.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : type.apiVersion.slice(0, slash);
  return BUILTIN_NAMESPACED.get(`${group}/${type.kind}`);
}

/** An `owns` entry's resource type. */
function ownedResource(entry: ResourceType | { readonly resource: ResourceType }): ResourceType {
  return 'resource' in entry ? entry.resource : entry;
}

/** The refusal of `owns[index]` under the namespaced `forType`. */
export function ownerScopeError(
  operator: string,
  forType: ResourceType,
  index: number,
  resource: ResourceType,
): InvalidArgumentError {
  return new InvalidArgumentError(
    operator,
    `options.owns[${index}]`,
    resource,
    `must not be cluster-scoped under the namespaced ${forType.kind}: Kubernetes does not let a ` +
      `cluster-scoped ${resource.kind} have a namespaced owner (the garbage collector ignores the reference), ` +
      `so its events can never name one — watch it with watches: [{ resource, map }] instead`,
  );
}

/**
 * The first `owns` entry that cannot work, as its error, with scopes from `namespaced` (`undefined`:
 * not known, not checked); `undefined` when none is refused.
 */
export function ownerScopeRefusal(
  operator: string,
  forType: ResourceType,
  owns: readonly (ResourceType | { readonly resource: ResourceType })[],
  namespaced: (type: ResourceType) => boolean | undefined,
): InvalidArgumentError | undefined {
  if (owns.length === 0 || namespaced(forType) !== true) return undefined;
  for (const [i, entry] of owns.entries()) {
    const resource = ownedResource(entry);
    if (namespaced(resource) === false) return ownerScopeError(operator, forType, i, resource);
  }
  return undefined;
}

/**
 * Whether discovery must be asked: some scope of the combination is not in the built-in table
 * and could make it impossible (an unknown `for` over a cluster-scoped child, or an unknown child).
 */
export function ownerScopesNeedDiscovery(
  forType: ResourceType,
  owns: readonly (ResourceType | { readonly resource: ResourceType })[],
): boolean {
  if (owns.length === 0 || builtinNamespaced(forType) === false) return false;
  return owns.some((entry) => {
    const child = builtinNamespaced(ownedResource(entry));
    return child === undefined || (child === false && builtinNamespaced(forType) === undefined);
  });
}

/**
 * The same check through discovery (`resolve`), for the kinds the built-in table does not know;
 * a kind discovery does not serve (yet) is not checked.
 */
export async function ownerScopeRefusalByDiscovery(
  operator: string,
  forType: ResourceType,
  owns: readonly (ResourceType | { readonly resource: ResourceType })[],
  resolve: (type: ResourceType) => Promise<{ readonly namespaced: boolean }>,
): Promise<InvalidArgumentError | undefined> {
  const scopes = new Map<ResourceType, boolean | undefined>();
  for (const type of [forType, ...owns.map(ownedResource)]) {
    scopes.set(
      type,
      builtinNamespaced(type) ??
        (await resolve(type).then(
          (r) => r.namespaced,
          () => undefined, // not served (yet): nothing to check
        )),
    );
  }
  return ownerScopeRefusal(operator, forType, owns, (t) => scopes.get(t));
}
