/**
 * `KubeClient`: the API client — discovery and the verbs (get, list, create, replace, patch,
 * apply, delete) on plain JSON objects, main resource or subresource (`status`). Promises only;
 * wrap a call with `defer(() => client.get(…))` for an Observable.
 *
 * What it does not do: retry, cache objects (that is the Store), or watch (see `watcher`).
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import type { ConnectionOptions, KubeConfigSource } from '../config/connection.js';
import { connectionFromKubeConfig, loadDefaultKubeConfig } from '../config/connection.js';
import type { RequestTarget, Status } from '../errors.js';
import type { HttpRequest, TransportOptions } from '../transport/http-transport.js';
import { HttpTransport } from '../transport/http-transport.js';
import type { KubeObject, ObjectRef, ResourceType } from '../types.js';
import type { ApiResource } from './api-resource.js';
import type { Clock } from './discovery.js';
import { Discovery } from './discovery.js';
import type {
  ObjectLike,
  ObjectList,
  GetOptions,
  ListOptions,
  WriteOptions,
  Patch,
  PatchOptions,
  ApplyOptions,
  DeleteOptions,
} from './verb-options.js';

/**
 * Options of {@link KubeClient.fromKubeConfig} and {@link KubeClient.default}.
 *
 * ## Example
 * ```ts
 * const options: Omit<KubeClientOptions, 'kubeConfig'> = { userAgent: 'widget-operator/1.0', maxSockets: 64 };
 * const client = KubeClient.default(options);
 * ```
 */
export interface KubeClientOptions extends TransportOptions, ConnectionOptions {
  /** The kubeconfig (default: `KUBECONFIG`, `~/.kube/config`, or the in-cluster service account). */
  readonly kubeConfig?: KubeConfigSource;
  /** Minimum ms between two discovery refreshes of one group-version (default 10 s). */
  readonly discoveryRefreshIntervalMs?: number;
  /** Time source of the discovery refresh bound (default `Date`-based). */
  readonly clock?: Clock;
}

const CONTENT_TYPE: Readonly<Record<Patch['type'], string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

const ACCEPT_JSON = 'application/json';
/**
 * Metadata-only representations (see quirk 5 of packages/testing/fixtures/kube-wire/README.md for the
 * watch form).
 */
export const ACCEPT_METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
export const ACCEPT_METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

const DEFAULT_PAGE_SIZE = 500;

/**
 * A Kubernetes API client on plain JSON objects.
 *
 * ## Example
 * ```ts
 * const client = KubeClient.default();
 * const cm = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x' });
 * await client.patch(
 *   { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w' },
 *   { type: 'merge', body: { status: { ready: true } } },
 *   { subresource: 'status' },
 * );
 * ```
 *
 * ## Semantics
 * - Every verb resolves the kind through {@link Discovery} (cached) and rejects with a
 *   `KubeApiError` (error status), `KubeTransportError` (no answer), `KubeConfigError`
 *   (credentials) or `ResourceNotFoundError` (kind not served).
 * - Namespaced kinds need a namespace (`ref.namespace`, `metadata.namespace` or
 *   `options.namespace`) for single-object verbs; a namespace on a cluster-scoped kind is refused.
 *   Bad arguments throw `InvalidArgumentError` before anything is sent.
 * - A `subresource` must be one discovery lists for the kind.
 * - `options.signal` cancels a call: an abort destroys its HTTP request (every page of a list) and
 *   the call rejects with a `KubeTransportError` of failure `aborted` whose `cause` is the signal's
 *   reason; an already aborted signal sends nothing.
 * - Objects come back as parsed JSON. Items of a full (not metadata-only) list get the list's
 *   `apiVersion` and `kind` when the server leaves them out (built-in lists do), so list items and
 *   watch objects have the same shape.
 */
export class KubeClient {
  /** REST mapping: apiVersion + kind → path, plural, scope. */
  readonly discovery: Discovery;
  /** The HTTP transport (shared by `listWatchSource`). */
  readonly transport: HttpTransport;
  /** The kubeconfig context's namespace (`default` when it sets none). */
  readonly namespace: string;

