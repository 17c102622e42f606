/**
 * Discovery (REST mapping): apiVersion + kind → {@link ApiResource} (path, plural, scope, verbs,
 * subresources), read from the group-version documents `/api/v1` and `/apis/{group}/{version}`.
 * Cached per group-version; a kind that is not known yet (a CRD installed later) triggers a
 * refresh of its group-version, at most once per `minRefreshIntervalMs`.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import type { ResourceType } from '../types.js';
import { isNotFound, ResourceNotFoundError } from '../errors.js';
import type { HttpTransport } from '../transport/http-transport.js';
import type { ApiResource } from './api-resource.js';
import { makeApiResource, parseApiVersion } from './api-resource.js';

/**
 * Default minimum time between two refreshes of one group-version.
 *
 * ## Example
 * ```ts
 * // refresh an unknown kind's group-version at most every 30 s instead of every 10 s
 * const client = KubeClient.default({ discoveryRefreshIntervalMs: 3 * DEFAULT_DISCOVERY_REFRESH_MS });
 * ```
 */
export const DEFAULT_DISCOVERY_REFRESH_MS = 10_000;

/**
 * A clock: `asyncScheduler` (the default) or a test's.
 *
 * ## Example
 * ```ts
 * const clock: Clock = { now: () => testScheduler.now() };
 * const discovery = new Discovery(transport, { clock });
 * ```
 */
export interface Clock {
  now(): number;
}

/**
 * Options of {@link Discovery}.
 *
 * ## Example
 * ```ts
 * const options: DiscoveryOptions = { minRefreshIntervalMs: 1_000 };
 * const discovery = new Discovery(new HttpTransport(connectionFromKubeConfig(kubeConfig)), options);
 * ```
 */
export interface DiscoveryOptions {
  /** Minimum ms between two refreshes of one group-version when a kind is unknown (default 10 s). */
  readonly minRefreshIntervalMs?: number;
  /** Time source for the refresh bound (default `Date`-based). */
  readonly clock?: Clock;
}

interface APIResourceEntry {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
}

interface GroupVersion {
  /** undefined: the server does not serve this group-version (404). */
  readonly byKind: ReadonlyMap<string, ApiResource> | undefined;
  readonly fetchedAt: number;
}

const defaultClock: Clock = { now: () => Date.now() };

/**
 * Maps kinds to resources through the API server's discovery documents.
 *
 * ## Example
 * ```ts
 * const deployments = await client.discovery.resolve({ apiVersion: 'apps/v1', kind: 'Deployment' });
 * deployments.plural; // 'deployments'
 * ```
 *
 * ## Semantics
 * - The first `resolve` of a group-version fetches its document; later ones are answered from the
 *   cache. Concurrent calls share one request.
 * - An unknown kind, or a group-version the server does not serve (404), refetches that document if
 *   the last fetch is at least `minRefreshIntervalMs` old; otherwise (or if it is still unknown)
 *   `resolve` rejects with {@link ResourceNotFoundError}.
 * - Other failures (network, 403, 5xx) reject with the error and are not cached.
 *
 * ## Memory
 * One entry per group-version asked for (bounded by what the cluster serves plus the distinct
 * apiVersions callers ask for).
 */
export class Discovery {
  private readonly cache = new Map<string, GroupVersion>();
  private readonly inflight = new Map<string, Promise<GroupVersion>>();
  private readonly minRefreshIntervalMs: number;
  private readonly clock: Clock;

  /** @param transport sends the discovery requests.  @param options refresh bound and clock. */
  constructor(
    private readonly transport: HttpTransport,
    options: DiscoveryOptions = {},
  ) {
    this.minRefreshIntervalMs = options.minRefreshIntervalMs ?? DEFAULT_DISCOVERY_REFRESH_MS;
    this.clock = options.clock ?? defaultClock;
  }

