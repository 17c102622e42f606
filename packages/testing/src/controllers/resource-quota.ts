/**
 * ResourceQuota as an operator author sees it on a real cluster: kube-controller-manager's quota
 * controller (`pkg/controller/resourcequota`) fills `status.hard` and `status.used`, and
 * kube-apiserver's ResourceQuota admission plugin (`plugin/pkg/admission/resourcequota`, on by
 * default) refuses a create that would exceed a quota and charges the ones it admits.
 *
 * - The controller: on the tick after any write in a namespace with quotas, each quota's
 *   `status.hard` becomes its `spec.hard` (canonical quantities) and `status.used` the namespace's
 *   usage of every hard resource this file can measure (a resource it cannot — `count/` of a kind
 *   not served — gets no entry, as on the real server). Written as `kube-controller-manager`
 *   through the status subresource, only when something differs.
 * - Admission, on a create of the main resource: for each quota whose `status.hard` names a
 *   resource the object uses, a Pod must state every cpu/memory request or limit the quota tracks
 *   (`failed quota: q: must specify …`); the quota must have `status.used` for those resources
 *   (`status unknown for quota: …`); the new usage must stay within `status.hard` (`exceeded
 *   quota: q, requested: …, used: …, limited: …`) — each a 403 Forbidden with the real text. An
 *   admitted create adds its usage to `status.used` at once (a dry run does not). A quota without
 *   `status.hard` yet (just created) limits nothing, as on the real server.
 *
 * Measured: `count/<resource>[.<group>]` of every served namespaced kind; `pods` (not terminal),
 * `cpu`/`memory`/`ephemeral-storage` and their `requests.`/`limits.` forms (the Pod's requests and
 * limits: containers summed, the largest init container if bigger, plus `overhead`);
 * `configmaps`, `secrets`, `services`, `replicationcontrollers`, `resourcequotas`,
 * `persistentvolumeclaims`; `services.loadbalancers`, `services.nodeports` (the ports of NodePort
 * and LoadBalancer Services); `requests.storage` of PersistentVolumeClaims.
 *
 * Not simulated: quota `scopes` and `scopeSelector` (such a quota gets no status and limits
 * nothing), per-StorageClass and extended resources (`requests.nvidia.com/gpu`, hugepages),
 * charging updates (a Pod resize, a PVC expansion, a Service changing type), the admission
 * configuration's `limitedResources`, and the real controller's delay (~1 s there).
 *
 * @module
 */
import type { Engine } from '../handlers/engine.js';
import type { WriteAttributes } from '../handlers/engine-types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceType } from '../registry/types.js';
import {
  addQuantities,
  canonicalQuantity,
  formatQuantity,
  parseQuantity,
} from '../registry/kinds/quantity.js';
import type { Quantity } from '../registry/kinds/quantity.js';
import { ApiError, failure, qualified } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { isObject } from '../store/object.js';

const MANAGER = 'kube-controller-manager';
const ONE: Quantity = { nanos: 1_000_000_000n, format: 'DecimalSI' };
const ZERO: Quantity = { nanos: 0n, format: 'DecimalSI' };
/** The resources a quota on cpu or memory makes every container state (`validationSet`). */
const MUST_SPECIFY = new Set([
  'cpu',
  'memory',
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
]);
/** Legacy object-count names of core kinds. */
const LEGACY_COUNTS: Readonly<Record<string, string>> = {
  configmaps: 'configmaps',
  secrets: 'secrets',
  services: 'services',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
  persistentvolumeclaims: 'persistentvolumeclaims',
};
const COMPUTE = ['cpu', 'memory', 'ephemeral-storage'] as const;

type Usage = Map<string, Quantity>;