  private constructor(transport: HttpTransport, options: KubeClientOptions) {
    this.transport = transport;
    this.namespace = transport.connection.namespace;
    this.discovery = new Discovery(transport, {
      ...(options.discoveryRefreshIntervalMs !== undefined
        ? { minRefreshIntervalMs: options.discoveryRefreshIntervalMs }
        : {}),
      ...(options.clock !== undefined ? { clock: options.clock } : {}),
    });
  }

  /**
   * A client for the current context of `kubeConfig`.
   * @throws {KubeConfigError} when the context, its cluster or server URL is unusable.
   */
  static fromKubeConfig(
    kubeConfig: KubeConfigSource,
    options: Omit<KubeClientOptions, 'kubeConfig'> = {},
  ): KubeClient {
    return new KubeClient(new HttpTransport(connectionFromKubeConfig(kubeConfig, options), options), options);
  }

  /**
   * A client from the default kubeconfig: `KUBECONFIG`, `~/.kube/config`, else in-cluster.
   * @throws {KubeConfigError} when no usable kubeconfig is found.
   */
  static default(options: Omit<KubeClientOptions, 'kubeConfig'> = {}): KubeClient {
    return KubeClient.fromKubeConfig(loadDefaultKubeConfig(), options);
  }

  /**
   * `t` with the owners the body's blocking ownerReferences name, their plurals from discovery
   * (cached: an owner is usually the controller's primary kind) — so a refusal by
   * OwnerReferencesPermissionEnforcement names the exact grant. A kind discovery cannot resolve
   * is named without its plural; the write goes ahead either way.
   */
  private async withOwners(t: RequestTarget, body: unknown): Promise<RequestTarget> {
    const refs = blockingReferences(body);
    if (refs.length === 0) return t;
    const blockedOwners = await Promise.all(
      refs.map(async (ref) => {
        const slash = ref.apiVersion.indexOf('/');
        const owner = {
          group: slash < 0 ? '' : ref.apiVersion.slice(0, slash),
          kind: ref.kind,
          name: ref.name,
        };
        try {
          const r = await this.discovery.resolve({ apiVersion: ref.apiVersion, kind: ref.kind });
          return { ...owner, resource: r.plural, namespaced: r.namespaced };
        } catch {
          return owner;
        }
      }),
    );
    return { ...t, blockedOwners };
  }

  /** Reads one object (or its subresource). */
  async get<T = Record<string, unknown>>(ref: ObjectRef, options: GetOptions = {}): Promise<T> {
    const { resource, namespace, name } = await this.locate(
      'get',
      ref,
      ref.namespace,
      ref.name,
      options.subresource,
    );
    return this.send<T>({
      method: 'GET',
      path: resource.path({ ...ns(namespace), name, ...sub(options.subresource) }),
      accept: options.metadataOnly ? ACCEPT_METADATA : ACCEPT_JSON,
      target: target('get', resource, namespace, name, options.subresource),
      ...signalOf(options),
    });
  }

