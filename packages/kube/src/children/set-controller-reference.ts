/**
 * `setControllerReference` and `AlreadyOwnedError`: mark an object as controlled by another, as
 * controller-runtime's `controllerutil.SetControllerReference` does, on plain JSON.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import type { KubeObject, OwnerReference } from '../types.js';
import type { ObjectLike } from '../client/verb-options.js';

/**
 * The child already has a controller owner that is a different object (another group, kind or
 * name). Kubernetes allows only one `controller: true` reference per object.
 *
 * ## Example
 * ```ts
 * if (e instanceof AlreadyOwnedError) log.warn(`${e.childKey} belongs to ${e.existing.kind}/${e.existing.name}`);
 * ```
 */
export class AlreadyOwnedError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'AlreadyOwnedError' as const;
  override readonly name = 'AlreadyOwnedError';
  /** The controller reference the child has. */
  readonly existing: OwnerReference;
  /** The owner that asked to control it. */
  readonly requested: OwnerReference;
  /** `namespace/name` of the child. */
  readonly childKey: string;

  /** @param childKey the child.  @param existing its controller.  @param requested the new one. */
  constructor(childKey: string, existing: OwnerReference, requested: OwnerReference) {
    super(
      `${childKey} is already controlled by ${existing.kind} "${existing.name}" (${existing.apiVersion}, uid ${existing.uid}); ` +
        `${requested.kind} "${requested.name}" cannot take it over. Rename the child, or remove the other ` +
        'controller reference first if the hand-over is intended.',
    );
    this.existing = existing;
    this.requested = requested;
    this.childKey = childKey;
  }
}

/**
 * Returns a copy of `child` with a controller reference to `owner` (`controller: true`,
 * `blockOwnerDeletion: true`), so the garbage collector deletes it with the owner and `owns`
 * triggers map its changes to the owner.
 *
 * ## Example
 * ```ts
 * const child: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w-config', namespace: 'default' } };
 * const owned = setControllerReference(widget, child);
 * owned.metadata.ownerReferences; // [{ apiVersion: 'example.com/v1', kind: 'Widget', name, uid, controller: true, blockOwnerDeletion: true }]
 * ```
 *
 * ## Semantics (controller-runtime's)
 * - A reference to the same object (same API group, kind and name; the version may differ) is
 *   replaced in place — e.g. after the owner was re-created with a new uid; other references are
 *   kept.
 * - A controller reference to a different object → {@link AlreadyOwnedError}.
 * - A namespaced owner can only own objects of its own namespace: a child in another namespace, or
 *   without a namespace (cluster-scoped), → `InvalidArgumentError`. A cluster-scoped owner may own
 *   anything. Set the child's namespace before calling.
 * - The owner needs `apiVersion`, `kind`, `metadata.name` and `metadata.uid` (read it from the
 *   server or the Store) → `InvalidArgumentError` otherwise.
 * - Pure: neither argument is modified.
 */
export function setControllerReference<T extends ObjectLike>(owner: KubeObject, child: T): T {
  const ref = ownerReferenceOf(owner, 'setControllerReference');
  const meta = child.metadata as KubeObject['metadata'] | undefined;
  if (meta === undefined || meta === null || typeof meta !== 'object') {
    throw new InvalidArgumentError('setControllerReference', 'child.metadata', meta, 'must be an object');
  }
  const childKey = `${child.kind ?? 'object'} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name ?? meta.generateName ?? '(no name)'}`;
  const ownerNs = owner.metadata.namespace;
  if (ownerNs !== undefined && ownerNs !== '') {
    if (meta.namespace === undefined || meta.namespace === '') {
      throw new InvalidArgumentError(
        'setControllerReference',
        'child.metadata.namespace',
        meta.namespace,
        `must be set to "${ownerNs}": a cluster-scoped object cannot be owned by a namespaced ${ref.kind} ("${ownerNs}/${ref.name}"); ` +
          'for a namespaced child, set its namespace before calling',
      );
    }
    if (meta.namespace !== ownerNs) {
      throw new InvalidArgumentError(
        'setControllerReference',
        'child.metadata.namespace',
        meta.namespace,
        `must equal the owner's namespace "${ownerNs}": cross-namespace owner references are not allowed (the garbage collector would treat the owner as missing and delete the child)`,
      );
    }
  }
  const refs = meta.ownerReferences ?? [];
  const existing = refs.find((r) => r.controller === true);
  if (existing && !sameObject(existing, ref)) throw new AlreadyOwnedError(childKey, existing, ref);
  const i = refs.findIndex((r) => sameObject(r, ref));
  const next = i < 0 ? [...refs, ref] : refs.map((r, j) => (j === i ? ref : r));
  return { ...child, metadata: { ...meta, ownerReferences: next } };
}

/**
 * The owner reference to `owner` with `controller: true` and `blockOwnerDeletion: true`.
 *
 * ## Example
 * ```ts
 * const ref = ownerReferenceOf(widget); // { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true }
 * const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w-config', ownerReferences: [ref] } };
 * ```
 *
 * @throws {InvalidArgumentError} when `owner` lacks apiVersion, kind, name or uid.
 */
export function ownerReferenceOf(owner: KubeObject, op = 'ownerReferenceOf'): OwnerReference {
  const fields = {
    'owner.apiVersion': owner.apiVersion,
    'owner.kind': owner.kind,
    'owner.metadata.name': owner.metadata?.name,
    'owner.metadata.uid': owner.metadata?.uid,
  };
  for (const [argument, value] of Object.entries(fields)) {
    if (typeof value !== 'string' || value === '') {
      throw new InvalidArgumentError(
        op,
        argument,
        value,
        'must be a non-empty string: use the owner as read from the API server or the Store (it carries apiVersion, kind and uid)',
      );
    }
  }
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata.name!,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function sameObject(a: OwnerReference, b: OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}
