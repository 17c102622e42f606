/**
 * `ApiResource`: what discovery knows about one kind (group, version, plural, scope, verbs,
 * subresources) and how its URL paths are built.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

/**
 * Where in the resource tree a request goes.
 *
 * ## Example
 * ```ts
 * const widgets = await client.discovery.resolve({ apiVersion: 'example.com/v1', kind: 'Widget' });
 * const options: PathOptions = { namespace: 'default', name: 'w', subresource: 'status' };
 * widgets.path(options); // '/apis/example.com/v1/namespaces/default/widgets/w/status'
 * ```
 */
export interface PathOptions {
  /** Required for namespaced kinds, except for lists across all namespaces. */
  readonly namespace?: string;
  /** The object's name; leave out for the collection. */
  readonly name?: string;
  /** e.g. `status`; needs `name`. */
  readonly subresource?: string;
}

/**
 * One kind served by the API server, as discovery reports it (REST mapping).
 *
 * ## Example
 * ```ts
 * const widgets = await client.discovery.resolve({ apiVersion: 'example.com/v1', kind: 'Widget' });
 * widgets.path({ namespace: 'default', name: 'w', subresource: 'status' });
 * // '/apis/example.com/v1/namespaces/default/widgets/w/status'
 * ```
 */
export interface ApiResource {
  /** API group, `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** `v1`, `apps/v1`, `example.com/v1`. */
  readonly apiVersion: string;
  readonly kind: string;
  /** Lower-case plural used in URLs, e.g. `configmaps`. */
  readonly plural: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  /** Subresources discovery lists, e.g. `['status', 'scale']`. */
  readonly subresources: readonly string[];
  readonly shortNames: readonly string[];
  /** Builds the URL path of the collection, an object, or an object's subresource. */
  path(options?: PathOptions): string;
}

/** The fields a path is built from. */
export type ResourceCoordinates = Pick<ApiResource, 'group' | 'version' | 'plural' | 'namespaced' | 'kind'>;

/**
 * Builds an API path: `/api/v1[/namespaces/{ns}]/{plural}[/{name}[/{subresource}]]`, or
 * `/apis/{group}/{version}/…` for named groups. Segments are percent-encoded.
 *
 * ## Example
 * ```ts
 * resourcePath(configMaps, { namespace: 'a', name: 'b' }); // '/api/v1/namespaces/a/configmaps/b'
 * ```
 *
 * @throws {InvalidArgumentError} for a namespace on a cluster-scoped kind, an empty name, or a
 *   subresource without a name.
 */
export function resourcePath(resource: ResourceCoordinates, options: PathOptions = {}): string {
  const { namespace, name, subresource } = options;
  const base =
    resource.group === '' ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  if (namespace !== undefined) {
    if (!resource.namespaced) {
      throw new InvalidArgumentError(
        'resourcePath',
        'namespace',
        namespace,
        `must be left out: ${resource.kind} is cluster-scoped`,
      );
    }
    assertSegment('namespace', namespace);
  }
  if (name !== undefined) assertSegment('name', name);
  if (subresource !== undefined) {
    if (name === undefined) {
      throw new InvalidArgumentError(
        'resourcePath',
        'subresource',
        subresource,
        'needs a name: subresources belong to one object',
      );
    }
    assertSegment('subresource', subresource);
  }
  let path = base;
  if (namespace !== undefined) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${resource.plural}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource !== undefined) path += `/${encodeURIComponent(subresource)}`;
  return path;
}

function assertSegment(argument: string, value: unknown): void {
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..' || value.includes('/')) {
    throw new InvalidArgumentError(
      'resourcePath',
      argument,
      value,
      'must be a non-empty string without "/" (and not "." or "..")',
    );
  }
}

/** Splits an apiVersion into group and version (`v1` → core group). */
export function parseApiVersion(apiVersion: unknown, operator: string): { group: string; version: string } {
  if (typeof apiVersion !== 'string' || apiVersion === '') {
    throw new InvalidArgumentError(
      operator,
      'apiVersion',
      apiVersion,
      'must be a string like "v1" or "apps/v1"',
    );
  }
  const parts = apiVersion.split('/');
  if (parts.length === 1 && parts[0]) return { group: '', version: parts[0] };
  if (parts.length === 2 && parts[0] && parts[1]) return { group: parts[0], version: parts[1] };
  throw new InvalidArgumentError(
    operator,
    'apiVersion',
    apiVersion,
    'must look like "v1" or "group/version"',
  );
}

/** Makes an {@link ApiResource} (frozen) from its data. */
export function makeApiResource(data: Omit<ApiResource, 'path' | 'apiVersion'>): ApiResource {
  const apiVersion = data.group === '' ? data.version : `${data.group}/${data.version}`;
  const resource: ApiResource = {
    ...data,
    apiVersion,
    verbs: Object.freeze([...data.verbs]),
    subresources: Object.freeze([...data.subresources]),
    shortNames: Object.freeze([...data.shortNames]),
    path: (options?: PathOptions) => resourcePath(resource, options),
  };
  return Object.freeze(resource);
}
