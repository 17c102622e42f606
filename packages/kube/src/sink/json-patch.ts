/**
 * `toJsonPatch`: immer patches → RFC 6902 JSON Patch operations the API server accepts.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import type { Patch as ImmerPatch } from 'immer';

import type { JsonPatchOperation } from '../client/verb-options.js';
import { isPlainObject, toJsonValue, toPointer } from './internal/json.js';

const OPERATOR = 'toJsonPatch';

type Segment = string | number;

/**
 * Converts immer patches (from `produceWithPatches`) into RFC 6902 JSON Patch operations, replayed
 * against `base` (the value immer drafted) so every operation is valid for the JSON document the
 * API server holds.
 *
 * ## Example
 * ```ts
 * import { enablePatches, produceWithPatches } from 'immer';
 *
 * enablePatches();
 * const base: WidgetStatus = obj.status ?? {};
 * const [next, patches] = produceWithPatches(base, (d) => { d.phase = 'Ready'; });
 * const ops = toJsonPatch(patches, base, ['status']);
 * // [{ op: 'replace', path: '/status/phase', value: 'Ready' }]
 * ```
 *
 * ## Semantics
 * - Paths are JSON Pointers (RFC 6901): `~` → `~0`, `/` → `~1` in every key, `prefix` first.
 * - Values are plain JSON: object keys holding `undefined` are left out, `undefined` array items
 *   become `null` (as `JSON.stringify` does); functions, symbols, bigints, non-finite numbers and
 *   `Map`/`Set` throw `InvalidArgumentError` naming the path.
 * - Setting a key to `undefined` becomes `remove` when the key exists in JSON, and nothing when it
 *   does not; `remove` of a key absent from JSON is dropped.
 * - `replace` of a key (or array end) that does not exist in JSON becomes `add`, since a JSON Patch
 *   `replace` of a missing member fails (422).
 * - An array `length` patch (older immer versions, or hand-written) becomes `remove` operations from
 *   the end (shrinking) or `add` of `null` items (growing).
 * - A whole-value patch (path `[]`) becomes `add` at `prefix` when `base` is `undefined`, else `replace`;
 *   `undefined` as the new whole value becomes `remove` (or nothing).
 *
 * @param patches immer patches, in order.
 * @param base the value the patches apply to (immer's base), `undefined` when it does not exist.
 * @param prefix path of `base` inside the object, e.g. `['status']`.
 * @returns operations in order; `[]` when nothing changes in JSON.
 * @throws {InvalidArgumentError} for a value JSON cannot carry, a non-string/number path segment,
 *   or a path whose parent does not exist in `base` (patches from another base).
 */
export function toJsonPatch(
  patches: readonly ImmerPatch[],
  base: unknown,
  prefix: readonly Segment[] = [],
): JsonPatchOperation[] {
  const doc = { root: toJsonValue(OPERATOR, toPointer(prefix), base) };
  const ops: JsonPatchOperation[] = [];
  for (const patch of patches) {
    const path = patch.path.map((s, i) => segment(s, i, patch));
    if (path.length === 0) {
      rootPatch(doc, patch, prefix, ops);
      continue;
    }
    const parent = resolve(doc.root, path.slice(0, -1));
    const last = path[path.length - 1] as Segment;
    if (parent === undefined || parent === null || typeof parent !== 'object') {
      throw new InvalidArgumentError(
        OPERATOR,
        `patches[${patches.indexOf(patch)}].path`,
        patch.path,
        `must point into an existing container of base; "${toPointer(path.slice(0, -1))}" is not one — pass the base the patches were produced from`,
      );
    }
    const pointer = toPointer([...prefix, ...path]);
    if (Array.isArray(parent)) {
      arrayPatch(parent, last, patch, pointer, toPointer([...prefix, ...path.slice(0, -1)]), ops);
    } else {
      objectPatch(parent as Record<string, unknown>, String(last), patch, pointer, ops);
    }
  }
  return ops;
}

function segment(s: unknown, i: number, patch: ImmerPatch): Segment {
  if (typeof s === 'string' || typeof s === 'number') return s;
  throw new InvalidArgumentError(
    OPERATOR,
    `patch.path[${i}]`,
    patch.path,
    'must be a string or number (Map and Set drafts have no JSON form); use plain objects and arrays',
  );
}

function resolve(root: unknown, path: readonly Segment[]): unknown {
  let node = root;
  for (const s of path) {
    if (Array.isArray(node)) node = node[Number(s)];
    else if (isPlainObject(node)) node = Object.prototype.hasOwnProperty.call(node, s) ? node[s] : undefined;
    else return undefined;
  }
  return node;
}

function rootPatch(
  doc: { root: unknown },
  patch: ImmerPatch,
  prefix: readonly Segment[],
  ops: JsonPatchOperation[],
): void {
  const pointer = toPointer(prefix);
  const value = patch.op === 'remove' ? undefined : toJsonValue(OPERATOR, pointer, patch.value);
  if (value === undefined) {
    if (doc.root !== undefined) ops.push({ op: 'remove', path: pointer });
    doc.root = undefined;
    return;
  }
  ops.push({ op: doc.root === undefined ? 'add' : 'replace', path: pointer, value });
  doc.root = structuredClone(value);
}

function objectPatch(
  parent: Record<string, unknown>,
  key: string,
  patch: ImmerPatch,
  pointer: string,
  ops: JsonPatchOperation[],
): void {
  const exists = Object.prototype.hasOwnProperty.call(parent, key) && parent[key] !== undefined;
  const value = patch.op === 'remove' ? undefined : toJsonValue(OPERATOR, pointer, patch.value);
  if (value === undefined) {
    if (exists) ops.push({ op: 'remove', path: pointer });
    delete parent[key];
    return;
  }
  ops.push({ op: exists ? 'replace' : 'add', path: pointer, value });
  parent[key] = structuredClone(value);
}

function arrayPatch(
  parent: unknown[],
  last: Segment,
  patch: ImmerPatch,
  pointer: string,
  arrayPointer: string,
  ops: JsonPatchOperation[],
): void {
  if (last === 'length') {
    const length: unknown = patch.value;
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) {
      throw new InvalidArgumentError(
        OPERATOR,
        `the length patch at "${pointer}"`,
        length,
        'must be an integer >= 0',
      );
    }
    for (let i = parent.length - 1; i >= length; i--)
      ops.push({ op: 'remove', path: `${arrayPointer}/${i}` });
    for (let i = parent.length; i < length; i++)
      ops.push({ op: 'add', path: `${arrayPointer}/${i}`, value: null });
    const before = parent.length;
    parent.length = length;
    if (length > before) parent.fill(null, before);
    return;
  }
  const index = Number(last);
  if (!Number.isInteger(index) || index < 0 || index > parent.length) {
    throw new InvalidArgumentError(
      OPERATOR,
      `the array index at "${pointer}"`,
      last,
      `must be an integer from 0 to ${parent.length} (the array's length in base) — pass the base the patches were produced from`,
    );
  }
  if (patch.op === 'remove') {
    if (index < parent.length) {
      ops.push({ op: 'remove', path: pointer });
      parent.splice(index, 1);
    }
    return;
  }
  // An `undefined` array item is `null` in JSON.
  const value = toJsonValue(OPERATOR, pointer, patch.value) ?? null;
  if (patch.op === 'add' || index === parent.length) {
    ops.push({ op: 'add', path: pointer, value });
    parent.splice(index, 0, structuredClone(value));
  } else {
    ops.push({ op: 'replace', path: pointer, value });
    parent[index] = structuredClone(value);
  }
}
