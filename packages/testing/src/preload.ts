/**
 * Objects a server starts with (`startApiServer({ crds, objects })`, `rxkube-apiserver -f dir/`):
 * the CRDs first, each waited for until its kinds are served (Established), then the objects —
 * Namespaces before the rest, so a manifest may list a namespace after what lives in it. Every
 * object is created as `kubectl create` would (field manager `rxkube-apiserver`), with the same
 * validation; the first refusal stops the start with a {@link PreloadError} naming the object.
 *
 * Also reads manifests from files and folders (`.yaml`, `.yml`, `.json`; several YAML documents per
 * file; `List` kinds expanded) for the CLI, with the reader of `manifests/` that `rxkube run -f`
 * shares.
 *
 * @module
 */
import type { Engine } from './handlers/engine.js';
import type { Registry } from './registry/registry.js';
import { ApiError } from './status.js';
import { ManifestReadError, readManifestDocuments, type ManifestDocument } from './manifests/index.js';
import type { KObj } from './store/object.js';
import { clone, isObject } from './store/object.js';

/**
 * An object given to start with could not be created; the message says which and why.
 *
 * ## Example
 * ```ts
 * const orphan = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'missing' } };
 * await expect(startApiServer({ objects: [orphan] })).rejects.toThrow(PreloadError); // no such namespace
 * ```
 */
export class PreloadError extends Error {
  readonly _tag = 'PreloadError';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'PreloadError';
  }
}

const CRD_API = 'apiextensions.k8s.io/v1';

function describe(o: KObj, where: string): string {
  const ns = o.metadata.namespace;
  return `${where} (${String(o['kind'])} ${ns ? `${ns}/` : ''}${o.metadata.name ?? o.metadata.generateName ?? '?'})`;
}

function create(engine: Engine, registry: Registry, o: KObj, where: string): void {
  const apiVersion = typeof o['apiVersion'] === 'string' ? o['apiVersion'] : '';
  const kind = typeof o['kind'] === 'string' ? o['kind'] : '';
  if (!isObject(o.metadata))
    throw new PreloadError(
      `${where}: not a Kubernetes object (no metadata); give apiVersion, kind and metadata`,
    );
  const type = registry.byKind(apiVersion, kind);
  if (!type) {
    throw new PreloadError(
      `${describe(o, where)}: the server does not serve ${kind} in ${apiVersion || '""'}; list its CRD in crds (or -f), or add it with kinds`,
    );
  }
  const body = clone(o);
  const namespace = type.namespaced ? (body.metadata.namespace ?? 'default') : undefined;
  try {
    engine.checkTypeMeta(type, body);
    engine.create(type, namespace, body, { manager: 'rxkube-apiserver' });
  } catch (e) {
    const why = e instanceof ApiError ? e.message : e instanceof Error ? e.message : String(e);
    throw new PreloadError(`${describe(o, where)} was refused: ${why}`, e);
  }
}

/**
 * Creates `crds`, waits until each is served, then creates `objects` (Namespaces first).
 *
 * @param engine the server's engine.
 * @param registry the served types.
 * @param crds CustomResourceDefinition manifests.
 * @param objects any other manifests.
 */
export async function preload(
  engine: Engine,
  registry: Registry,
  crds: readonly KObj[],
  objects: readonly KObj[],
): Promise<void> {
  crds.forEach((crd, i) => {
    if (crd['apiVersion'] !== CRD_API || crd['kind'] !== 'CustomResourceDefinition')
      throw new PreloadError(
        `${describe(crd, `crds[${String(i)}]`)}: not an ${CRD_API} CustomResourceDefinition`,
      );
    create(engine, registry, crd, `crds[${String(i)}]`);
  });
  // the CRD controller establishes on the next ticks: wait until every CRD's storage version is served
  for (const [i, crd] of crds.entries()) {
    const spec = isObject(crd['spec']) ? crd['spec'] : {};
    const names = isObject(spec['names']) ? spec['names'] : {};
    const group = String(spec['group']);
    const plural = String(names['plural']);
    let served = false;
    for (let attempt = 0; attempt < 1000 && !served; attempt++) {
      served = registry.typesOfStorage(`${group}/${plural}`).length > 0;
      if (!served) await new Promise((r) => setImmediate(r));
    }
    if (!served)
      throw new PreloadError(`${describe(crd, `crds[${String(i)}]`)} was not established (names conflict?)`);
  }
  const indexed = objects.map((o, i) => ({ o, where: `objects[${String(i)}]` }));
  const namespacesFirst = [
    ...indexed.filter(({ o }) => o['kind'] === 'Namespace' && o['apiVersion'] === 'v1'),
    ...indexed.filter(({ o }) => !(o['kind'] === 'Namespace' && o['apiVersion'] === 'v1')),
  ];
  for (const { o, where } of namespacesFirst) {
    if (o['kind'] === 'Namespace' && engine.store.get('/namespaces', o.metadata.name ?? '')) continue;
    create(engine, registry, o, where);
  }
}

/**
 * Manifests read from files and folders, split into CRDs and other objects.
 *
 * ## Example
 * ```ts
 * import { readManifests, type Manifests } from '@rxkube/testing';
 * const { crds, objects }: Manifests = readManifests(['deploy/']);
 * const server = await startApiServer({ crds, objects });
 * ```
 */
export interface Manifests {
  readonly crds: KObj[];
  readonly objects: KObj[];
}

/**
 * Reads manifests from files and folders (a folder's `.yaml`, `.yml` and `.json` files, in name
 * order, not recursively — as `kubectl apply -f dir/`); `List` kinds are expanded.
 *
 * ## Example
 * ```ts
 * import { readManifests } from '@rxkube/testing';
 * const server = await startApiServer(readManifests(['crd.yaml', 'samples/'])); // { crds, objects }
 * ```
 *
 * @throws PreloadError naming the file when it cannot be read or parsed.
 */
export function readManifests(paths: readonly string[]): Manifests {
  let documents: ManifestDocument[];
  try {
    documents = readManifestDocuments(paths);
  } catch (e) {
    if (!(e instanceof ManifestReadError)) throw e;
    throw e.failure === 'not-found'
      ? new PreloadError(`-f ${e.path}: no such file or folder`, e.cause)
      : new PreloadError(`${e.path}: ${e.detail}`, e.cause);
  }
  const out: Manifests = { crds: [], objects: [] };
  for (const { object } of documents) {
    const o = { ...object, metadata: isObject(object['metadata']) ? object['metadata'] : {} } as KObj;
    if (o['kind'] === 'CustomResourceDefinition') out.crds.push(o);
    else out.objects.push(o);
  }
  return out;
}
