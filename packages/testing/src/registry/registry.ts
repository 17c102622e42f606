/**
 * The set of served resources (built-ins plus CRD-served types) and the discovery documents built
 * from it, shaped exactly like kube-apiserver v1.24's
 * (packages/testing/fixtures/kube-wire/01-discovery.json).
 *
 * @module
 */
import { builtinTypes } from './builtins.js';
import type { ResourceType } from './types.js';

/**
 * The order of `/apis` on kube-apiserver v1.24 (the aggregator's APIService priorities), recorded
 * from a real server.
 */
const GROUP_ORDER = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
];

/** A served API group with its versions in preference order. */
export interface ServedGroup {
  readonly name: string;
  readonly versions: readonly string[];
}

/** The registry of served resources. */
export class Registry {
  /** key: `group/version` → resource → type */
  private readonly byGv = new Map<string, Map<string, ResourceType>>();
  /** group → ordered versions */
  private readonly groupOrder: string[] = [];
  private readonly groupVersions = new Map<string, string[]>();
  /** Incremented by every {@link add} and {@link remove}: derived documents (OpenAPI) rebuild when it moved. */
  revision = 0;

  constructor() {
    for (const t of builtinTypes()) this.add(t);
  }

  /** Adds (or replaces) a served type. */
  add(t: ResourceType): void {
    this.revision++;
    const gv = `${t.group}/${t.version}`;
    let m = this.byGv.get(gv);
    if (!m) {
      m = new Map();
      this.byGv.set(gv, m);
    }
    m.set(t.resource, t);
    if (!this.groupVersions.has(t.group)) {
      this.groupVersions.set(t.group, []);
      this.groupOrder.push(t.group);
    }
    const vs = this.groupVersions.get(t.group) ?? [];
    if (!vs.includes(t.version)) {
      vs.push(t.version);
      vs.sort(compareVersions);
    }
  }

  /** Removes a served type; drops the group-version/group when it becomes empty. */
  remove(group: string, version: string, resource: string): void {
    this.revision++;
    const gv = `${group}/${version}`;
    const m = this.byGv.get(gv);
    if (!m) return;
    m.delete(resource);
    if (m.size > 0) return;
    this.byGv.delete(gv);
    const vs = (this.groupVersions.get(group) ?? []).filter((v) => v !== version);
    if (vs.length === 0) {
      this.groupVersions.delete(group);
      const i = this.groupOrder.indexOf(group);
      if (i >= 0) this.groupOrder.splice(i, 1);
    } else {
      this.groupVersions.set(group, vs);
    }
  }

  /** Whether a group-version is served. */
  servesGroupVersion(group: string, version: string): boolean {
    return this.byGv.has(`${group}/${version}`);
  }

  /** The type served at group/version/resource. */
  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    return this.byGv.get(`${group}/${version}`)?.get(resource);
  }

  /** Every version of a storage key that is served (first = preferred). */
  typesOfStorage(storageKey: string): ResourceType[] {
    const out: ResourceType[] = [];
    for (const m of this.byGv.values())
      for (const t of m.values()) if (t.storageKey === storageKey) out.push(t);
    return out;
  }

  /** Finds a served type by apiVersion and kind (used for ownerReferences). */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    const m = this.byGv.get(`${group ?? ''}/${version ?? ''}`);
    if (!m) return undefined;
    for (const t of m.values()) if (t.kind === kind) return t;
    return undefined;
  }

  /** Every served type. */
  all(): ResourceType[] {
    const out: ResourceType[] = [];
    for (const m of this.byGv.values()) out.push(...m.values());
    return out;
  }

  /**
   * Served groups (core excluded): kube-apiserver's built-in groups in its order, then the others
   * (CRD groups) in registration order; versions in preference order.
   */
  groups(): ServedGroup[] {
    const rank = (g: string): number => {
      const i = GROUP_ORDER.indexOf(g);
      return i < 0 ? GROUP_ORDER.length : i;
    };
    return this.groupOrder
      .filter((g) => g !== '')
      .map((g, i) => ({ g, i }))
      .sort((a, b) => rank(a.g) - rank(b.g) || a.i - b.i)
      .map(({ g }) => ({ name: g, versions: [...(this.groupVersions.get(g) ?? [])] }));
  }

  /** `/api` */
  apiVersions(serverAddress: string): Record<string, unknown> {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
  }

  /** `/apis` */
  apiGroupList(): Record<string, unknown> {
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: this.groups().map(groupDoc) };
  }

  /** `/apis/{group}` */
  apiGroup(group: string): Record<string, unknown> | undefined {
    const g = this.groups().find((x) => x.name === group);
    return g ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g) } : undefined;
  }

  /** `/api/v1` or `/apis/{group}/{version}` */
  apiResourceList(group: string, version: string): Record<string, unknown> | undefined {
    const m = this.byGv.get(`${group}/${version}`);
    if (!m) return undefined;
    const resources: Record<string, unknown>[] = [];
    const sorted = [...m.values()].sort((a, b) => (a.resource < b.resource ? -1 : 1));
    for (const t of sorted) {
      const entry: Record<string, unknown> = {
        name: t.resource,
        singularName: t.singularName,
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: [...t.verbs],
      };
      if (t.shortNames.length > 0) entry['shortNames'] = [...t.shortNames];
      if (t.categories.length > 0) entry['categories'] = [...t.categories];
      if (t.storageVersionHash !== '') entry['storageVersionHash'] = t.storageVersionHash;
      resources.push(entry);
      const subs = [...(t.subresources ?? [])];
      if (t.hasStatus) subs.push({ name: 'status', kind: t.kind, verbs: ['get', 'patch', 'update'] });
      subs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const sub of subs) {
        resources.push({
          name: `${t.resource}/${sub.name}`,
          singularName: '',
          namespaced: t.namespaced,
          ...(sub.group !== undefined ? { group: sub.group } : {}),
          ...(sub.version !== undefined ? { version: sub.version } : {}),
          kind: sub.kind,
          verbs: [...sub.verbs],
        });
      }
    }
    const gv = group === '' ? version : `${group}/${version}`;
    return group === ''
      ? { kind: 'APIResourceList', groupVersion: gv, resources }
      : { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources };
  }
}

function groupDoc(g: ServedGroup): Record<string, unknown> {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first; others alphabetical. */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) if ((ra[i] ?? 0) !== (rb[i] ?? 0)) return (ra[i] ?? 0) - (rb[i] ?? 0);
  return a < b ? -1 : a > b ? 1 : 0;
}