/** The quota controller and admission plugin of one embedded server. */
export class ResourceQuotaController {
  private stopped = false;
  private readonly pending = new Set<string>();
  private scheduled = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly engine: Engine,
    private readonly registry: Registry,
    private readonly log: (msg: string, err: unknown) => void,
  ) {
    this.unsubscribe = engine.store.subscribeAll((e) => {
      const ns = e.object.metadata.namespace;
      if (ns !== undefined && ns !== '') this.schedule(ns);
    });
  }

  /** Stops reacting to writes. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    this.pending.clear();
  }

  /** The admission plugin, as an engine `admit` hook. Throws `ApiError` (403). */
  admit(w: WriteAttributes): void {
    if (w.operation !== 'CREATE' || w.subresource !== undefined || w.namespace === undefined) return;
    const quotaType = this.quotaType();
    if (quotaType === undefined) return;
    const quotas = this.quotasOf(quotaType, w.namespace).filter(({ quota }) => !scoped(quota));
    if (quotas.length === 0) return;
    const delta = usageOfObject(w.type, w.object);
    const forbid = (message: string): ApiError =>
      new ApiError(
        failure(403, 'Forbidden', `${qualified(w.type)} "${w.name}" is forbidden: ${message}`, {
          name: w.name,
          group: w.type.group,
          kind: w.type.resource,
        }),
      );
    const charged: { key: string; quota: KObj; used: Json }[] = [];
    for (const { key, quota } of quotas) {
      const status = isObject(quota['status']) ? quota['status'] : {};
      const hard = isObject(status['hard']) ? status['hard'] : {};
      const used = isObject(status['used']) ? status['used'] : {};
      const name = quota.metadata.name ?? '';
      const restricted = Object.keys(hard).filter((r) => measures(w.type, r));
      if (restricted.length === 0) continue;
      if (w.type.group === '' && w.type.resource === 'pods') {
        const missing = missingRequirements(w.object, restricted);
        if (missing !== undefined) throw forbid(`failed quota: ${name}: must specify ${missing}`);
      }
      if (restricted.some((r) => !(r in used))) {
        throw forbid(`status unknown for quota: ${name}, resources: ${[...restricted].sort().join(',')}`);
      }
      const requested = new Map([...delta].filter(([r, q]) => restricted.includes(r) && q.nanos !== 0n));
      if (requested.size === 0) continue;
      const next: Json = { ...used };
      const exceeded: string[] = [];
      for (const [r, q] of requested) {
        const sum = addQuantities(parseQuantity(used[r]) ?? ZERO, q);
        next[r] = formatQuantity(sum);
        const limit = parseQuantity(hard[r]);
        if (limit !== undefined && sum.nanos > limit.nanos) exceeded.push(r);
      }
      if (exceeded.length > 0) {
        exceeded.sort();
        const list = (of: (r: string) => string): string => exceeded.map((r) => `${r}=${of(r)}`).join(',');
        throw forbid(
          `exceeded quota: ${name}, requested: ${list((r) => formatQuantity(requested.get(r) ?? ZERO))}, ` +
            `used: ${list((r) => formatQuantity(parseQuantity(used[r]) ?? ZERO))}, limited: ${list((r) =>
              formatQuantity(parseQuantity(hard[r]) ?? ZERO),
            )}`,
        );
      }
      charged.push({ key, quota, used: next });
    }
    if (w.dryRun === true) return;
    for (const { key, quota, used } of charged) {
      const status = isObject(quota['status']) ? quota['status'] : {};
      this.engine.controllerUpdate(
        quotaType,
        key,
        { ...quota, status: { ...status, used } },
        'kube-apiserver',
        'status',
      );
    }
  }

  private quotaType(): ResourceType | undefined {
    return this.registry.lookup('', 'v1', 'resourcequotas');
  }

  private quotasOf(type: ResourceType, namespace: string): { key: string; quota: KObj }[] {
    const out: { key: string; quota: KObj }[] = [];
    for (const key of this.engine.store.sortedKeys(type.storageKey)) {
      if (!key.startsWith(`${namespace}/`)) continue;
      const quota = this.engine.store.get(type.storageKey, key);
      if (quota !== undefined && !quota.metadata.deletionTimestamp) out.push({ key, quota });
    }
    return out;
  }

  private schedule(namespace: string): void {
    if (this.stopped) return;
    this.pending.add(namespace);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const namespaces = [...this.pending];
      this.pending.clear();
      for (const ns of namespaces) {
        if (this.stopped) return;
        try {
          this.sync(ns);
        } catch (e) {
          this.log(`resource quota pass for namespace ${ns} failed`, e);
        }
      }
    });
  }

  /** Writes `status.hard` and `status.used` of every quota of `namespace` that differs. */
  private sync(namespace: string): void {
    const type = this.quotaType();
    if (type === undefined) return;
    const quotas = this.quotasOf(type, namespace).filter(({ quota }) => !scoped(quota));
    if (quotas.length === 0) return;
    const usage = this.namespaceUsage(namespace);
    for (const { key, quota } of quotas) {
      const spec = isObject(quota['spec']) ? quota['spec'] : {};
      const specHard = isObject(spec['hard']) ? spec['hard'] : {};
      const hard: Json = {};
      const used: Json = {};
      for (const r of Object.keys(specHard).sort()) {
        hard[r] = canonicalQuantity(specHard[r]);
        const u = usage(r);
        if (u !== undefined) used[r] = formatQuantity(u);
      }
      const status = isObject(quota['status']) ? quota['status'] : {};
      const next: Json = {
        ...status,
        ...(Object.keys(hard).length > 0 ? { hard } : {}),
        ...(Object.keys(used).length > 0 ? { used } : {}),
      };
      if (JSON.stringify(sorted(next)) === JSON.stringify(sorted(status))) continue;
      this.engine.controllerUpdate(type, key, { ...quota, status: next }, MANAGER, 'status');
    }
  }

  /** The usage of one resource name in `namespace`, memoised per pass; `undefined`: not measured. */
  private namespaceUsage(namespace: string): (resource: string) => Quantity | undefined {
    const byType = new Map<ResourceType, Usage>();
    const total = (type: ResourceType): Usage => {
      let usage = byType.get(type);
      if (usage !== undefined) return usage;
      usage = new Map();
      for (const key of this.engine.store.sortedKeys(type.storageKey)) {
        if (!key.startsWith(`${namespace}/`)) continue;
        const o = this.engine.store.get(type.storageKey, key);
        if (o === undefined) continue;
        for (const [r, q] of usageOfObject(type, o)) usage.set(r, addQuantities(usage.get(r) ?? ZERO, q));
      }
      byType.set(type, usage);
      return usage;
    };
    return (resource) => {
      const type = this.typeMeasuring(resource);
      return type === undefined ? undefined : (total(type).get(resource) ?? ZERO);
    };
  }

  /** The served namespaced kind whose objects a resource name counts. */
  private typeMeasuring(resource: string): ResourceType | undefined {
    const core = (plural: string) => this.registry.lookup('', 'v1', plural);
    if (resource.startsWith('count/')) {
      const name = resource.slice('count/'.length);
      const dot = name.indexOf('.');
      const plural = dot < 0 ? name : name.slice(0, dot);
      const group = dot < 0 ? '' : name.slice(dot + 1);
      return this.registry.all().find((t) => t.namespaced && t.group === group && t.resource === plural);
    }
    const legacy = LEGACY_COUNTS[resource];
    if (legacy !== undefined) return core(legacy);
    if (resource === 'pods' || podCompute(resource)) return core('pods');
    if (resource === 'services.loadbalancers' || resource === 'services.nodeports') return core('services');
    if (resource === 'requests.storage') return core('persistentvolumeclaims');
    return undefined;
  }
}

