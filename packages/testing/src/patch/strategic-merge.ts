/**
 * Kubernetes strategic merge patch (`application/strategic-merge-patch+json`) for built-in types.
 *
 * The real server reads each field's `patchStrategy`/`patchMergeKey` from the Go structs; they are
 * the `x-kubernetes-patch-strategy`/`x-kubernetes-patch-merge-key` of the kind's OpenAPI schema,
 * read here from `openapi/type-schema.ts` (the recorded v1.24 schemas, or the schema of a kind added
 * with `startApiServer({ kinds })`). Lists whose strategy is `merge` merge by their key (a set of
 * primitives without one); every other list is replaced, every map merged, as on the real server.
 * Pure: inputs never mutated.
 *
 * Not emulated: `$setElementOrder` is accepted and applied best-effort (listed items take the
 * patch's order among the positions they occupy; server-only items stay where they are).
 *
 * @module
 */
import { clone, deepEqual, isObject, type JsonObject } from '../apply/json-value.js';
import { type SchemaNode, typeSchemaOfKind } from '../openapi/type-schema.js';
import type { Json } from '../store/object.js';
import { PatchError } from './json-patch.js';

export { PatchError } from './json-patch.js';

/**
 * What the target object is: strategies differ per kind (`ports` of a Pod vs a Service).
 *
 * ## Example
 * ```ts
 * const target: StrategicTarget = { group: 'apps', kind: 'Deployment' };
 * const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } };
 * applyStrategicMergePatch(deployment, { spec: { replicas: 3 } }, target);
 * ```
 */
export interface StrategicTarget {
  /** API group, `''` for core. */
  group: string;
  /** Kind, e.g. `Pod`, `Deployment`, `Service`. */
  kind: string;
  /** Version (`v1`); default: the recorded version of the kind. */
  version?: string;
  /** The kind's OpenAPI schema when it is not a recorded built-in (a kind added with `kinds`). */
  schema?: Json;
}

/** How a list field merges: by a key, as a set of primitives, or replaced whole. */
export type ListStrategy = { type: 'map'; keys: readonly string[] } | { type: 'set' } | { type: 'replace' };

/** The strategy of a list schema node (`x-kubernetes-patch-strategy`, `-merge-key`). */
function listStrategy(node: SchemaNode | undefined): ListStrategy {
  const strategy = node?.patchStrategy?.split(',') ?? [];
  if (!strategy.includes('merge')) return { type: 'replace' };
  const key = node?.patchMergeKey;
  return key === undefined ? { type: 'set' } : { type: 'map', keys: [key] };
}

function rootOf(target: StrategicTarget): SchemaNode | undefined {
  return typeSchemaOfKind(target.group, target.kind, target.version, target.schema);
}

/**
 * The merge strategy of the list at `path` (field names from the root, list items skipped) in an
 * object of `target`'s kind, from the kind's schema.
 *
 * ## Example
 * ```ts
 * strategicListStrategy(['spec', 'containers'], { group: '', kind: 'Pod' }); // { type: 'map', keys: ['name'] }
 * strategicListStrategy(['metadata', 'finalizers'], { group: '', kind: 'Pod' }); // { type: 'set' }
 * strategicListStrategy(['spec', 'tolerations'], { group: '', kind: 'Pod' }); // { type: 'replace' }
 * ```
 */
export function strategicListStrategy(path: readonly string[], target: StrategicTarget): ListStrategy {
  let node = rootOf(target);
  for (const step of path) {
    if (node?.type === 'array') node = node.items();
    node = node?.field(step);
  }
  return listStrategy(node);
}

/** The schema of field `key` of a map or struct node. */
function childOf(node: SchemaNode | undefined, key: string): SchemaNode | undefined {
  return node?.field(key);
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

function mergeKeyOf(node: SchemaNode | undefined): string | undefined {
  const strategy = listStrategy(node);
  return strategy.type === 'map' ? strategy.keys[0] : undefined;
}

/** `index`: where `item` (by its merge key, or itself for primitives) is in `list`; -1 when absent. */
function indexIn(list: readonly unknown[], item: unknown, key: string | undefined): number {
  const valueOf = (v: unknown): unknown => (key === undefined ? v : isObject(v) ? v[key] : undefined);
  const want = valueOf(item);
  return list.findIndex((v) => deepEqual(valueOf(v), want));
}

/** `normalizeSliceOrder`: Go's stable insertion sort with its comparator (unknown items move forward). */
function sortByOrder(items: unknown[], order: readonly unknown[], key: string | undefined): unknown[] {
  const out = [...items];
  const less = (a: unknown, b: unknown): boolean => {
    const ia = indexIn(order, a, key);
    if (ia >= 0) {
      const ib = indexIn(order, b, key);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j], out[j - 1]); j--) [out[j - 1], out[j]] = [out[j], out[j - 1]];
  }
  return out;
}