  /**
   * Lists objects of a kind: all pages (default, `limit` per page) or one page (`allPages: false`
   * or a `continue` token). All pages of one call are read at the first page's resourceVersion;
   * a `continue` token that expired mid-way rejects with a 410 (`isGone`): list again. Typed by
   * the `ResourceType<T>` it is given, as `cache.list` is.
   */
  async list<T extends KubeObject = KubeObject>(
    type: ResourceType<T>,
    options: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const resource = await this.discovery.resolve(type);
    if (options.namespace !== undefined && !resource.namespaced) {
      throw new InvalidArgumentError(
        'client.list',
        'options.namespace',
        options.namespace,
        `must be left out: ${resource.kind} is cluster-scoped`,
      );
    }
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidArgumentError('client.list', 'options.limit', limit, 'must be an integer >= 1');
    }
    const onePage = options.allPages === false || options.continue !== undefined;
    const path = resource.path(ns(options.namespace));
    const request = (cont: string | undefined): Promise<ObjectList<T>> =>
      this.send<ObjectList<T>>({
        method: 'GET',
        path,
        query: {
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          limit,
          continue: cont,
          resourceVersion: cont === undefined ? options.resourceVersion : undefined,
          resourceVersionMatch: cont === undefined ? options.resourceVersionMatch : undefined,
        },
        accept: options.metadataOnly ? ACCEPT_METADATA_LIST : ACCEPT_JSON,
        target: target('list', resource, options.namespace),
        ...signalOf(options),
      }).then((page) => fillTypeMeta(normalizeList(page), resource, options.metadataOnly === true));
    const first = await request(options.continue);
    if (onePage) return first;
    const items = first.items;
    let cont = first.metadata.continue;
    while (cont) {
      const page = await request(cont);
      for (const item of page.items) items.push(item);
      cont = page.metadata.continue;
    }
    const { continue: _c, remainingItemCount: _r, ...metadata } = first.metadata;
    return { ...first, metadata, items };
  }

  /** Creates an object (`POST`); `metadata.generateName` works. */
  async create<T extends ObjectLike>(object: T, options: WriteOptions = {}): Promise<T> {
    const type = typeOf('client.create', object);
    const namespace = options.namespace ?? object.metadata?.namespace;
    const name = options.subresource !== undefined ? object.metadata?.name : undefined;
    const { resource } = await this.locate('create', type, namespace, name, options.subresource, !name);
    const nsOpt = resource.namespaced ? ns(namespace) : {};
    return this.send<T>({
      method: 'POST',
      path: resource.path({ ...nsOpt, ...(name !== undefined ? { name } : {}), ...sub(options.subresource) }),
      query: writeQuery(options),
      body: JSON.stringify(object),
      contentType: 'application/json',
      target: await this.withOwners(target('create', resource, namespace, name, options.subresource), object),
      ...signalOf(options),
    });
  }

  /**
   * Replaces an object (`PUT`). With `metadata.resourceVersion` it is an optimistic update
   * (409 Conflict when stale); `{ subresource: 'status' }` writes only the status.
   */
  async replace<T extends ObjectLike>(object: T, options: WriteOptions = {}): Promise<T> {
    const type = typeOf('client.replace', object);
    const namespace = options.namespace ?? object.metadata?.namespace;
    const { resource, name } = await this.locate(
      'update',
      type,
      namespace,
      object.metadata?.name,
      options.subresource,
    );
    return this.send<T>({
      method: 'PUT',
      path: resource.path({
        ...(resource.namespaced ? ns(namespace) : {}),
        name,
        ...sub(options.subresource),
      }),
      query: writeQuery(options),
      body: JSON.stringify(object),
      contentType: 'application/json',
      target: await this.withOwners(target('update', resource, namespace, name, options.subresource), object),
      ...signalOf(options),
    });
  }

  /**
   * Patches an object: merge, JSON patch, strategic merge (built-in kinds) or server-side apply.
   * Content-Type follows the patch type.
   */
  async patch<T = Record<string, unknown>>(
    ref: ObjectRef,
    patch: Patch,
    options: PatchOptions = {},
  ): Promise<T> {
    assertPatch(patch, options);
    const { resource, namespace, name } = await this.locate(
      'patch',
      ref,
      ref.namespace,
      ref.name,
      options.subresource,
    );
    return this.send<T>({
      method: 'PATCH',
      path: resource.path({ ...ns(namespace), name, ...sub(options.subresource) }),
      query: {
        ...writeQuery(options),
        force: options.force === undefined ? undefined : String(options.force),
      },
      body: JSON.stringify(patch.body),
      contentType: CONTENT_TYPE[patch.type],
      target: await this.withOwners(
        target('patch', resource, namespace, name, options.subresource),
        patch.body,
      ),
      ...signalOf(options),
    });
  }

  /**
   * Server-side apply of `object` (its full intent) as `fieldManager`: creates or updates it; a
   * field another manager owns rejects with 409 Conflict unless `force`.
   */
  async apply<T extends ObjectLike>(object: T, options: ApplyOptions): Promise<T> {
    const type = typeOf('client.apply', object);
    const name = object.metadata?.name;
    if (typeof name !== 'string' || name === '') {
      throw new InvalidArgumentError(
        'client.apply',
        'object.metadata.name',
        name,
        'must be set: apply needs a name',
      );
    }
    const namespace = options.namespace ?? object.metadata?.namespace;
    return this.patch<T>(
      { ...type, name, ...(namespace !== undefined ? { namespace } : {}) },
      { type: 'apply', body: object },
      options,
    );
  }

  /**
   * Deletes an object. Resolves with the `Status` (kind `Status`) when it is gone, or with the
   * object when it stays for now (finalizers, `Foreground`, `Orphan`).
   */
  async delete<T = Record<string, unknown>>(
    ref: ObjectRef,
    options: DeleteOptions = {},
  ): Promise<T | Status> {
    const { resource, namespace, name } = await this.locate(
      'delete',
      ref,
      ref.namespace,
      ref.name,
      undefined,
    );
    if (
      options.gracePeriodSeconds !== undefined &&
      (!Number.isInteger(options.gracePeriodSeconds) || options.gracePeriodSeconds < 0)
    ) {
      throw new InvalidArgumentError(
        'client.delete',
        'options.gracePeriodSeconds',
        options.gracePeriodSeconds,
        'must be an integer >= 0',
      );
    }
    const body = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      ...(options.propagationPolicy !== undefined ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(options.preconditions !== undefined ? { preconditions: options.preconditions } : {}),
      ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
      ...(options.dryRun ? { dryRun: ['All'] } : {}),
    };
    return this.send<T | Status>({
      method: 'DELETE',
      path: resource.path({ ...ns(namespace), name }),
      body: JSON.stringify(body),
      contentType: 'application/json',
      target: target('delete', resource, namespace, name),
      ...signalOf(options),
    });
  }

  /** Closes the keep-alive sockets; the client cannot be used afterwards. */
  close(): void {
    this.transport.connection.close();
  }

  private send<T>(req: HttpRequest): Promise<T> {
    return this.transport.request<T>(req);
  }

  /** Resolves the kind and checks namespace, name and subresource against it. */
  private async locate(
    verb: string,
    type: ResourceType,
    namespace: string | undefined,
    name: string | undefined,
    subresource: string | undefined,
    collection = false,
  ): Promise<{ resource: ApiResource; namespace: string | undefined; name: string }> {
    const op = `client.${verb === 'update' ? 'replace' : verb}`;
    const resource = await this.discovery.resolve(type);
    if (resource.namespaced && (namespace === undefined || namespace === '')) {
      throw new InvalidArgumentError(
        op,
        'namespace',
        namespace,
        `must be set: ${resource.kind} is namespaced (set metadata.namespace / ref.namespace; ` +
          `the kubeconfig context's namespace is "${this.namespace}")`,
      );
    }
    if (!resource.namespaced && namespace !== undefined) {
      throw new InvalidArgumentError(
        op,
        'namespace',
        namespace,
        `must be left out: ${resource.kind} is cluster-scoped`,
      );
    }
    if (!collection && (typeof name !== 'string' || name === '')) {
      throw new InvalidArgumentError(op, 'name', name, 'must be a non-empty string');
    }
    if (subresource !== undefined && !resource.subresources.includes(subresource)) {
      throw new InvalidArgumentError(
        op,
        'options.subresource',
        subresource,
        `must be one ${resource.plural}.${resource.group || 'core'} serves (${resource.subresources.join(', ') || 'none'}); ` +
          (subresource === 'status'
            ? 'a CRD needs `subresources: { status: {} }` for it'
            : 'check the spelling'),
      );
    }
    return { resource, namespace: resource.namespaced ? namespace : undefined, name: name ?? '' };
  }
}

