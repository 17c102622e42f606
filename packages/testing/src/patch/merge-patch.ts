/**
 * JSON Merge Patch (RFC 7386, `application/merge-patch+json`). Pure: inputs are never mutated.
 *
 * @module
 */
import { clone, deepEqual, isObject, type JsonObject } from '../apply/json-value.js';
import { PatchError } from './json-patch.js';

export { PatchError } from './json-patch.js';

/** Merges into `target`, which is a private copy and may be modified. */
function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: JsonObject = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = merge(out[key], value);
  }
  return out;
}

/**
 * Applies a JSON Merge Patch (RFC 7386) and returns the result.
 *
 * ## Example
 * ```ts
 * applyMergePatch({ data: { a: '1', b: '2' } }, { data: { a: '10', b: null } }); // { data: { a: '10' } }
 * ```
 *
 * ## Semantics
 * Objects merge key by key, `null` deletes a key, anything else (arrays included) replaces.
 * A non-object patch replaces the whole document, as the RFC says; a top-level `null` patch is
 * rejected like evanphx/json-patch (used by kube-apiserver) does.
 *
 * @param doc the current object (not mutated; the result shares nothing with it).
 * @param patch the decoded request body (not mutated; its values are copied).
 * @throws {PatchError} `malformed` for a top-level `null` patch.
 */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (patch === null) throw new PatchError('malformed', 'Invalid JSON Patch');
  return merge(clone(doc), patch);
}

/**
 * The merge patch that turns `from` into `to` (the inverse of {@link applyMergePatch} for object
 * documents without `null` values): changed keys set, removed keys `null`, arrays whole.
 *
 * ## Example
 * ```ts
 * createMergePatch({ a: 1, b: 2 }, { a: 1, c: 3 }); // { b: null, c: 3 }
 * ```
 */
export function createMergePatch(from: unknown, to: unknown): unknown {
  if (!isObject(from) || !isObject(to)) return clone(to);
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) if (!Object.prototype.hasOwnProperty.call(to, key)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    const before = from[key];
    if (!Object.prototype.hasOwnProperty.call(from, key)) patch[key] = clone(value);
    else if (isObject(before) && isObject(value)) {
      const sub = createMergePatch(before, value);
      if (isObject(sub) && Object.keys(sub).length > 0) patch[key] = sub;
    } else if (!deepEqual(before, value)) patch[key] = clone(value);
  }
  return patch;
}
