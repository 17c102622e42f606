/**
 * structured-merge-diff's operations on typed values (`typed/` at v4.2.1, the version
 * kube-apiserver v1.24 vendors): the field set of a value
 * (`tofieldset.go`), comparison and merge (`merge.go`, `typed.go`), removal of items
 * (`remove.go`), list item path elements (`helpers.go`), `EnsureNamedFieldsAreMembers`
 * (`fieldpath/set.go`) and `ReconcileFieldSetWithSchema` (`reconcile_schema.go`). Values are
 * decoded JSON; `undefined` is "absent" (Go's nil `value.Value`), `null` is an explicit null.
 * Validation is in `validate.ts`.
 * Internal to server-side apply.
 *
 * @module
 */
import { canonicalJson, FieldSet, type PathElement } from './field-set.js';
import { deepEqual, isObject, type JsonObject, setKey } from './json-value.js';
import { DEDUCED, type SmdList, type SmdMap, type SmdType } from './smd-type.js';

/** How a value is handled: as a map, a scalar or a list. */
export type Atom = 'map' | 'scalar' | 'list';

/** `deduceAtom` + `handleAtom`: how a value of `type` is handled (map first, then scalar, then list). */
export function atomOf(type: SmdType, v: unknown): Atom | undefined {
  if (v !== undefined && v !== null) {
    if (Array.isArray(v)) {
      if (type.list) return 'list';
    } else if (typeof v === 'object') {
      if (type.map) return 'map';
    } else if (type.scalar) return 'scalar';
  }
  return type.map ? 'map' : type.scalar ? 'scalar' : type.list ? 'list' : undefined;
}

/** The type of key `key` of a map: its declared field, else the element type. */
export function fieldType(map: SmdMap, key: string): SmdType | undefined {
  return map.field(key)?.type ?? map.element;
}

// ---------------------------------------------------------------------------------------------
// list items

/** The path element of list item `item` at `index`, or the SMD error text when it has none. */
export function listItemElement(
  list: SmdList,
  index: number,
  item: unknown,
): PathElement | { error: string } {
  if (list.atomic) return `i:${String(index)}`;
  if (list.keys.length > 0) {
    if (item === null) return { error: 'associative list with keys may not have a null element' };
    if (!isObject(item)) return { error: 'associative list with keys may not have non-map elements' };
    const key: JsonObject = {};
    for (const name of list.keys) {
      if (Object.prototype.hasOwnProperty.call(item, name) && item[name] !== undefined)
        key[name] = item[name];
      else {
        const def = list.item.map?.field(name)?.default;
        if (def === undefined)
          return {
            error: `associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`,
          };
        key[name] = def;
      }
    }
    return `k:${canonicalJson(key)}`;
  }
  if (isObject(item)) return { error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(item)) return { error: 'not supported: associative list with lists as elements' };
  if (item === null) return { error: "associative list without keys has an element that's an explicit null" };
  return `v:${canonicalJson(item)}`;
}

/**
 * Items of a list by path element, in order; items that have none and duplicates are skipped
 * (and reported to `invalid`: SMD's merge fails on them).
 */
function indexItems(
  list: SmdList,
  items: readonly unknown[] | undefined,
  invalid?: () => void,
): [PathElement[], Map<PathElement, unknown>] {
  const order: PathElement[] = [];
  const byPe = new Map<PathElement, unknown>();
  (items ?? []).forEach((item, i) => {
    const pe = listItemElement(list, i, item);
    if (typeof pe !== 'string' || byPe.has(pe)) {
      invalid?.();
      return;
    }
    byPe.set(pe, item);
    order.push(pe);
  });
  return [order, byPe];
}

// ---------------------------------------------------------------------------------------------
// field sets

/** `TypedValue.ToFieldSet`: every leaf field and item the value mentions. */
export function toFieldSet(value: unknown, type: SmdType): FieldSet {
  const set = new FieldSet();
  const path: PathElement[] = [];
  const walk = (v: unknown, t: SmdType): void => {
    const atom = atomOf(t, v);
    if (atom === 'scalar') {
      set.insert(path);
    } else if (atom === 'list' && t.list) {
      const list = t.list;
      if (list.atomic) {
        set.insert(path);
        return;
      }
      if (!Array.isArray(v)) return;
      v.forEach((item, i) => {
        const pe = listItemElement(list, i, item);
        path.push(typeof pe === 'string' ? pe : '');
        walk(item, list.item);
        set.insert(path);
        path.pop();
      });
    } else if (atom === 'map' && t.map) {
      const map = t.map;
      if (map.atomic) {
        set.insert(path);
        return;
      }
      if (!isObject(v)) return;
      for (const [key, child] of Object.entries(v)) {
        path.push(`f:${key}`);
        walk(child, fieldType(map, key) ?? DEDUCED);
        if (child === null || (isObject(child) && Object.keys(child).length === 0) || !map.field(key))
          set.insert(path);
        path.pop();
      }
    }
  };
  walk(value, type);
  return set;
}

