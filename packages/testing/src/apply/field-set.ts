/**
 * Sets of field paths in the `FieldsV1` form of `metadata.managedFields` (structured-merge-diff's
 * `fieldpath.Set`): `{"f:data":{".":{},"f:key":{}}}`. Internal to server-side apply.
 *
 * A path is a list of path elements spelled as in FieldsV1: `f:<field>`, `k:<json of the key
 * fields>` (associative list item), `v:<json value>` (set item), `i:<index>`.
 *
 * @module
 */
import { isObject } from './json-value.js';

/** One step of a path, spelled as in FieldsV1. */
export type PathElement = string;

/** Order of path elements in FieldsV1: fields, then keys, then values, then indices; then by text. */
function compareElements(a: string, b: string): number {
  const rank = (s: string): number => 'fkvi'.indexOf(s[0] ?? 'f');
  const d = rank(a) - rank(b);
  if (d !== 0) return d;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Go-like `value.ToString` of a key/value part (JSON, which is what SMD prints). */
function renderElement(pe: string): string {
  const body = pe.slice(2);
  switch (pe[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.keys(key)
        .sort()
        .map((k) => `${k}=${JSON.stringify(key[k])}`)
        .join(',')}]`;
    }
    case 'v':
      return `[=${body}]`;
    default:
      return `[${body}]`;
  }
}

/** A path as SMD prints it in conflicts: `.data.key`, `.spec.containers[name="c"].image`. */
export function pathToString(path: readonly PathElement[]): string {
  return path.map(renderElement).join('');
}

/** A tree of path elements; `member` marks a path that is itself in the set. */
export class FieldSet {
  member = false;
  readonly children = new Map<PathElement, FieldSet>();

  /** Parses a `fieldsV1` object. */
  static fromFieldsV1(value: unknown): FieldSet {
    const set = new FieldSet();
    if (!isObject(value)) return set;
    const keys = Object.keys(value);
    for (const key of keys) {
      if (key === '.') set.member = true;
      else {
        const sub = value[key];
        const child = FieldSet.fromFieldsV1(sub);
        // `{}` is a member without children: the path itself is in the set.
        if (isObject(sub) && Object.keys(sub).length === 0) child.member = true;
        set.children.set(key, child);
      }
    }
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
    const [head, ...rest] = path;
    if (head === undefined) {
      this.member = true;
      return;
    }
    let next = this.children.get(head);
    if (next === undefined) {
      next = new FieldSet();
      this.children.set(head, next);
    }
    next.insert(rest);
  }

  /** True when `path` is a member. */
  has(path: readonly PathElement[]): boolean {
    return this.node(path)?.member ?? false;
  }

  /** The subtree at `path` (members relative to it), if any. */
  node(path: readonly PathElement[]): FieldSet | undefined {
    const [head, ...rest] = path;
    return head === undefined ? this : this.children.get(head)?.node(rest);
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

  /** A copy. */
  copy(): FieldSet {
    const out = new FieldSet();
    out.member = this.member;
    for (const [k, v] of this.children) out.children.set(k, v.copy());
    return out;
  }

  /** Members of this set or `other`. */
  union(other: FieldSet): FieldSet {
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
    const out = new FieldSet();
    out.member = this.member;
    for (const [k, v] of this.children) {
      const o = other.children.get(k);
      out.children.set(k, o === undefined ? v.copy() : v.recursiveDifference(o));
    }
    return out.pruned();
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
