/**
 * Kubernetes strategic merge patch (`application/strategic-merge-patch+json`) for built-in types.
 *
 * The real server reads each field's `patchStrategy`/`patchMergeKey` from the Go structs; this
 * module carries the table of the list fields operators actually patch (see
 * {@link strategicListStrategy}). Every list not in the table is replaced, every map merged, which
 * is also what the real server does for fields without a strategy. Pure: inputs never mutated.
 *
 * Not emulated: `$setElementOrder` is accepted and applied best-effort (listed items take the
 * patch's order among the positions they occupy; server-only items stay where they are).
 *
 * @module
 */
import { clone, deepEqual, isObject, type JsonObject } from '../apply/json-value.js';
import { PatchError } from './json-patch.js';

export { PatchError } from './json-patch.js';

/**
 * What the target object is: strategies differ per kind (`ports` of a Pod vs a Service).
 *
 * ## Example
 * ```ts
 * const target: StrategicTarget = { group: 'apps', kind: 'Deployment' };
 * applyStrategicMergePatch(deployment, { spec: { replicas: 3 } }, target);
 * ```
 */
export interface StrategicTarget {
  /** API group, `''` for core. */
  group: string;
  /** Kind, e.g. `Pod`, `Deployment`, `Service`. */
  kind: string;
}

/** How a list field merges: by a key, as a set of primitives, or replaced whole. */
export type ListStrategy = { type: 'map'; keys: readonly string[] } | { type: 'set' } | { type: 'replace' };

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

const BY_FIELD: Readonly<Record<string, readonly string[]>> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  imagePullSecrets: ['name'],
  conditions: ['type'],
  ownerReferences: ['uid'],
  hostAliases: ['ip'],
  topologySpreadConstraints: ['topologyKey', 'whenUnsatisfiable'],
  addresses: ['type'],
};

/**
 * The merge strategy of the list at `path` (field names from the root, list items skipped) in an
 * object of `target`'s kind: the `patchStrategy`/`patchMergeKey` (and, for server-side apply,
 * `listType`/`listMapKeys`) of the Go types, for the fields operators touch.
 *
 * - `containers`, `initContainers`, `ephemeralContainers`, `env`, `volumes`, `imagePullSecrets`
 *   by `name`; `volumeMounts` by `mountPath`; `conditions` by `type`; `ownerReferences` by `uid`;
 *   `ports` by `containerPort` inside a container and by `port` in a Service spec (both plus
 *   `protocol` for apply); `hostAliases` by `ip`.
 * - `metadata.finalizers`: a set of strings.
 * - everything else (`tolerations`, `args`, `command`, ...): replaced whole (atomic).
 *
 * ## Example
 * ```ts
 * strategicListStrategy(['spec', 'containers'], { group: '', kind: 'Pod' }); // { type: 'map', keys: ['name'] }
 * ```
 */
export function strategicListStrategy(path: readonly string[], target: StrategicTarget): ListStrategy {
  const field = path[path.length - 1] ?? '';
  const parent = path[path.length - 2];
  if (field === 'finalizers' && parent === 'metadata' && path.length === 2) return { type: 'set' };
  if (field === 'ports') {
    if (parent !== undefined && CONTAINER_LISTS.has(parent)) return { type: 'map', keys: ['containerPort'] };
    if (target.group === '' && target.kind === 'Service' && parent === 'spec' && path.length === 2) {
      return { type: 'map', keys: ['port'] };
    }
    return { type: 'replace' };
  }
  const keys = BY_FIELD[field];
  return keys === undefined ? { type: 'replace' } : { type: 'map', keys: keys.slice(0, 1) };
}

const DELETE_FROM = '$deleteFromPrimitiveList/';
const SET_ORDER = '$setElementOrder/';

/** A patch subtree without directives and without `null`s (what is stored when nothing to merge with). */
function cleaned(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.filter((item) => !(isObject(item) && item.$patch === 'delete')).map(cleaned);
  }
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('$') || v === null) continue;
    out[k] = cleaned(v);
  }
  return out;
}

function keyOf(item: JsonObject, key: string): unknown {
  return item[key];
}

class Merger {
  constructor(private readonly target: StrategicTarget) {}

  /** Merges `patch` into `original` (a private copy); `undefined` means "delete this map". */
  mergeMap(original: JsonObject, patch: JsonObject, path: string[]): JsonObject | undefined {
    const directive = patch.$patch;
    if (directive === 'delete') return undefined;
    if (directive === 'replace') return cleaned(patch) as JsonObject;
    if (directive !== undefined && directive !== 'merge') {
      throw new PatchError(
        'malformed',
        `Unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(patch)}`,
      );
    }
    const retainKeys = patch.$retainKeys;
    if (retainKeys !== undefined) {
      if (!Array.isArray(retainKeys) || !retainKeys.every((k) => typeof k === 'string')) {
        throw new PatchError('malformed', 'invalid patch: $retainKeys must be a list of strings');
      }
      for (const k of Object.keys(patch)) {
        if (!k.startsWith('$') && !retainKeys.includes(k)) {
          throw new PatchError('invalid', `The patch has key "${k}" that is not listed in $retainKeys`);
        }
      }
      for (const k of Object.keys(original)) if (!retainKeys.includes(k)) delete original[k];
    }
    const orders: [string, unknown[]][] = [];
    for (const [k, v] of Object.entries(patch)) {
      if (k.startsWith(DELETE_FROM)) {
        const field = k.slice(DELETE_FROM.length);
        if (!Array.isArray(v)) throw new PatchError('malformed', `invalid patch: ${k} must be a list`);
        const current = original[field];
        if (Array.isArray(current))
          original[field] = current.filter((item) => !v.some((d) => deepEqual(d, item)));
      } else if (k.startsWith(SET_ORDER)) {
        if (!Array.isArray(v)) throw new PatchError('malformed', `invalid patch: ${k} must be a list`);
        orders.push([k.slice(SET_ORDER.length), v]);
      }
    }
    for (const [k, v] of Object.entries(patch)) {
      if (k.startsWith('$')) continue;
      if (v === null) {
        delete original[k];
        continue;
      }
      const current = original[k];
      const childPath = [...path, k];
      if (isObject(current) && isObject(v)) {
        const merged = this.mergeMap(current, v, childPath);
        if (merged === undefined) delete original[k];
        else original[k] = merged;
      } else if (Array.isArray(current) && Array.isArray(v)) {
        original[k] = this.mergeList(current, v, childPath);
      } else if (isObject(v) && v.$patch === 'delete') {
        delete original[k];
      } else {
        original[k] = Array.isArray(v) ? this.mergeList([], v, childPath) : cleaned(v);
      }
    }
    for (const [field, order] of orders) {
      const list = original[field];
      if (Array.isArray(list)) original[field] = this.reorder(list, order, [...path, field]);
    }
    return original;
  }