/** Whether the quota is restricted by scopes (not simulated). */
function scoped(quota: KObj): boolean {
  const spec = isObject(quota['spec']) ? quota['spec'] : {};
  return (Array.isArray(spec['scopes']) && spec['scopes'].length > 0) || isObject(spec['scopeSelector']);
}

/** `cpu`, `requests.memory`, `limits.ephemeral-storage`, … */
function podCompute(resource: string): boolean {
  const base = resource.replace(/^(requests|limits)\./, '');
  return (COMPUTE as readonly string[]).includes(base);
}

/** Whether a resource name of a quota counts objects of `type`. */
function measures(type: ResourceType, resource: string): boolean {
  const count = `count/${type.group === '' ? type.resource : `${type.resource}.${type.group}`}`;
  if (resource === count) return true;
  if (type.group !== '') return false;
  if (LEGACY_COUNTS[resource] === type.resource) return true;
  if (type.resource === 'pods') return resource === 'pods' || podCompute(resource);
  if (type.resource === 'services')
    return resource === 'services.loadbalancers' || resource === 'services.nodeports';
  if (type.resource === 'persistentvolumeclaims') return resource === 'requests.storage';
  return false;
}

/** What one object adds to its namespace's usage (`Usage` of its evaluator). */
function usageOfObject(type: ResourceType, o: KObj): Usage {
  const usage: Usage = new Map();
  usage.set(`count/${type.group === '' ? type.resource : `${type.resource}.${type.group}`}`, ONE);
  if (type.group !== '') return usage;
  const legacy = LEGACY_COUNTS[type.resource];
  if (legacy !== undefined) usage.set(legacy, ONE);
  const spec = isObject(o['spec']) ? o['spec'] : {};
  if (type.resource === 'pods') {
    const status = isObject(o['status']) ? o['status'] : {};
    if (status['phase'] === 'Succeeded' || status['phase'] === 'Failed') return usage;
    usage.set('pods', ONE);
    for (const [r, q] of podResources(spec, 'requests')) {
      usage.set(`requests.${r}`, q);
      usage.set(r, q);
    }
    for (const [r, q] of podResources(spec, 'limits')) usage.set(`limits.${r}`, q);
  } else if (type.resource === 'services') {
    const serviceType = spec['type'];
    const ports = Array.isArray(spec['ports']) ? spec['ports'].length : 0;
    const lb = serviceType === 'LoadBalancer';
    usage.set('services.loadbalancers', lb ? ONE : ZERO);
    usage.set('services.nodeports', {
      nanos: lb || serviceType === 'NodePort' ? BigInt(ports) * ONE.nanos : 0n,
      format: 'DecimalSI',
    });
  } else if (type.resource === 'persistentvolumeclaims') {
    const resources = isObject(spec['resources']) ? spec['resources'] : {};
    const requests = isObject(resources['requests']) ? resources['requests'] : {};
    usage.set('requests.storage', parseQuantity(requests['storage']) ?? ZERO);
  }
  return usage;
}

