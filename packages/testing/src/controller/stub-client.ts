/**
 * `stubClient()`: a {@link Client} that answers reads from the objects it was given and records
 * every write (controller-runtime's fake client) — so a reconcile or a whole controller can be
 * tested without an API server, or without a `KubeClient` built from a fake kubeconfig.
 *
 * What it does not do: validate against schemas, run admission, garbage-collect, or merge
 * server-side applies by field ownership (an apply merges its body into the object). For those,
 * test against `startApiServer()`.
 *
 * @module
 */
import type { Client, KubeObject, ObjectLike, ObjectRef, ResourceType } from '@rxkube/kube';
import type {
  ApiResource,
  DeleteOptions,
  ListOptions,
  ObjectList,
  Patch,
  PatchOptions,
  Status,
  WriteOptions,
} from '@rxkube/kube/client';
import { KubeApiError } from '@rxkube/kube';
import { resourcePath } from '@rxkube/kube/client';
import { labelMatcher } from '@rxkube/kube/reflector';

import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';

/**
 * One write a {@link StubClient} received, in order.
 *
 * @example
 * ```ts
 * const client = stubClient([testObject('ns/web', {}, { apiVersion: 'apps/v1', kind: 'Deployment' })]);
 * const patch: Patch = { type: 'merge', body: { spec: { replicas: 2 } } };
 * await client.patch({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'ns', name: 'web' }, patch);
 * expect(client.writes.map((w: StubWrite) => `${w.verb} ${w.ref.name}`)).toEqual(['patch web']);
 * ```
 */
export interface StubWrite {
  readonly verb: 'create' | 'replace' | 'patch' | 'apply' | 'delete';
  /** The object written (`apiVersion`, `kind`, `namespace`, `name`). */
  readonly ref: ObjectRef;
  /** `create`/`replace`/`apply`: the body sent; `patch`: the patch. */
  readonly body?: unknown;
  /** `patch`: the patch type. */
  readonly patchType?: Patch['type'];
  /** e.g. `status`. */
  readonly subresource?: string;
  /** The options passed (field manager, force, preconditions, …). */
  readonly options?: Readonly<Record<string, unknown>>;
}

/**
 * A {@link Client} over objects in memory, recording writes.
 *
 * @example
 * ```ts
 * const client: StubClient = stubClient([testObject('shop/web', {}, { apiVersion: 'v1', kind: 'ConfigMap' })]);
 * // what a reconcile writes through it:
 * await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'web-token' } });
 * expect(client.objects()).toContainEqual(expect.objectContaining({ kind: 'Secret' }));
 * ```
 */
export interface StubClient extends Client {
  /** Every write received, in order. */
  readonly writes: StubWrite[];
  /** The objects now held (copies). */
  objects(): KubeObject[];
}

/**
 * Options of {@link stubClient}.
 *
 * @example
 * ```ts
 * const client = stubClient([widget], { clusterScoped: ['ClusterWidget'] });
 * ```
 */
export interface StubClientOptions {
  /** Kinds that are cluster-scoped besides the built-in ones (Namespace, Node, CRDs, …), e.g. `['Widget']`. */
  readonly clusterScoped?: readonly string[];
}

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'StorageClass',
  'PriorityClass',
  'APIService',
]);

/**
 * A {@link StubClient} holding copies of `objects`: `get`/`list` read them (404 `KubeApiError` for
 * a missing one, label selectors honoured), writes change them — `resourceVersion` and `generation`
 * (on spec changes) move as on a server, a `create` of an existing name is 409 AlreadyExists, a
 * `replace` with a stale `resourceVersion` 409 Conflict, a `delete` of an object with finalizers
 * sets `deletionTimestamp` — and are recorded in `writes`.
 *
 * ## Example
 * ```ts
 * const CM: ResourceType<ConfigMap> = { apiVersion: 'v1', kind: 'ConfigMap' };
 * const client = stubClient([testObject('shop/web', {}, CM)]);
 * const ctrl = controller({ for: CM, client, registry: new ScriptedWatchRegistry({ ConfigMap: client.objects() }) });
 * // … run it, then:
 * expect(client.writes.map((w) => [w.verb, w.ref.name])).toEqual([['patch', 'web']]);
 * ```
 */
