/**
 * Sets of field paths in the `FieldsV1` form of `metadata.managedFields` (structured-merge-diff's
 * `fieldpath.Set`, `fieldpath/set.go` and `serialize.go` at v4.2.1): `{"f:data":{".":{},"f:key":{}}}`.
 * Internal to server-side apply.
 *
 * A path is a list of path elements spelled as in FieldsV1: `f:<field>`, `k:<json of the key
 * fields, sorted by name>` (associative list item), `v:<json value>` (set item), `i:<index>`.
 *
 * @module
 */
import { isObject } from './json-value.js';

/** One step of a path, spelled as in FieldsV1. */
export type PathElement = string;

/** Thrown by {@link FieldSet.fromFieldsV1} for a `fieldsV1` the real server cannot decode. */
export class FieldsV1Error extends Error {}

/** Canonical JSON: object keys sorted (as SMD's `value.FieldList` and Go's map encoding). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort(compareStrings);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `value.Compare`: floats and ints numerically, then strings, booleans, lists, maps, null. */
export function compareValues(a: unknown, b: unknown): number {
  const rank = (v: unknown): number =>
    typeof v === 'number'
      ? 0
      : typeof v === 'string'
        ? 2
        : typeof v === 'boolean'
          ? 3
          : Array.isArray(v)
            ? 4
            : isObject(v)
              ? 5
              : 6;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (isObject(a) && isObject(b)) return compareFieldLists(a, b);
  return 0;
}

/** `FieldList.Compare` of two key objects: by sorted name, then value; shorter first. */
function compareFieldLists(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const ka = Object.keys(a).sort(compareStrings);
  const kb = Object.keys(b).sort(compareStrings);
  for (let i = 0; ; i++) {
    const na = ka[i];
    const nb = kb[i];
    if (na === undefined && nb === undefined) return 0;
    if (na === undefined) return -1;
    if (nb === undefined) return 1;
    const c = compareStrings(na, nb) || compareValues(a[na], b[nb]);
    if (c !== 0) return c;
  }
}

const RANK: Readonly<Record<string, number>> = { f: 0, k: 1, v: 2, i: 3 };

/** `PathElement.Compare`: fields, then keys, then values, then indices. */
export function compareElements(a: PathElement, b: PathElement): number {
  const ta = a[0] ?? 'f';
  const tb = b[0] ?? 'f';
  if (ta !== tb) return (RANK[ta] ?? 4) - (RANK[tb] ?? 4);
  const ba = a.slice(2);
  const bb = b.slice(2);
  switch (ta) {
    case 'k':
      return compareFieldLists(
        JSON.parse(ba) as Record<string, unknown>,
        JSON.parse(bb) as Record<string, unknown>,
      );
    case 'v':
      return compareValues(JSON.parse(ba), JSON.parse(bb));
    case 'i':
      return Number(ba) - Number(bb);
    default:
      return compareStrings(ba, bb);
  }
}

/** `DeserializePathElement`, canonicalised; `undefined` for an unknown type (dropped, as SMD does). */
function parseElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldsV1Error(`key must be 2 characters long: ${s}`);
  if (s[1] !== ':') throw new FieldsV1Error(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return s;
    case 'v':
    case 'k': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch (e) {
        throw new FieldsV1Error(`${s}: ${e instanceof Error ? e.message : String(e)}`);
      }
      if (s[0] === 'k' && !isObject(parsed)) throw new FieldsV1Error(`${s}: a key must be a JSON object`);
      return `${s[0]}:${canonicalJson(parsed)}`;
    }
    case 'i':
      if (!/^-?\d+$/.test(body)) throw new FieldsV1Error(`${s}: invalid index`);
      return `i:${String(Number(body))}`;
    default:
      return undefined;
  }
}