/** `PodRequests`/`PodLimits`: containers summed, the largest init container if bigger, overhead. */
function podResources(spec: Json, which: 'requests' | 'limits'): Usage {
  const of = (c: unknown): Usage => {
    const out: Usage = new Map();
    const resources = isObject(c) && isObject(c['resources']) ? c['resources'] : {};
    const list = isObject(resources[which]) ? resources[which] : {};
    for (const r of COMPUTE) {
      const q = parseQuantity(list[r]);
      if (q !== undefined) out.set(r, q);
    }
    return out;
  };
  const sum: Usage = new Map();
  for (const c of Array.isArray(spec['containers']) ? spec['containers'] : []) {
    for (const [r, q] of of(c)) sum.set(r, addQuantities(sum.get(r) ?? ZERO, q));
  }
  for (const c of Array.isArray(spec['initContainers']) ? spec['initContainers'] : []) {
    for (const [r, q] of of(c)) if (q.nanos > (sum.get(r)?.nanos ?? 0n)) sum.set(r, q);
  }
  const overhead = isObject(spec['overhead']) ? spec['overhead'] : {};
  for (const r of COMPUTE) {
    const q = parseQuantity(overhead[r]);
    if (q !== undefined && sum.has(r)) sum.set(r, addQuantities(sum.get(r) ?? ZERO, q));
  }
  return sum;
}

/**
 * The Pod evaluator's `Constraints`: the cpu/memory resources a quota tracks that some container
 * does not state, as `cpu for: a,b; limits.memory for: a`; `undefined` when none is missing.
 */
function missingRequirements(pod: KObj, restricted: readonly string[]): string | undefined {
  const required = restricted.filter((r) => MUST_SPECIFY.has(r));
  if (required.length === 0) return undefined;
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const missing = new Map<string, Set<string>>();
  for (const list of ['containers', 'initContainers']) {
    for (const c of Array.isArray(spec[list]) ? spec[list] : []) {
      if (!isObject(c)) continue;
      const resources = isObject(c['resources']) ? c['resources'] : {};
      const requests = isObject(resources['requests']) ? resources['requests'] : {};
      const limits = isObject(resources['limits']) ? resources['limits'] : {};
      const stated = new Set<string>();
      for (const r of ['cpu', 'memory']) {
        if (r in requests) stated.add(r).add(`requests.${r}`);
        if (r in limits) stated.add(`limits.${r}`);
      }
      for (const r of required) {
        if (stated.has(r)) continue;
        const names = missing.get(r) ?? new Set<string>();
        names.add(String(c['name']));
        missing.set(r, names);
      }
    }
  }
  if (missing.size === 0) return undefined;
  return [...missing.keys()]
    .sort()
    .map((r) => `${r} for: ${[...(missing.get(r) ?? [])].sort().join(',')}`)
    .join('; ');
}

/** A JSON value with object keys sorted (for comparing statuses). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sorted(value[k])]),
  );
}
