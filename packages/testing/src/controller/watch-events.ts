/**
 * Builders of the values marble tests feed a controller: objects with the metadata a Store keys
 * and indexes by, and the {@link WatchEvent}s of kube-rs's vocabulary.
 *
 * @module
 */
import type { KubeObject, ObjectMeta, ResourceType, WatchEvent } from '@rxkube/kube';

/**
 * An object named `key` (`namespace/name`, or `name` for a cluster-scoped one) with a uid
 * (`uid-<name>`), `resourceVersion` `'1'` and the `metadata` given (which wins), of `type` when
 * given.
 *
 * ## Example
 * ```ts
 * testObject('shop/web', { resourceVersion: '7', labels: { app: 'web' } });
 * testObject('shop/web-config', ownedBy(testObject('shop/web')), { apiVersion: 'v1', kind: 'ConfigMap' });
 * ```
 */
export function testObject<T extends KubeObject = KubeObject>(
  key: string,
  metadata: Partial<ObjectMeta> = {},
  type?: ResourceType,
): T {
  const slash = key.indexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  const namespace = slash < 0 ? undefined : key.slice(0, slash);
  return {
    ...(type !== undefined ? { apiVersion: type.apiVersion, kind: type.kind } : {}),
    metadata: {
      ...(namespace !== undefined ? { namespace } : {}),
      name,
      uid: `uid-${name}`,
      resourceVersion: '1',
      ...metadata,
    },
  } as T;
}

/**
 * The metadata that makes an object a child of `owner` (a controller owner reference, as
 * `setControllerReference` writes it), to spread into {@link testObject}'s `metadata`.
 *
 * ## Example
 * ```ts
 * testObject('shop/web-config', ownedBy(widget));
 * ```
 */
export function ownedBy(
  owner: KubeObject,
  options: { readonly controller?: boolean } = {},
): Pick<ObjectMeta, 'ownerReferences'> {
  return {
    ownerReferences: [
      {
        apiVersion: owner.apiVersion ?? 'v1',
        kind: owner.kind ?? 'ConfigMap',
        name: owner.metadata.name ?? '',
        uid: owner.metadata.uid ?? `uid-${owner.metadata.name ?? ''}`,
        controller: options.controller ?? true,
      },
    ],
  };
}

/**
 * {@link WatchEvent} builders, by kube-rs's names.
 *
 * ## Example
 * ```ts
 * const a1 = testObject('shop/a');
 * const a2 = testObject('shop/a', { resourceVersion: '2' });
 * hot('(IaD)-u', { I: watchEvent.init(), a: watchEvent.initApply(a1), D: watchEvent.initDone(), u: watchEvent.apply(a2) });
 * ```
 */
export const watchEvent = {
  /** A (re)list starts. */
  init: <T extends KubeObject = KubeObject>(): WatchEvent<T> => ({ type: 'Init' }),
  /** An object of the list. */
  initApply: <T extends KubeObject>(object: T): WatchEvent<T> => ({ type: 'InitApply', object }),
  /** The list is complete. */
  initDone: <T extends KubeObject = KubeObject>(): WatchEvent<T> => ({ type: 'InitDone' }),
  /** Added or modified. */
  apply: <T extends KubeObject>(object: T): WatchEvent<T> => ({ type: 'Apply', object }),
  /** Deleted. */
  delete: <T extends KubeObject>(object: T): WatchEvent<T> => ({ type: 'Delete', object }),
};

/**
 * A whole list as events: `Init`, one `InitApply` per object, `InitDone`.
 *
 * ## Example
 * ```ts
 * const primary$ = concat(from(listed([testObject('shop/a'), testObject('shop/b')])), NEVER); // listed at once, then quiet
 * ```
 */
export function listed<T extends KubeObject>(objects: readonly T[]): WatchEvent<T>[] {
  return [watchEvent.init<T>(), ...objects.map((o) => watchEvent.initApply(o)), watchEvent.initDone<T>()];
}
