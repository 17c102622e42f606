/**
 * Small helpers for decoded JSON values (objects, arrays, strings, numbers, booleans, null), shared
 * by the patch and apply modules. Internal: not exported from the package.
 *
 * @module
 */

/** A decoded JSON object. */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep structural equality of two JSON values (key order ignored, array order significant). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Sets `obj[key] = value` as an own data property, also for a JSON key `__proto__` (which JSON.parse
 * makes an own property, and a plain assignment would turn into a prototype change).
 */
export function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** A deep copy of a JSON value (`undefined` stays `undefined`). */
export function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => clone(v)) as T;
  if (isObject(value)) {
    const out: JsonObject = {};
    // defineProperty: a JSON key `__proto__` (JSON.parse makes it an own property) must stay data
    for (const [k, v] of Object.entries(value)) setKey(out, k, clone(v));
    return out as T;
  }
  return value;
}

/** The JSON type name kube-openapi uses in messages: object, array, string, integer, number, boolean, null. */
export function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  return 'object';
}
