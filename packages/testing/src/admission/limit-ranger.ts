/**
 * The LimitRanger admission plugin's defaults for Pods (`plugin/pkg/admission/limitranger`,
 * kube-apiserver v1.24, enabled there by default): on a Pod's create, each LimitRange of the
 * namespace fills the requests and limits its `Container` items default (`defaultRequest`,
 * `default`) into every container and init container that lacks them, and names what it set in
 * the `kubernetes.io/limit-ranger` annotation (`mergeContainerResources`, `PodMutateLimitFunc`).
 * Runs before validation, so mutating webhooks and the strategy (`qosClass`) see the result, as
 * on a real server.
 *
 * Does not: refuse Pods outside a LimitRange's `min`/`max`/`maxLimitRequestRatio` (the plugin's
 * validation, 403 Forbidden), default PersistentVolumeClaims, or act on updates (the plugin does
 * not either). Said so in the README's *Served kinds*.
 *
 * @module
 */
import type { WriteAttributes } from '../handlers/engine-types.js';
import type { Json, KObj } from '../store/object.js';
import { isObject } from '../store/object.js';
import type { ObjectStore } from '../store/store.js';

/** The annotation LimitRanger writes on the Pods it changed. */
export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

/** `defaultContainerResourceRequirements`: the `Container` items' defaults of one LimitRange. */
function containerDefaults(limitRange: KObj): { limits: Json; requests: Json } {
  const limits: Json = {};
  const requests: Json = {};
  const spec = limitRange['spec'];
  const items = isObject(spec) && Array.isArray(spec['limits']) ? spec['limits'] : [];
  for (const item of items) {
    if (!isObject(item) || item['type'] !== 'Container') continue;
    if (isObject(item['default'])) Object.assign(limits, item['default']);
    if (isObject(item['defaultRequest'])) Object.assign(requests, item['defaultRequest']);
  }
  return { limits, requests };
}

/** `mergeContainerResources`: fills one container, returns the annotation's parts. */
function mergeContainer(
  container: unknown,
  defaults: { limits: Json; requests: Json },
  prefix: string,
): string[] {
  if (!isObject(container)) return [];
  const resources: Json = isObject(container['resources']) ? container['resources'] : {};
  const limits: Json = isObject(resources['limits']) ? resources['limits'] : {};
  const requests: Json = isObject(resources['requests']) ? resources['requests'] : {};
  const setLimits = Object.keys(defaults.limits).filter((k) => !(k in limits));
  const setRequests = Object.keys(defaults.requests).filter((k) => !(k in requests));
  for (const k of setLimits) limits[k] = defaults.limits[k] ?? null;
  for (const k of setRequests) requests[k] = defaults.requests[k] ?? null;
  // empty maps are omitted (omitempty), as Go serialises them
  if (Object.keys(limits).length > 0) resources['limits'] = limits;
  if (Object.keys(requests).length > 0) resources['requests'] = requests;
  container['resources'] = resources;
  const name = String(container['name']);
  const parts: string[] = [];
  if (setRequests.length > 0) parts.push(`${setRequests.sort().join(', ')} request for ${prefix} ${name}`);
  if (setLimits.length > 0) parts.push(`${setLimits.sort().join(', ')} limit for ${prefix} ${name}`);
  return parts;
}

/**
 * The plugin as an engine `beforeValidate` hook, reading the LimitRanges from `store`.
 *
 * `server.ts` chains it before any other `beforeValidate` hook of the engine, so defaults are in
 * place when validation and webhooks see the Pod.
 */
export function limitRangerDefaults(store: ObjectStore): (w: WriteAttributes) => void {
  return (w) => {
    if (w.operation !== 'CREATE' || w.subresource !== undefined || w.namespace === undefined) return;
    if (w.type.group !== '' || w.type.resource !== 'pods') return;
    const pod = w.object;
    const spec = pod['spec'];
    if (!isObject(spec)) return;
    const prefix = `${w.namespace}/`;
    for (const key of store.sortedKeys('/limitranges')) {
      if (!key.startsWith(prefix)) continue;
      const limitRange = store.get('/limitranges', key);
      if (!limitRange) continue;
      const defaults = containerDefaults(limitRange);
      const parts: string[] = [];
      for (const [list, what] of [
        ['containers', 'container'],
        ['initContainers', 'init container'],
      ] as const) {
        const containers = spec[list];
        if (Array.isArray(containers))
          for (const c of containers) parts.push(...mergeContainer(c, defaults, what));
      }
      if (parts.length > 0) {
        pod.metadata.annotations = {
          ...(pod.metadata.annotations ?? {}),
          [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${parts.join('; ')}`,
        };
      }
    }
  };
}