function ns(namespace: string | undefined): { namespace?: string } {
  return namespace !== undefined ? { namespace } : {};
}

/** The request's `signal` option, when the caller gave one. */
function signalOf(options: { readonly signal?: AbortSignal }): { signal?: AbortSignal } {
  return options.signal !== undefined ? { signal: options.signal } : {};
}

function sub(subresource: string | undefined): { subresource?: string } {
  return subresource !== undefined ? { subresource } : {};
}

/** The ownerReferences with `blockOwnerDeletion: true` of a write's body (object or patch). */
function blockingReferences(body: unknown): { apiVersion: string; kind: string; name: string }[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
  const metadata = (body as { metadata?: unknown }).metadata;
  if (metadata === null || typeof metadata !== 'object') return [];
  const refs = (metadata as { ownerReferences?: unknown }).ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.flatMap((r: unknown) => {
    if (r === null || typeof r !== 'object') return [];
    const { apiVersion, kind, name, blockOwnerDeletion } = r as Record<string, unknown>;
    return blockOwnerDeletion === true && typeof apiVersion === 'string' && typeof kind === 'string'
      ? [{ apiVersion, kind, name: typeof name === 'string' ? name : '' }]
      : [];
  });
}

function target(
  verb: string,
  resource: ApiResource,
  namespace?: string,
  name?: string,
  subresource?: string,
): RequestTarget {
  return {
    verb,
    group: resource.group,
    resource: subresource ? `${resource.plural}/${subresource}` : resource.plural,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name ? { name } : {}),
  };
}

