/**
 * Shared vocabulary of `@rxkube/kube`: plain-JSON Kubernetes objects, object references, the
 * resource a watch or a request is about, and the watcher's events (kube-rs words).
 *
 * @module
 */

/**
 * `metadata` of any Kubernetes object, as plain JSON.
 *
 * ## Example
 * ```ts
 * const metadata: ObjectMeta = { name: 'web', namespace: 'shop', labels: { app: 'web' }, finalizers: ['example.com/cleanup'] };
 * ```
 */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
}

/**
 * An entry of `metadata.ownerReferences`.
 *
 * ## Example
 * ```ts
 * const ref: OwnerReference = ownerReferenceOf(widget); // { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true }
 * const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w-config', ownerReferences: [ref] } };
 * ```
 */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/**
 * Any Kubernetes object as plain JSON (never a class instance).
 *
 * ## Example
 * ```ts
 * type Widget = KubeObject<{ size: number }, { observedGeneration?: number }>;
 * ```
 */
export interface KubeObject<Spec = unknown, Status = unknown> {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
  [field: string]: unknown;
}

/**
 * Names one object: `{ apiVersion, kind, namespace?, name }`. Its key is `namespace/name`
 * (just `name` for cluster-scoped objects).
 *
 * ## Example
 * ```ts
 * const ref: ObjectRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' };
 * objectKey(ref); // 'default/a'
 * ```
 */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/**
 * The key of an object or reference: `namespace/name`, or `name` when cluster-scoped.
 *
 * ## Example
 * ```ts
 * objectKey({ metadata: { namespace: 'ns', name: 'a' } }); // 'ns/a'
 * ```
 */
export function objectKey(obj: { metadata: ObjectMeta } | { namespace?: string; name: string }): string {
  const m = 'metadata' in obj ? obj.metadata : obj;
  const name = m.name ?? '';
  return m.namespace ? `${m.namespace}/${name}` : name;
}

/**
 * What a watch or request is about: a resource type. `apiVersion` + `kind` are mapped to a URL path
 * through discovery. The type parameter names the objects of that kind, so Stores and cache reads
 * given this resource are typed by it (it is a type-level marker only: never set `__object`).
 *
 * ## Example
 * ```ts
 * const configMaps: ResourceType = { apiVersion: 'v1', kind: 'ConfigMap' };
 * const widgets: ResourceType<Widget> = { apiVersion: 'example.com/v1', kind: 'Widget' };
 * ctx.cache.list(widgets); // Widget[]
 * ```
 */
export interface ResourceType<T extends KubeObject = KubeObject> {
  /** `v1`, `apps/v1`, `example.com/v1alpha1`, … */
  apiVersion: string;
  kind: string;
  /**
   * Type-level marker of the object type; never present at runtime. (A method, so that a plain
   * `ResourceType` and a `ResourceType<Widget>` are assignable to each other.)
   */
  __object?(object: T): void;
}

/**
 * An event of a watcher (kube-rs vocabulary). A (re)list is framed by `Init` … `InitApply`* …
 * `InitDone`; `InitDone` is the only "the cache is whole" signal. Live changes are `Apply`
 * (added or modified) and `Delete`. A relist never replays fake ADDED/MODIFIED events; objects
 * that vanished during a relist are reported as `Delete` right after `InitDone`.
 *
 * ## Example
 * ```ts
 * watcher(client, configMaps).subscribe((e) => {
 *   if (e.type === 'Apply') console.log('changed', objectKey(e.object));
 * });
 * ```
 */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'Init' }
  | { readonly type: 'InitApply'; readonly object: T }
  | { readonly type: 'InitDone' }
  | { readonly type: 'Apply'; readonly object: T }
  | { readonly type: 'Delete'; readonly object: T };

/**
 * `T` as JSON carries it: `Date` fields (client-node's timestamps) are RFC 3339 strings.
 *
 * ## Example
 * ```ts
 * import type { V1Deployment } from '@kubernetes/client-node';
 * type DeploymentJson = Wire<V1Deployment>; // metadata.creationTimestamp: string, not Date
 * ```
 */
export type Wire<T> = T extends Date
  ? string
  : T extends readonly (infer E)[]
    ? Wire<E>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;

/**
 * A client-node model type (`V1Deployment`, `V1ConfigMap`, …) as rxkube's Stores, watches and
 * reconciles hold it: JSON, with `metadata` always present and timestamps as strings (client-node
 * declares them `Date`, which the wire never carries). Use it wherever a `KubeObject` type is asked
 * for; model objects you build are accepted as they are wherever an object is written
 * (`client.apply`, `ctx.apply`, `applyChildren`, `setControllerReference`).
 *
 * ## Example
 * ```ts
 * import type { V1Deployment } from '@kubernetes/client-node';
 * type Deployment = FromModel<V1Deployment>;
 * controller<Deployment>({ for: { apiVersion: 'apps/v1', kind: 'Deployment' }, client })
 *   .run((_req, ctx) => of(ctx.object.spec?.replicas === 0 ? Action.awaitChange() : Action.requeue(60_000)));
 * ```
 */
export type FromModel<T extends { metadata?: object }> = Wire<Omit<T, 'metadata'>> & {
  metadata: ObjectMeta & Wire<NonNullable<T['metadata']>>;
};