/** Go-like rendering of a key/value part (`value.ToString`): strings quoted, numbers bare. */
function renderElement(pe: string): string {
  const body = pe.slice(2);
  switch (pe[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.keys(key)
        .sort(compareStrings)
        .map((k) => `${k}=${canonicalJson(key[k])}`)
        .join(',')}]`;
    }
    case 'v':
      return `[=${body}]`;
    default:
      return `[${body}]`;
  }
}

/** A path as SMD prints it: `.data.key`, `.spec.containers[name="c"].image`. */
export function pathToString(path: readonly PathElement[]): string {
  return path.map(renderElement).join('');
}

/** One path element as SMD prints it (`[name="c"]`, `.image`). */
export function elementToString(pe: PathElement): string {
  return renderElement(pe);
}

/** A tree of path elements; `member` marks a path that is itself in the set. */
export class FieldSet {
  member = false;
  readonly children = new Map<PathElement, FieldSet>();

  /**
   * Parses a `fieldsV1` object as the real server does (`FieldsToSet`): `{}` is a member, `"."`
   * marks its parent, keys are canonicalised, unknown element types are dropped.
   *
   * @throws {FieldsV1Error} for a key without a colon, malformed JSON in `k:`/`v:`, a bad index, or
   *   a value that is not an object.
   */
  static fromFieldsV1(value: unknown): FieldSet {
    const set = new FieldSet();
    if (value === undefined || value === null) return set;
    if (!isObject(value)) throw new FieldsV1Error(`fieldsV1 must be an object, got ${JSON.stringify(value)}`);
    const read = (obj: Record<string, unknown>, into: FieldSet): void => {
      for (const [key, sub] of Object.entries(obj)) {
        if (key === '.') continue;
        const pe = parseElement(key);
        if (pe === undefined) continue;
        if (!isObject(sub)) throw new FieldsV1Error(`${key}: expected an object, got ${JSON.stringify(sub)}`);
        const child = into.children.get(pe) ?? new FieldSet();
        read(sub, child);
        // `readIterV1`: a member when marked with "." or when nothing below it was read
        if ('.' in sub || child.children.size === 0) child.member = true;
        into.children.set(pe, child);
      }
    };
    read(value, set);
    return set;
  }

  /** A set of the given paths. */
  static of(...paths: readonly (readonly PathElement[])[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** True when the set has no member anywhere. */
  get empty(): boolean {
    if (this.member) return false;
    for (const child of this.children.values()) if (!child.empty) return false;
    return true;
  }

  /** Adds a path. */
  insert(path: readonly PathElement[]): void {
    let node = this as FieldSet;
    for (const pe of path) {
      let next = node.children.get(pe);
      if (next === undefined) {
        next = new FieldSet();
        node.children.set(pe, next);
      }
      node = next;
    }
    node.member = true;
  }

  /** True when `path` is a member. */
  has(path: readonly PathElement[]): boolean {
    return this.node(path)?.member ?? false;
  }

  /** The subtree at `path` (members relative to it), if any. */
  node(path: readonly PathElement[]): FieldSet | undefined {
    let node = this as FieldSet | undefined;
    for (const pe of path) {
      node = node?.children.get(pe);
      if (node === undefined) return undefined;
    }
    return node;
  }

  /** `WithPrefix`: the members below `pe`, relative to it (empty when none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(pe) ?? EMPTY;
  }

  /** True when `path` or any path below it is a member. */
  hasAtOrBelow(path: readonly PathElement[]): boolean {
    const node = this.node(path);
    return node !== undefined && !node.empty;
  }

  /** Every member path, in FieldsV1 order. */
  paths(prefix: PathElement[] = []): PathElement[][] {
    const out: PathElement[][] = [];
    if (this.member && prefix.length > 0) out.push(prefix);
    for (const key of [...this.children.keys()].sort(compareElements)) {
      out.push(...(this.children.get(key)?.paths([...prefix, key]) ?? []));
    }
    return out;
  }

  /** Every member path in SMD's `Set.Iterate` order: this level's members first, then each child's. */
  leafOrder(prefix: PathElement[] = []): PathElement[][] {
    const keys = [...this.children.keys()].sort(compareElements);
    const out: PathElement[][] = [];
    for (const key of keys) if (this.children.get(key)?.member === true) out.push([...prefix, key]);
    for (const key of keys) {
      const child = this.children.get(key);
      if (child && child.children.size > 0) {
        const sub = new FieldSet();
        for (const [k, v] of child.children) sub.children.set(k, v);
        out.push(...sub.leafOrder([...prefix, key]));
      }
    }
    return out;
  }

  /** A copy. */
  copy(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    for (const [k, v] of this.children) out.children.set(k, v.copy());
    return out;
  }

  /** Members of this set or `other` (sets are not changed once built: either may be returned). */
  union(other: FieldSet): FieldSet {
    if (other.empty) return this;
    if (this.empty) return other;
    const out = this.copy();
    const add = (into: FieldSet, from: FieldSet): void => {
      into.member ||= from.member;
      for (const [k, v] of from.children) {
        let child = into.children.get(k);
        if (child === undefined) {
          child = new FieldSet();
          into.children.set(k, child);
        }
        add(child, v);
      }
    };
    add(out, other);
    return out.pruned();
  }

  /** Members of this set that are members of `other` too. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    out.member = this.member && other.member;
    for (const [k, v] of this.children) {
      const o = other.children.get(k);
      if (o !== undefined) out.children.set(k, v.intersection(o));
    }
    return out.pruned();
  }

  /** Members of this set that are not members of `other` (children of removed members stay). */
  difference(other: FieldSet): FieldSet {
    if (other.empty || this.empty) return this;
    const out = new FieldSet();
    out.member = this.member && !other.member;
    for (const [k, v] of this.children) {
      const o = other.children.get(k);
      out.children.set(k, o === undefined ? v.copy() : v.difference(o));
    }
    return out.pruned();
  }

  /** Members of this set not equal to or below any member of `other`. */
  recursiveDifference(other: FieldSet): FieldSet {
    if (other.member) return new FieldSet();
    if (other.empty || this.empty) return this;
    const out = new FieldSet();
    out.member = this.member;
    for (const [k, v] of this.children) {
      const o = other.children.get(k);
      out.children.set(k, o === undefined ? v.copy() : v.recursiveDifference(o));
    }
    return out.pruned();
  }

  /** Same members. */
  equals(other: FieldSet): boolean {
    if (this.member !== other.member) return false;
    const mine = [...this.children].filter(([, v]) => !v.empty);
    const theirs = [...other.children].filter(([, v]) => !v.empty);
    if (mine.length !== theirs.length) return false;
    return mine.every(([k, v]) => {
      const o = other.children.get(k);
      return o !== undefined && v.equals(o);
    });
  }

  /** Drops empty subtrees. */
  private pruned(): FieldSet {
    for (const [k, v] of [...this.children]) if (v.empty) this.children.delete(k);
    return this;
  }

  /** The `fieldsV1` object: `"."` first, then children in FieldsV1 order. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.member && this.children.size > 0) out['.'] = {};
    for (const key of [...this.children.keys()].sort(compareElements)) {
      const child = this.children.get(key);
      if (child !== undefined && !child.empty) out[key] = child.toFieldsV1();
    }
    return out;
  }
}

const EMPTY = new FieldSet();