  mergeList(original: unknown[], patch: unknown[], path: string[]): unknown[] {
    if (patch.some((item) => isObject(item) && item.$patch === 'replace')) {
      return cleaned(patch.filter((item) => !(isObject(item) && item.$patch === 'replace'))) as unknown[];
    }
    const strategy = strategicListStrategy(path, this.target);
    if (strategy.type === 'replace') return cleaned(patch) as unknown[];
    if (strategy.type === 'set') {
      const out = [...original];
      for (const item of patch) if (!out.some((o) => deepEqual(o, item))) out.push(clone(item));
      return out;
    }
    const key = strategy.keys[0] ?? 'name';
    const out = [...original];
    for (const item of patch) {
      if (!isObject(item)) {
        throw new PatchError(
          'invalid',
          `the list ${path.join('.')} merges by "${key}" but holds a non-object item`,
        );
      }
      if (!Object.prototype.hasOwnProperty.call(item, key)) {
        throw new PatchError(
          'invalid',
          `map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`,
        );
      }
      const index = out.findIndex((o) => isObject(o) && deepEqual(keyOf(o, key), keyOf(item, key)));
      if (item.$patch === 'delete') {
        if (index >= 0) out.splice(index, 1);
        continue;
      }
      const existing = index >= 0 ? out[index] : undefined;
      if (isObject(existing)) {
        const merged = this.mergeMap(existing, item, path);
        if (merged === undefined) out.splice(index, 1);
        else out[index] = merged;
      } else {
        out.push(cleaned(item));
      }
    }
    return out;
  }

  /** `$setElementOrder`: listed items take the order given, in the slots listed items occupy. */
  private reorder(list: unknown[], order: unknown[], path: string[]): unknown[] {
    const strategy = strategicListStrategy(path, this.target);
    const key = strategy.type === 'map' ? (strategy.keys[0] ?? 'name') : undefined;
    const rank = (item: unknown): number =>
      order.findIndex((o) =>
        key !== undefined && isObject(o) && isObject(item)
          ? deepEqual(o[key], item[key])
          : deepEqual(o, item),
      );
    const slots: number[] = [];
    const listed: unknown[] = [];
    list.forEach((item, i) => {
      if (rank(item) >= 0) {
        slots.push(i);
        listed.push(item);
      }
    });
    listed.sort((a, b) => rank(a) - rank(b));
    const out = [...list];
    slots.forEach((slot, i) => (out[slot] = listed[i]));
    return out;
  }
}

/**
 * Applies a Kubernetes strategic merge patch to a built-in object and returns the result.
 *
 * ## Example
 * ```ts
 * applyStrategicMergePatch(
 *   { spec: { containers: [{ name: 'a', image: 'x:1' }, { name: 'b', image: 'y:1' }] } },
 *   { spec: { containers: [{ name: 'b', image: 'y:2' }] } },
 *   { group: '', kind: 'Pod' },
 * ); // containers a (unchanged) and b with image y:2
 * ```
 *
 * ## Semantics
 * - Maps merge recursively; `null` deletes a key.
 * - Lists with a merge key (the `patchMergeKey` of their Go field: `containers` by `name`,
 *   `ownerReferences` by `uid`, …) merge item by item: an item whose key exists is merged into
 *   it, a new key is appended, `{"<key>": …, "$patch": "delete"}` removes the item.
 *   `metadata.finalizers` is a set (union). All other lists are replaced.
 * - Directives: `$patch: replace|delete|merge` on maps, `{"$patch": "replace"}` as a list item
 *   (replace the list), `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`,
 *   `$retainKeys`.
 *
 * @param doc the current object (not mutated).
 * @param patch the decoded request body (not mutated).
 * @param target group and kind of the object (list strategies depend on it).
 * @throws {PatchError} `malformed` when the patch is not a JSON object or a directive has the
 *   wrong shape (the server answers 400); `invalid` when an item lacks its merge key or a key is
 *   outside `$retainKeys` (422).
 */
export function applyStrategicMergePatch(doc: unknown, patch: unknown, target: StrategicTarget): unknown {
  if (!isObject(patch)) {
    throw new PatchError(
      'malformed',
      `json: cannot unmarshal ${Array.isArray(patch) ? 'array' : patch === null ? 'null' : typeof patch} into Go value of type map[string]interface {}`,
    );
  }
  const original = isObject(doc) ? clone(doc) : {};
  return new Merger(target).mergeMap(original, patch, []) ?? {};
}