  /**
   * The resource serving `kind` in `apiVersion`.
   * @throws {ResourceNotFoundError} when the server does not serve it.
   * @throws {InvalidArgumentError} for a malformed apiVersion or an empty kind.
   */
  async resolve(type: ResourceType): Promise<ApiResource> {
    const { group, version } = parseApiVersion(type.apiVersion, 'discovery.resolve');
    if (typeof type.kind !== 'string' || type.kind === '') {
      throw new InvalidArgumentError('discovery.resolve', 'kind', type.kind, 'must be a non-empty string');
    }
    const key = type.apiVersion;
    let gv = this.cache.get(key);
    if (gv === undefined) gv = await this.fetch(key, group, version);
    let found = gv.byKind?.get(type.kind);
    if (found) return found;
    if (this.clock.now() - gv.fetchedAt >= this.minRefreshIntervalMs) {
      gv = await this.fetch(key, group, version);
      found = gv.byKind?.get(type.kind);
      if (found) return found;
    }
    const wait = Math.max(0, this.minRefreshIntervalMs - (this.clock.now() - gv.fetchedAt));
    const found_ =
      gv.byKind === undefined
        ? `the server does not serve the group-version ${key}`
        : `the group-version ${key} has no kind ${type.kind}; it has ${[...gv.byKind.keys()].join(', ') || 'none'}`;
    throw new ResourceNotFoundError(
      type.apiVersion,
      type.kind,
      wait > 0 ? `${found_}; discovery checks again on a lookup after ${Math.ceil(wait / 1000)} s` : found_,
    );
  }

  /** All kinds of a group-version (fetched if not cached); empty when it is not served. */
  async resources(apiVersion: string): Promise<readonly ApiResource[]> {
    const { group, version } = parseApiVersion(apiVersion, 'discovery.resources');
    const gv = this.cache.get(apiVersion) ?? (await this.fetch(apiVersion, group, version));
    return gv.byKind ? [...gv.byKind.values()] : [];
  }

  /** Forgets every cached document; the next `resolve` refetches. */
  invalidate(): void {
    this.cache.clear();
  }

  private fetch(key: string, group: string, version: string): Promise<GroupVersion> {
    const running = this.inflight.get(key);
    if (running) return running;
    const p = this.load(group, version).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async load(group: string, version: string): Promise<GroupVersion> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    let doc: { resources?: APIResourceEntry[] } | undefined;
    try {
      doc = await this.transport.request<{ resources?: APIResourceEntry[] }>({
        method: 'GET',
        path,
        accept: 'application/json',
        target: { verb: 'get', resource: 'discovery', ...(group ? { group } : {}) },
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      doc = undefined;
    }
    const gv: GroupVersion = {
      byKind: doc === undefined ? undefined : toResources(group, version, doc.resources ?? []),
      fetchedAt: this.clock.now(),
    };
    this.cache.set(group === '' ? version : `${group}/${version}`, gv);
    return gv;
  }
}

function toResources(group: string, version: string, entries: APIResourceEntry[]): Map<string, ApiResource> {
  const subresources = new Map<string, string[]>();
  for (const e of entries) {
    const slash = e.name.indexOf('/');
    if (slash > 0) {
      const parent = e.name.slice(0, slash);
      const list = subresources.get(parent) ?? [];
      list.push(e.name.slice(slash + 1));
      subresources.set(parent, list);
    }
  }
  const byKind = new Map<string, ApiResource>();
  for (const e of entries) {
    if (e.name.includes('/')) continue;
    // Several resources can share a kind (rare); the first one listed is the canonical one.
    if (byKind.has(e.kind)) continue;
    byKind.set(
      e.kind,
      makeApiResource({
        group,
        version,
        kind: e.kind,
        plural: e.name,
        namespaced: e.namespaced,
        verbs: e.verbs ?? [],
        subresources: subresources.get(e.name) ?? [],
        shortNames: e.shortNames ?? [],
      }),
    );
  }
  return byKind;
}