export function stubClient(objects: readonly ObjectLike[] = [], options: StubClientOptions = {}): StubClient {
  const clusterScoped = new Set([...CLUSTER_SCOPED, ...(options.clusterScoped ?? [])]);
  const store = new Map<string, KubeObject>();
  const writes: StubWrite[] = [];
  let version = 1000;
  const keyOf = (type: ResourceType, namespace: string | undefined, name: string): string =>
    JSON.stringify([groupOf(type.apiVersion), type.kind, namespace ?? '', name]);
  const resourceOf = (type: ResourceType): ApiResource => {
    const [group, version] = splitApiVersion(type.apiVersion);
    const resource: ApiResource = {
      group,
      version,
      apiVersion: type.apiVersion,
      kind: type.kind,
      plural: pluralOf(type.kind),
      namespaced: !clusterScoped.has(type.kind),
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      subresources: ['status'],
      shortNames: [],
      path: (o) => resourcePath(resource, o),
    };
    return resource;
  };
  const notFound = (verb: string, ref: ObjectRef): KubeApiError => {
    const r = resourceOf(ref);
    return new KubeApiError({
      httpStatus: 404,
      method: verb === 'get' ? 'GET' : 'PATCH',
      url: `stub://${r.path({ ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}), name: ref.name })}`,
      target: {
        verb,
        group: r.group,
        resource: r.plural,
        ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
      },
      status: status(404, 'NotFound', `${r.plural} "${ref.name}" not found`, ref.name, r),
    });
  };
  const conflict = (verb: string, ref: ObjectRef, reason: 'Conflict' | 'AlreadyExists', message: string) => {
    const r = resourceOf(ref);
    return new KubeApiError({
      httpStatus: 409,
      method: verb === 'create' ? 'POST' : 'PUT',
      url: `stub://${r.path(ref.namespace !== undefined ? { namespace: ref.namespace } : {})}`,
      target: {
        verb,
        group: r.group,
        resource: r.plural,
        ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
      },
      status: status(409, reason, message, ref.name, r),
    });
  };
  const refOf = (object: ObjectLike, namespace?: string): ObjectRef => {
    const ns = object.metadata?.namespace ?? namespace;
    return {
      apiVersion: object.apiVersion ?? '',
      kind: object.kind ?? '',
      ...(ns !== undefined ? { namespace: ns } : {}),
      name: object.metadata?.name ?? '',
    };
  };
  const stored = (ref: ObjectRef): KubeObject | undefined => store.get(keyOf(ref, ref.namespace, ref.name));
  const put = (before: KubeObject | undefined, after: KubeObject): KubeObject => {
    const meta = { ...after.metadata };
    meta.resourceVersion = String(++version);
    meta.uid ??= before?.metadata.uid ?? `uid-${meta.name ?? ''}`;
    const specChanged = JSON.stringify(before?.['spec']) !== JSON.stringify(after['spec']);
    meta.generation = before === undefined ? 1 : (before.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    const object = { ...after, metadata: meta } as KubeObject;
    store.set(keyOf(refOf(object), meta.namespace, meta.name ?? ''), object);
    return structuredClone(object);
  };
  for (const o of objects) put(undefined, structuredClone(o) as KubeObject);
  const record = (write: StubWrite): void => {
    writes.push(write);
  };
  const onlySubresource = (
    before: KubeObject,
    after: KubeObject,
    subresource: string | undefined,
  ): KubeObject => (subresource === 'status' ? { ...before, status: after['status'] } : after);

  const client: StubClient = {
    writes,
    objects: () => [...store.values()].map((o) => structuredClone(o)),
    discovery: { resolve: (type: ResourceType) => Promise.resolve(resourceOf(type)) },
    get: <T = Record<string, unknown>>(ref: ObjectRef): Promise<T> => {
      const o = stored(ref);
      return o === undefined
        ? Promise.reject(notFound('get', ref))
        : Promise.resolve(structuredClone(o) as T);
    },
    list: <T = Record<string, unknown>>(type: ResourceType, o: ListOptions = {}): Promise<ObjectList<T>> => {
      const matches = o.labelSelector !== undefined ? labelMatcher(o.labelSelector) : () => true;
      const items = [...store.values()].filter(
        (obj) =>
          groupOf(obj.apiVersion ?? '') === groupOf(type.apiVersion) &&
          obj.kind === type.kind &&
          (o.namespace === undefined || obj.metadata.namespace === o.namespace) &&
          matches(obj.metadata.labels),
      );
      return Promise.resolve({
        apiVersion: type.apiVersion,
        kind: `${type.kind}List`,
        metadata: { resourceVersion: String(version) },
        items: items.map((i) => structuredClone(i) as T),
      });
    },
    create: <T extends ObjectLike>(body: T, o: WriteOptions = {}): Promise<T> => {
      const ref = refOf(body, o.namespace);
      record({ verb: 'create', ref, body: structuredClone(body), options: { ...o } });
      if (stored(ref) !== undefined) {
        return Promise.reject(conflict('create', ref, 'AlreadyExists', `"${ref.name}" already exists`));
      }
      const meta = { ...body.metadata, ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}) };
      return Promise.resolve(
        put(undefined, { ...structuredClone(body), metadata: meta } as unknown as KubeObject) as unknown as T,
      );
    },
    replace: <T extends ObjectLike>(body: T, o: WriteOptions = {}): Promise<T> => {
      const ref = refOf(body, o.namespace);
      record({ verb: 'replace', ref, body: structuredClone(body), options: { ...o } });
      const before = stored(ref);
      if (before === undefined) return Promise.reject(notFound('update', ref));
      const rv = body.metadata?.resourceVersion;
      if (rv !== undefined && rv !== before.metadata.resourceVersion) {
        return Promise.reject(conflict('update', ref, 'Conflict', 'the object has been modified'));
      }
      const after = onlySubresource(before, structuredClone(body) as unknown as KubeObject, o.subresource);
      return Promise.resolve(put(before, after) as unknown as T);
    },
    patch: <T = Record<string, unknown>>(ref: ObjectRef, patch: Patch, o: PatchOptions = {}): Promise<T> => {
      record({
        verb: 'patch',
        ref,
        body: structuredClone(patch.body),
        patchType: patch.type,
        ...(o.subresource !== undefined ? { subresource: o.subresource } : {}),
        options: { ...o },
      });
      const before = stored(ref);
      if (before === undefined) {
        if (patch.type !== 'apply') return Promise.reject(notFound('patch', ref));
        return Promise.resolve(put(undefined, structuredClone(patch.body) as KubeObject) as T);
      }
      try {
        const patched = (
          patch.type === 'json' ? applyJsonPatch(before, patch.body) : applyMergePatch(before, patch.body)
        ) as KubeObject;
        return Promise.resolve(put(before, onlySubresource(before, patched, o.subresource)) as T);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    apply: <T extends ObjectLike>(body: T, o: PatchOptions & { fieldManager: string }): Promise<T> => {
      const ref = refOf(body, o.namespace);
      record({ verb: 'apply', ref, body: structuredClone(body), options: { ...o } });
      const before = stored(ref);
      const merged = (
        before === undefined ? structuredClone(body) : applyMergePatch(before, body)
      ) as KubeObject;
      const after = before === undefined ? merged : onlySubresource(before, merged, o.subresource);
      return Promise.resolve(put(before, after) as unknown as T);
    },
    delete: <T = Record<string, unknown>>(ref: ObjectRef, o: DeleteOptions = {}): Promise<T | Status> => {
      record({ verb: 'delete', ref, options: { ...o } });
      const before = stored(ref);
      if (before === undefined) return Promise.reject(notFound('delete', ref));
      if (o.preconditions?.uid !== undefined && o.preconditions.uid !== before.metadata.uid) {
        return Promise.reject(
          conflict('delete', ref, 'Conflict', 'Precondition failed: UID in precondition does not match'),
        );
      }
      if ((before.metadata.finalizers ?? []).length > 0) {
        const after = {
          ...before,
          metadata: { ...before.metadata, deletionTimestamp: new Date(0).toISOString() },
        };
        return Promise.resolve(put(before, after) as T);
      }
      store.delete(keyOf(ref, ref.namespace, ref.name));
      return Promise.resolve({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success' } as Status);
    },
  };
  return client;
}

function status(code: number, reason: string, message: string, name: string, r: ApiResource): Status {
  return {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    details: { name, group: r.group, kind: r.plural },
    code,
  };
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