/** `EnsureNamedFieldsAreMembers`: the set plus every declared struct field on the way to a member. */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: SmdType | undefined): FieldSet {
  const out = new FieldSet();
  out.member = set.member;
  for (const [pe, child] of set.children) {
    let t: SmdType | undefined;
    if (pe.startsWith('f:') && type?.map) {
      const f = type.map.field(pe.slice(2));
      t = f?.type ?? type.map.element;
    } else if (pe.startsWith('k:') && type?.list) {
      t = type.list.item;
    }
    const sub = ensureNamedFieldsAreMembers(child, t);
    if (pe.startsWith('f:') && type?.map?.field(pe.slice(2))) sub.member = true;
    out.children.set(pe, sub);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// compare and merge

interface Rules {
  /** Called once for each leaf (scalar, atomic or both-empty container); returns the output. */
  leaf(l: unknown, r: unknown, path: readonly PathElement[]): unknown;
  /** Called after a non-leaf node was merged. */
  post?(l: unknown, r: unknown, path: readonly PathElement[]): void;
  /** Called for a list item without a path element, or a duplicate one. */
  invalid?: () => void;
}

/** The merging walker (`mergingWalker.merge`); returns the merged value, `undefined` for none. */
function mergeWalk(l: unknown, r: unknown, type: SmdType, path: PathElement[], rules: Rules): unknown {
  const al = atomOf(type, l);
  const ar = atomOf(type, r);
  if (al !== ar && al !== undefined) handle(al, l, r, type, path, rules);
  const [out, leaf] = ar === undefined ? [undefined, true] : handle(ar, l, r, type, path, rules);
  if (!leaf) rules.post?.(l, r, path);
  return out;
}

function handle(
  atom: Atom,
  l: unknown,
  r: unknown,
  type: SmdType,
  path: PathElement[],
  rules: Rules,
): [unknown, boolean] {
  if (atom === 'scalar') return [rules.leaf(l, r, path), true];
  if (atom === 'list' && type.list) {
    const la = Array.isArray(l) ? l : undefined;
    const ra = Array.isArray(r) ? r : undefined;
    const empty = (la === undefined || la.length === 0) && (ra === undefined || ra.length === 0);
    if (type.list.atomic || empty) return [rules.leaf(l, r, path), true];
    return [mergeList(type.list, la, ra, path, rules), false];
  }
  if (atom === 'map' && type.map) {
    const lm = isObject(l) ? l : undefined;
    const rm = isObject(r) ? r : undefined;
    const empty =
      (lm === undefined || Object.keys(lm).length === 0) &&
      (rm === undefined || Object.keys(rm).length === 0);
    if (type.map.atomic || empty) return [rules.leaf(l, r, path), true];
    return [mergeMap(type.map, lm, rm, path, rules), false];
  }
  return [rules.leaf(l, r, path), true];
}

function mergeMap(
  map: SmdMap,
  l: JsonObject | undefined,
  r: JsonObject | undefined,
  path: PathElement[],
  rules: Rules,
): unknown {
  const out: JsonObject = {};
  let any = false;
  const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
  for (const key of keys) {
    path.push(`f:${key}`);
    const v = mergeWalk(l?.[key], r?.[key], fieldType(map, key) ?? DEDUCED, path, rules);
    path.pop();
    if (v !== undefined) {
      setKey(out, key, v);
      any = true;
    }
  }
  return any ? out : undefined;
}

/** `visitListItems`: shared items in the order of the right-hand side, others where they were. */
function mergeList(
  list: SmdList,
  l: readonly unknown[] | undefined,
  r: readonly unknown[] | undefined,
  path: PathElement[],
  rules: Rules,
): unknown {
  const [rOrder, rItems] = indexItems(list, r, rules.invalid);
  const [lOrder, lItems] = indexItems(list, l, rules.invalid);
  const shared = rOrder.filter((pe) => lItems.has(pe));
  let nextShared = shared.shift();
  const out: unknown[] = [];
  const item = (pe: PathElement, lc: unknown, rc: unknown): void => {
    path.push(pe);
    const v = mergeWalk(lc, rc, list.item, path, rules);
    path.pop();
    if (v !== undefined) out.push(v);
  };
  let li = 0;
  let ri = 0;
  while (li < lOrder.length || ri < rOrder.length) {
    const lpe = lOrder[li];
    const rpe = rOrder[ri];
    if (lpe !== undefined && rpe !== undefined) {
      if (lpe === rpe) {
        item(lpe, lItems.get(lpe), rItems.get(rpe));
        li++;
        ri++;
        nextShared = shared.shift();
        continue;
      }
      if (rItems.has(lpe) && nextShared !== undefined && nextShared !== lpe) {
        li++;
        continue;
      }
    }
    if (lpe !== undefined && !rItems.has(lpe)) {
      item(lpe, lItems.get(lpe), undefined);
      li++;
      continue;
    }
    if (rpe !== undefined) {
      item(rpe, lItems.get(rpe), rItems.get(rpe));
      ri++;
      if (nextShared === rpe) nextShared = shared.shift();
      continue;
    }
    // only reached when the left item is shared but the right side is exhausted
    li++;
  }
  return out.length > 0 ? out : undefined;
}

/** `TypedValue.Merge`: `pso` over `tv`; leaves take the right-hand value (`null` included). */
export function merge(tv: unknown, pso: unknown, type: SmdType): unknown {
  return mergeWalk(tv, pso, type, [], { leaf: (l, r) => (r !== undefined ? r : l) });
}

/** The result of {@link compare}: what changed from the left to the right value. */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
  /** A list item had no key or a duplicate one: SMD fails such a comparison (`duplicate entries for key`). */
  readonly invalid?: boolean;
}

/** `TypedValue.Compare`. */
export function compare(l: unknown, r: unknown, type: SmdType): Comparison {
  const c = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet(), invalid: false };
  mergeWalk(l, r, type, [], {
    invalid: () => {
      c.invalid = true;
    },
    leaf(lv, rv, path) {
      if (lv === undefined) c.added.insert(path);
      else if (rv === undefined) c.removed.insert(path);
      else if (!deepEqual(lv, rv)) c.modified.insert(path);
      return undefined;
    },
    post(lv, rv, path) {
      if (lv === undefined) c.added.insert(path);
      else if (rv === undefined) c.removed.insert(path);
    },
  });
  return c;
}