function writeQuery(options: WriteOptions): Record<string, string | undefined> {
  return { fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined };
}

function typeOf(op: string, object: ObjectLike): ResourceType {
  if (object === null || typeof object !== 'object') {
    throw new InvalidArgumentError(op, 'object', object, 'must be a Kubernetes object');
  }
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
    throw new InvalidArgumentError(
      op,
      'object.apiVersion/kind',
      { apiVersion, kind },
      'must both be set: they select the resource (e.g. apiVersion "v1", kind "ConfigMap")',
    );
  }
  return { apiVersion, kind };
}

function assertPatch(patch: Patch, options: PatchOptions): void {
  if (patch === null || typeof patch !== 'object' || !(patch.type in CONTENT_TYPE)) {
    throw new InvalidArgumentError(
      'client.patch',
      'patch',
      patch,
      'must be { type: "merge" | "json" | "strategic" | "apply", body }',
    );
  }
  if (
    patch.type === 'json' ? !Array.isArray(patch.body) : patch.body === null || typeof patch.body !== 'object'
  ) {
    throw new InvalidArgumentError(
      'client.patch',
      'patch.body',
      patch.body,
      patch.type === 'json' ? 'must be an array of RFC 6902 operations' : 'must be an object',
    );
  }
  if (patch.type === 'apply' && (typeof options.fieldManager !== 'string' || options.fieldManager === '')) {
    throw new InvalidArgumentError(
      'client.patch',
      'options.fieldManager',
      options.fieldManager,
      'must be set for server-side apply (it names the owner of the applied fields)',
    );
  }
  if (options.force !== undefined && patch.type !== 'apply') {
    throw new InvalidArgumentError(
      'client.patch',
      'options.force',
      options.force,
      'is only allowed for server-side apply',
    );
  }
}

/**
 * A list page as {@link ObjectList} promises it, whatever the server left out: a real server
 * answers an empty `PartialObjectMetadataList` with `"items": null` (apimachinery's Go slice is nil
 * and the field has no omitempty), custom resource lists with `"continue": ""`, and any list may
 * omit `remainingItemCount`. Nothing → `[]`; an empty or null token → no `continue`.
 */
function normalizeList<T>(page: ObjectList<T>): ObjectList<T> {
  const {
    continue: token,
    remainingItemCount: remaining,
    ...rest
  } = (page.metadata ?? {}) as Partial<ObjectList<T>['metadata']>;
  const metadata: ObjectList<T>['metadata'] = {
    ...rest,
    resourceVersion: typeof rest.resourceVersion === 'string' ? rest.resourceVersion : '',
  };
  if (typeof token === 'string' && token !== '') metadata.continue = token;
  if (typeof remaining === 'number') metadata.remainingItemCount = remaining;
  return { ...page, metadata, items: Array.isArray(page.items) ? page.items : [] };
}

/** Built-in lists leave out the items' apiVersion/kind; watch events carry them. Same shape for both. */
function fillTypeMeta<T>(list: ObjectList<T>, resource: ApiResource, metadataOnly: boolean): ObjectList<T> {
  if (metadataOnly) return list;
  for (const item of list.items as (Record<string, unknown> | null)[]) {
    if (item === null || typeof item !== 'object') continue;
    if (item['apiVersion'] === undefined) item['apiVersion'] = resource.apiVersion;
    if (item['kind'] === undefined) item['kind'] = resource.kind;
  }
  return list;
}
