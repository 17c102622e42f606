/**
 * JSON value helpers of the sink: plain-object checks, deep equality on JSON values, and
 * `toJsonValue`, which turns a JavaScript value into the JSON the API server will receive (object
 * keys holding `undefined` dropped, `undefined` array items as `null`, `toJSON` honoured) and
 * refuses what JSON cannot carry. Not exported from the package.
 */
import { InvalidArgumentError } from '@rxkube/core';

/** A JSON object. */
export type JsonObject = { [key: string]: unknown };

/**
 * Sets `key` as an own, enumerable property of `target`, as `JSON.parse` does. A plain assignment
 * would turn a `"__proto__"` key — legal JSON, and kept by the API server — into a prototype
 * change, silently dropping the key from the document.
 */
export function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** True for `{}`-like objects (not arrays, not class instances such as `Map` or `Date`). */
export function isPlainObject(value: unknown): value is JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The JSON form of `value` (what `JSON.parse(JSON.stringify(value))` would give), refusing values
 * JSON would silently change: functions, symbols, bigints, non-finite numbers, `Map`/`Set`.
 * Returns `undefined` only for `undefined` itself.
 *
 * @param operator names the caller in the error.  @param where JSON Pointer of the value.
 */
export function toJsonValue(operator: string, where: string, value: unknown): unknown {
  if (value === undefined || value === null) return value;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw notJson(operator, where, value, 'a non-finite number');
      return value;
    case 'object':
      break;
    default:
      throw notJson(operator, where, value, `a ${typeof value}`);
  }
  const withToJson = value as { toJSON?: unknown };
  if (typeof withToJson.toJSON === 'function') {
    return toJsonValue(operator, where, (withToJson.toJSON as () => unknown).call(value));
  }
  if (Array.isArray(value)) {
    return value.map((item: unknown, i) => toJsonValue(operator, `${where}/${i}`, item) ?? null);
  }
  if (!isPlainObject(value)) throw notJson(operator, where, value, 'a class instance (Map, Set, …)');
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const json = toJsonValue(operator, `${where}/${escapePointerSegment(key)}`, item);
    if (json !== undefined) setOwn(out, key, json);
  }
  return out;
}

function notJson(operator: string, where: string, value: unknown, what: string): InvalidArgumentError {
  return new InvalidArgumentError(
    operator,
    `the value at "${where || '/'}"`,
    value,
    `must be plain JSON (string, finite number, boolean, null, array, plain object), not ${what}; convert it before writing it`,
  );
}

/** Deep equality of two JSON values (objects by keys, arrays by items; `undefined` keys ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item: unknown, i) => jsonEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
    const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
    if (keysA.length !== keysB.length) return false;
    return keysA.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** RFC 6901 escaping of one reference token: `~` → `~0`, then `/` → `~1`. */
export function escapePointerSegment(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** A JSON Pointer from path segments (`[]` → `''`, the whole document). */
export function toPointer(path: readonly (string | number)[]): string {
  return path.map((s) => `/${escapePointerSegment(s)}`).join('');
}
