/**
 * `mergePatchOf`: the minimal RFC 7386 JSON merge patch between two JSON documents.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import type { JsonObject } from './internal/json.js';
import { isPlainObject, jsonEqual, setOwn, toJsonValue } from './internal/json.js';

/**
 * An RFC 7386 JSON merge patch: `null` removes a key, objects merge, anything else replaces.
 *
 * ## Example
 * ```ts
 * const patch: MergePatch = { phase: 'Ready', message: null }; // sets phase, removes message
 * await client.patch(ref, { type: 'merge', body: { status: patch } }, { subresource: 'status' });
 * ```
 */
export type MergePatch = { [key: string]: unknown };

/**
 * The minimal RFC 7386 JSON merge patch that turns `before` into `after`, or `undefined` when
 * nothing changed.
 *
 * ## Example
 * ```ts
 * mergePatchOf({ phase: 'Pending', ready: false }, { phase: 'Ready' }); // { phase: 'Ready', ready: null }
 * mergePatchOf({ a: [1, 2] }, { a: [1, 2] }); // undefined
 * ```
 *
 * ## Semantics
 * - Keys removed in `after` (absent or `undefined`) are `null`; nested objects are diffed key by key;
 *   arrays and scalars that differ are sent whole (merge patches cannot address array items).
 * - Compared and emitted as JSON (`toJSON` honoured, `undefined` keys ignored).
 * - RFC 7386 cannot set a value to `null`: a key that is `null` in `after` is sent as `null`, which
 *   removes it — the same JSON result as leaving it out.
 * - When `after` is not an object (or `before` is not one), the patch is `after` itself, wrapped by
 *   the caller where it lives (e.g. `{ status: … }`); this function only returns objects, so
 *   `after` that is not a plain object throws.
 *
 * @param before the current document (e.g. the latest `status`), `undefined` when absent.
 * @param after the desired document.
 * @throws {InvalidArgumentError} when `after` holds a value JSON cannot carry or is not an object.
 */
export function mergePatchOf(before: unknown, after: unknown): MergePatch | undefined {
  const a = toJsonValue('mergePatchOf', 'after', after);
  if (!isPlainObject(a)) {
    throw new InvalidArgumentError(
      'mergePatchOf',
      'after',
      after,
      'must be a plain object (the document to patch towards); wrap scalars where they live, e.g. { status: … }',
    );
  }
  const b = toJsonValue('mergePatchOf', 'before', before);
  return diff(isPlainObject(b) ? b : {}, a);
}

function diff(before: JsonObject, after: JsonObject): MergePatch | undefined {
  const patch: MergePatch = {};
  let changed = false;
  for (const key of Object.keys(before)) {
    if (!Object.prototype.hasOwnProperty.call(after, key)) {
      setOwn(patch, key, null);
      changed = true;
    }
  }
  for (const [key, value] of Object.entries(after)) {
    const old = Object.prototype.hasOwnProperty.call(before, key) ? before[key] : undefined;
    if (jsonEqual(old, value)) continue;
    if (isPlainObject(value) && isPlainObject(old)) {
      const nested = diff(old, value);
      if (nested === undefined) continue;
      setOwn(patch, key, nested);
    } else {
      setOwn(patch, key, value);
    }
    changed = true;
  }
  return changed ? patch : undefined;
}
