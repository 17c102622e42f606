/**
 * The shapes the API client's verbs take and return: what an object must have to be written
 * (`ObjectLike`), a list page, patches, and the options of get, list, create/replace, patch,
 * apply and delete. Shared by `KubeClient` and the `Client` interface a stub implements.
 *
 * @module
 */

/**
 * The least an object must have to be written: plain JSON with `apiVersion`, `kind` and
 * `metadata`. Both {@link KubeObject} and client-node's model types (`import type { V1ConfigMap }`)
 * fit; note that client-node's types declare timestamps as `Date`, while the wire (and this
 * client) carries RFC 3339 strings.
 *
 * ## Example
 * ```ts
 * const cm: ObjectLike = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } };
 * await client.create(cm);
 * ```
 */
export interface ObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    generateName?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
  };
}

/**
 * A list response (`ConfigMapList`, `PartialObjectMetadataList`, …).
 *
 * ## Example
 * ```ts
 * const list: ObjectList<KubeObject> = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' });
 * console.log(list.metadata.resourceVersion, list.items.length);
 * ```
 */
export interface ObjectList<T> {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/**
 * Options every single-object verb accepts.
 *
 * ## Example
 * ```ts
 * await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' }, { subresource: 'scale' });
 * await client.get(ref, { signal: AbortSignal.timeout(5_000) }); // cancelled after 5 s
 * ```
 */
export interface SubresourceOptions {
  /** e.g. `status`. */
  readonly subresource?: string;
  /**
   * Cancels the call: an abort destroys its HTTP request and the call rejects with a
   * `KubeTransportError` of failure `aborted` whose `cause` is `signal.reason` (pass `ctx.signal`).
   */
  readonly signal?: AbortSignal;
}

/**
 * Options of {@link KubeClient.get}.
 *
 * ## Example
 * ```ts
 * const options: GetOptions = { metadataOnly: true }; // a PartialObjectMetadata
 * await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'tls' }, options);
 * ```
 */
export interface GetOptions extends SubresourceOptions {
  /** Ask for `PartialObjectMetadata` (metadata only). */
  readonly metadataOnly?: boolean;
}

/**
 * Options of {@link KubeClient.list}.
 *
 * ## Example
 * ```ts
 * const options: ListOptions = { namespace: 'default', labelSelector: 'app=web', limit: 100 };
 * const pods = await client.list({ apiVersion: 'v1', kind: 'Pod' }, options);
 * ```
 */
export interface ListOptions {
  /** Leave out for all namespaces (namespaced kinds). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size (default 500). */
  readonly limit?: number;
  /** Continue token of a previous page (implies one page). */
  readonly continue?: string;
  /** Fetch every page (default) or only one (`false`). */
  readonly allPages?: boolean;
  /** Items as `PartialObjectMetadata`. */
  readonly metadataOnly?: boolean;
  /** `resourceVersion` semantics of the list; unset = a consistent read (the default, paginated). */
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /**
   * Cancels the call: an abort destroys its HTTP request and the call rejects with a
   * `KubeTransportError` of failure `aborted` whose `cause` is `signal.reason` (pass `ctx.signal`).
   */
  readonly signal?: AbortSignal;
}

/**
 * Options of writes.
 *
 * ## Example
 * ```ts
 * const options: WriteOptions = { fieldManager: 'widget-operator', dryRun: true };
 * await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } }, options);
 * ```
 */
export interface WriteOptions extends SubresourceOptions {
  /** Names the writer in `managedFields`. */
  readonly fieldManager?: string;
  /** Validate and default, but do not persist. */
  readonly dryRun?: boolean;
  /** Namespace, when the object does not carry it. */
  readonly namespace?: string;
}

/**
 * RFC 6902 operation of a JSON patch.
 *
 * ## Example
 * ```ts
 * const ops: JsonPatchOperation[] = [
 *   { op: 'test', path: '/metadata/resourceVersion', value: '42' },
 *   { op: 'replace', path: '/data/mode', value: 'on' },
 * ];
 * await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' }, { type: 'json', body: ops });
 * ```
 */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

/**
 * A patch and its type: JSON merge patch (`merge`), JSON patch (`json`), strategic merge patch
 * (`strategic`, built-in kinds only) or server-side apply (`apply`, needs `fieldManager`).
 *
 * ## Example
 * ```ts
 * const patch: Patch = { type: 'merge', body: { metadata: { labels: { tier: 'web' } } } };
 * await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a' }, patch);
 * ```
 */
export type Patch =
  | { readonly type: 'merge'; readonly body: object }
  | { readonly type: 'json'; readonly body: readonly JsonPatchOperation[] }
  | { readonly type: 'strategic'; readonly body: object }
  | { readonly type: 'apply'; readonly body: object };

/**
 * Options of {@link KubeClient.patch}.
 *
 * ## Example
 * ```ts
 * const options: PatchOptions = { fieldManager: 'widget-operator', force: true };
 * await client.patch(ref, { type: 'apply', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } }, options);
 * ```
 */
export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take over fields other managers own. */
  readonly force?: boolean;
}

/**
 * Options of {@link KubeClient.apply}.
 *
 * ## Example
 * ```ts
 * const options: ApplyOptions = { fieldManager: 'widget-operator', force: true };
 * await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: {} }, options);
 * ```
 */
export interface ApplyOptions extends Omit<PatchOptions, 'fieldManager'> {
  /** Required: the owner of the applied fields. */
  readonly fieldManager: string;
}

/**
 * Options of {@link KubeClient.delete}.
 *
 * ## Example
 * ```ts
 * const options: DeleteOptions = { propagationPolicy: 'Foreground', preconditions: { resourceVersion: '1234' } };
 * await client.delete({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w' }, options);
 * ```
 */
export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Delete only if the object still has this uid / resourceVersion (409 Conflict otherwise). */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly gracePeriodSeconds?: number;
  readonly dryRun?: boolean;
  /**
   * Cancels the call: an abort destroys its HTTP request and the call rejects with a
   * `KubeTransportError` of failure `aborted` whose `cause` is `signal.reason` (pass `ctx.signal`).
   */
  readonly signal?: AbortSignal;
}
