/**
 * The RFC 6902 JSON patch from one JSON document to another, as an AdmissionReview response
 * carries it: applied to the original object it yields the mutated one, exactly.
 *
 * Objects are compared key by key (`remove`, `add`, `replace`, recursing into values both sides
 * hold as objects); an array keeps its elements' identity by index — same length: recurse per
 * element; grown with an equal prefix: `add` at `/-`; otherwise one `replace` of the whole array
 * (always valid, never a wrong index). Keys are escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`).
 *
 * @module
 */
import type { JsonPatchOperation } from '../client/verb-options.js';

/**
 * The RFC 6902 operations turning `from` into `to` (both plain JSON: objects, arrays, strings,
 * numbers, booleans, null). Empty when they are deeply equal.
 *
 * ## Example
 * ```ts
 * createJsonPatch({ spec: { size: 1 } }, { spec: { size: 2, color: 'red' } });
 * // [{ op: 'replace', path: '/spec/size', value: 2 }, { op: 'add', path: '/spec/color', value: 'red' }]
 * ```
 */
export function createJsonPatch(from: unknown, to: unknown): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diff(from, to, '', ops);
  return ops;
}

/** RFC 6901 escaping of one reference token. */
export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function diff(a: unknown, b: unknown, path: string, ops: JsonPatchOperation[]): void {
  if (Object.is(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    diffArrays(a, b, path, ops);
    return;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const key of Object.keys(a)) {
      if (!Object.hasOwn(b, key) || b[key] === undefined) {
        if (a[key] !== undefined) ops.push({ op: 'remove', path: `${path}/${escapePointerToken(key)}` });
      }
    }
    for (const key of Object.keys(b)) {
      const value = b[key];
      if (value === undefined) continue;
      const at = `${path}/${escapePointerToken(key)}`;
      if (!Object.hasOwn(a, key) || a[key] === undefined)
        ops.push({ op: 'add', path: at, value: copy(value) });
      else diff(a[key], value, at, ops);
    }
    return;
  }
  if (deepEqual(a, b)) return;
  // the root is replaced as a whole: `replace` with the empty pointer is valid RFC 6902
  ops.push({ op: 'replace', path, value: copy(b) });
}

function diffArrays(
  a: readonly unknown[],
  b: readonly unknown[],
  path: string,
  ops: JsonPatchOperation[],
): void {
  if (a.length === b.length) {
    for (let i = 0; i < a.length; i++) diff(a[i], b[i], `${path}/${String(i)}`, ops);
    return;
  }
  if (b.length > a.length && a.every((v, i) => deepEqual(v, b[i]))) {
    for (let i = a.length; i < b.length; i++) ops.push({ op: 'add', path: `${path}/-`, value: copy(b[i]) });
    return;
  }
  ops.push({ op: 'replace', path, value: copy(b) });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep equality of JSON values (`undefined` members count as absent). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** A detached copy (the patch must not alias the caller's draft result). */
function copy(v: unknown): unknown {
  return v === undefined ? null : (JSON.parse(JSON.stringify(v)) as unknown);
}