/**
 * The order `mergeSlice` and `$setElementOrder` leave (apimachinery `strategicpatch/patch.go`,
 * `normalizeElementOrder` + `mergeSortedSlice`): items named by the patch in its order, items only
 * on the server in theirs, interleaved by their places in the original list (a new item goes before
 * a server-only one).
 */
function normalizeOrder(
  merged: unknown[],
  patchOrder: readonly unknown[],
  original: readonly unknown[],
  key: string | undefined,
): unknown[] {
  const inPatch = (item: unknown): boolean => indexIn(patchOrder, item, key) >= 0;
  const patchItems = sortByOrder(merged.filter(inPatch), patchOrder, key);
  const serverOnly = sortByOrder(
    merged.filter((m) => !inPatch(m)),
    original,
    key,
  );
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (i >= serverOnly.length) out.push(patchItems[j++]);
    else if (j >= patchItems.length) out.push(serverOnly[i++]);
    else {
      const li = indexIn(original, serverOnly[i], key);
      const ri = indexIn(original, patchItems[j], key);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(patchItems[j++]);
    }
  }
  return out;
}

class Merger {
  /** Merges `patch` into `original` (a private copy); `undefined` means "delete this map". */
  mergeMap(
    original: JsonObject,
    patch: JsonObject,
    path: string[],
    node: SchemaNode | undefined,
  ): JsonObject | undefined {
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
    const before: JsonObject = { ...original };
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
      const child = childOf(node, k);
      if (isObject(current) && isObject(v)) {
        const merged = this.mergeMap(current, v, childPath, child);
        if (merged === undefined) delete original[k];
        else original[k] = merged;
      } else if (Array.isArray(current) && Array.isArray(v)) {
        original[k] = this.mergeList(current, v, childPath, child);
      } else if (isObject(v) && v.$patch === 'delete') {
        delete original[k];
      } else {
        original[k] = Array.isArray(v) ? this.mergeList([], v, childPath, child) : cleaned(v);
      }
    }
    for (const [field, order] of orders) {
      const list = original[field];
      const prior = before[field];
      if (Array.isArray(list))
        original[field] = normalizeOrder(
          list,
          order,
          Array.isArray(prior) ? prior : [],
          mergeKeyOf(childOf(node, field)),
        );
    }
    return original;
  }

  mergeList(original: unknown[], patch: unknown[], path: string[], node: SchemaNode | undefined): unknown[] {
    if (patch.some((item) => isObject(item) && item.$patch === 'replace')) {
      return cleaned(patch.filter((item) => !(isObject(item) && item.$patch === 'replace'))) as unknown[];
    }
    const strategy = listStrategy(node);
    if (strategy.type === 'replace') return cleaned(patch) as unknown[];
    if (strategy.type === 'set') {
      const out = [...original];
      for (const item of patch) if (!out.some((o) => deepEqual(o, item))) out.push(clone(item));
      return normalizeOrder(out, patch, original, undefined);
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
        const merged = this.mergeMap(existing, item, path, node?.items());
        if (merged === undefined) out.splice(index, 1);
        else out[index] = merged;
      } else {
        out.push(cleaned(item));
      }
    }
    return normalizeOrder(out, patch, original, key);
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
 * - Lists with a merge key (the `x-kubernetes-patch-merge-key` of their schema: `containers` by
 *   `name`, `ownerReferences` by `uid`, …) merge item by item: an item whose key exists is merged
 *   into it, a new key is appended, `{"<key>": …, "$patch": "delete"}` removes the item. Lists with
 *   the `merge` strategy and no key (`metadata.finalizers`) are sets (union). All other lists are
 *   replaced.
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
  return new Merger().mergeMap(original, patch, [], rootOf(target)) ?? {};
}