/** True when nothing changed. */
export function isSame(c: Comparison): boolean {
  return c.added.empty && c.modified.empty && c.removed.empty;
}

/** `Comparison.ExcludeFields`: the comparison without `fields` and anything below them. */
export function excludeFields(c: Comparison, fields: FieldSet | undefined): Comparison {
  if (fields === undefined || fields.empty) return c;
  return {
    added: c.added.recursiveDifference(fields),
    modified: c.modified.recursiveDifference(fields),
    removed: c.removed.recursiveDifference(fields),
  };
}

// ---------------------------------------------------------------------------------------------
// removal

/** `TypedValue.RemoveItems`: the value without the listed fields and items (a fresh value). */
export function removeItems(value: unknown, toRemove: FieldSet, type: SmdType): unknown {
  const atom = atomOf(type, value);
  if (atom === 'list' && type.list) {
    if (!Array.isArray(value) || value.length === 0 || type.list.atomic) return null;
    const list = type.list;
    const out: unknown[] = [];
    value.forEach((item, i) => {
      const pe = listItemElement(list, i, item);
      const key = typeof pe === 'string' ? pe : '';
      if (toRemove.has([key])) return;
      const sub = toRemove.withPrefix(key);
      out.push(sub.empty ? item : removeItems(item, sub, list.item));
    });
    return out.length > 0 ? out : null;
  }
  if (atom === 'map' && type.map) {
    if (!isObject(value) || Object.keys(value).length === 0 || type.map.atomic) return null;
    const map = type.map;
    const out: JsonObject = {};
    let any = false;
    for (const [k, v] of Object.entries(value)) {
      const pe = `f:${k}`;
      if (toRemove.has([pe])) continue;
      const sub = toRemove.withPrefix(pe);
      const kept = sub.empty ? v : removeItems(v, sub, fieldType(map, k) ?? DEDUCED);
      setKey(out, k, kept);
      any = true;
    }
    return any ? out : null;
  }
  return value === undefined ? null : value;
}

// ---------------------------------------------------------------------------------------------
// schema changes

/**
 * `ReconcileFieldSetWithSchema`: a field set recorded when a list or map was granular, made to
 * fit a schema where it is atomic (the children become the atomic node itself) — e.g. managed
 * fields written by a client that list `f:matchLabels` under an atomic `f:selector`. Returns
 * `undefined` when nothing changes.
 */
export function reconcileWithSchema(set: FieldSet, type: SmdType): FieldSet | undefined {
  const toRemove = new FieldSet();
  const path: PathElement[] = [];
  const walk = (node: FieldSet | undefined, t: SmdType | undefined, isAtomic: boolean): void => {
    if (t === undefined) return;
    if (t.map) {
      if (t.deduced || (t.map.fieldNames.length === 0 && t.map.element?.deduced === true && !t.map.atomic))
        return;
      if (!isAtomic && t.map.atomic) {
        if (node !== undefined && !node.empty) toRemove.insert(path);
        return;
      }
      if (node === undefined) return;
      for (const [pe, child] of node.children) {
        if (!pe.startsWith('f:')) continue;
        const ft = fieldType(t.map, pe.slice(2));
        if (ft === undefined) continue;
        path.push(pe);
        walk(child.children.size > 0 ? child : undefined, ft, child.member && child.children.size === 0);
        path.pop();
      }
    } else if (t.list) {
      if (!isAtomic && t.list.atomic) {
        toRemove.insert(path);
        return;
      }
      if (node === undefined) return;
      for (const [pe, child] of node.children) {
        path.push(pe);
        walk(
          child.children.size > 0 ? child : undefined,
          t.list.item,
          child.member && child.children.size === 0,
        );
        path.pop();
      }
    }
  };
  walk(set, type, false);
  if (toRemove.empty) return undefined;
  return set.recursiveDifference(toRemove).union(toRemove);
}
