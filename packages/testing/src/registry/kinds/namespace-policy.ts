/**
 * core/v1 kinds a platform operator puts in every namespace and that need no controller to be
 * useful as data: ResourceQuota and LimitRange, generated from one table ({@link NAMESPACE_POLICY_KINDS}).
 * Each row gives what kube-apiserver v1.24 does when it stores the object:
 *
 * - LimitRange: `SetDefaults_LimitRangeItem` (pkg/apis/core/v1/defaults.go) — for a `Container`
 *   item, `default` from `max` and `defaultRequest` from `default`, then from `min`, per resource.
 * - ResourceQuota: the strategy's `PrepareForCreate` resets `status` to `{}` (the quota controller
 *   fills it: `controllers/resource-quota.ts`); updates of the main resource keep the status;
 *   `spec.hard` quantities are stored canonical (`0.5` → `500m`).
 *
 * LimitRanger's defaults for Pods are `admission/limit-ranger.ts`; quota status and admission
 * `controllers/resource-quota.ts`. What neither simulates is listed in the README's *Served kinds*.
 *
 * @module
 */
import type { Json, KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import { builtin, UPDATE_AND_CREATE } from './builtin.js';
import { canonicalQuantity } from './quantity.js';

/** One row of the table: a kind and what the server does when storing it. */
interface KindRow {
  readonly resource: string;
  readonly kind: string;
  readonly shortNames: readonly string[];
  readonly hasStatus: boolean;
  readonly knownFields: readonly string[];
  readonly defaults?: (o: KObj) => void;
  readonly prepare?: (o: KObj, old: KObj | undefined) => void;
}

/** `SetDefaults_LimitRangeItem` for every item of a LimitRange's spec. */
function defaultLimitRange(o: KObj): void {
  const spec = o['spec'];
  if (!isObject(spec) || !Array.isArray(spec['limits'])) return;
  for (const item of spec['limits']) {
    if (!isObject(item) || item['type'] !== 'Container') continue;
    const max = isObject(item['max']) ? item['max'] : {};
    const min = isObject(item['min']) ? item['min'] : {};
    const limit: Json = isObject(item['default']) ? item['default'] : {};
    const request: Json = isObject(item['defaultRequest']) ? item['defaultRequest'] : {};
    for (const [k, v] of Object.entries(max)) if (!(k in limit)) limit[k] = v;
    for (const [k, v] of Object.entries(limit)) if (!(k in request)) request[k] = v;
    for (const [k, v] of Object.entries(min)) if (!(k in request)) request[k] = v;
    // empty maps are omitted (omitempty), as Go serialises them
    if (Object.keys(limit).length > 0) item['default'] = limit;
    if (Object.keys(request).length > 0) item['defaultRequest'] = request;
  }
}

/** The table: ResourceQuota and LimitRange first (issue 18 §8). */
export const NAMESPACE_POLICY_KINDS: readonly KindRow[] = [
  {
    resource: 'resourcequotas',
    kind: 'ResourceQuota',
    shortNames: ['quota'],
    hasStatus: true,
    knownFields: ['spec', 'status'],
    prepare: (o, old) => {
      o['status'] = old === undefined ? {} : isObject(o['status']) ? o['status'] : {};
    },
    // quantities are stored in their canonical form (`0.5` → `500m`), as Go serialises them
    defaults: (o) => {
      const spec = o['spec'];
      const hard = isObject(spec) ? spec['hard'] : undefined;
      if (isObject(hard)) for (const [k, v] of Object.entries(hard)) hard[k] = canonicalQuantity(v);
    },
  },
  {
    resource: 'limitranges',
    kind: 'LimitRange',
    shortNames: ['limits'],
    hasStatus: false,
    knownFields: ['spec'],
    defaults: defaultLimitRange,
  },
];

/** The kinds of {@link NAMESPACE_POLICY_KINDS}. */
export function namespacePolicyKinds(): ResourceType[] {
  return NAMESPACE_POLICY_KINDS.map((row) =>
    builtin({
      group: '',
      version: 'v1',
      resource: row.resource,
      kind: row.kind,
      namespaced: true,
      metaValidation: UPDATE_AND_CREATE,
      shortNames: [...row.shortNames],
      hasStatus: row.hasStatus,
      knownFields: row.knownFields,
      ...(row.defaults !== undefined ? { defaults: row.defaults } : {}),
      ...(row.prepare !== undefined ? { prepare: row.prepare } : {}),
    }),
  );
}
