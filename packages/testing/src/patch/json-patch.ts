/**
 * JSON Patch (RFC 6902, `application/json-patch+json`) as kube-apiserver applies it: every op of
 * the RFC (`add`, `remove`, `replace`, `move`, `copy`, `test`), the `-` array index, `~0`/`~1`
 * escapes. Pure: the input document and the patch are never mutated.
 *
 * @module
 */
import { clone, deepEqual, isObject, type JsonObject } from '../apply/json-value.js';

/**
 * A patch that cannot be applied.
 *
 * - `malformed`: the patch body itself has the wrong shape (for JSON Patch: not an array). The
 *   server answers `400 BadRequest` with this message.
 * - `invalid`: the patch is well formed but does not apply (a failing `test`, a missing path).
 *   The server answers `422 Invalid` with the generic message
 *   `the server rejected our request due to an error in our request` and `details: {}`.
 *
 * ## Example
 * ```ts
 * try {
 *   applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]);
 * } catch (e) {
 *   if (e instanceof PatchError && e.kind === 'invalid') console.log('422:', e.message);
 * }
 * ```
 */
export class PatchError extends Error {
  readonly _tag = 'PatchError';
  constructor(
    readonly kind: 'invalid' | 'malformed',
    message: string,
  ) {
    super(message);
    this.name = 'PatchError';
  }
}

/** Go's name for a JSON value's type in `json: cannot unmarshal X into ...`. */
function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  return 'object';
}

/** Splits a JSON pointer into unescaped reference tokens. */
function parsePointer(pointer: unknown, op: number, name: string): string[] {
  if (typeof pointer !== 'string') {
    throw new PatchError('invalid', `operation ${op}: "${name}" must be a JSON pointer string`);
  }
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) {
    throw new PatchError(
      'invalid',
      `operation ${op}: "${name}" ${JSON.stringify(pointer)} must start with "/"`,
    );
  }
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** An array index token: decimal without leading zeros (or `-` when allowed). */
function arrayIndex(token: string, length: number, allowEnd: boolean, where: string): number {
  if (token === '-' && allowEnd) return length;
  if (!/^(0|[1-9]\d*)$/.test(token))
    throw new PatchError('invalid', `${where}: invalid array index "${token}"`);
  const index = Number(token);
  if (index > (allowEnd ? length : length - 1)) {
    throw new PatchError('invalid', `${where}: array index ${index} out of bounds (length ${length})`);
  }
  return index;
}

/** The container holding the last token of `tokens` (throws when a parent is missing). */
function parentOf(root: unknown, tokens: string[], where: string): unknown {
  let node = root;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[arrayIndex(token, node.length, false, where)];
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else throw new PatchError('invalid', `${where}: path does not exist (missing "${token}")`);
  }
  return node;
}

function getValue(root: unknown, tokens: string[], where: string): unknown {
  if (tokens.length === 0) return root;
  const parent = parentOf(root, tokens, where);
  const last = tokens[tokens.length - 1] ?? '';
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false, where)];
  if (isObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) return parent[last];
  throw new PatchError('invalid', `${where}: path does not exist`);
}

/** True when `tokens` names a key that is absent from an existing object. */
function isMissingKey(root: unknown, tokens: string[], where: string): boolean {
  if (tokens.length === 0) return false;
  const parent = parentOf(root, tokens, where);
  const last = tokens[tokens.length - 1] ?? '';
  return isObject(parent) && !Array.isArray(parent) && !Object.prototype.hasOwnProperty.call(parent, last);
}

/** Adds `value` at `tokens` (RFC 6902 §4.1); returns the new root. */
function addValue(root: unknown, tokens: string[], value: unknown, where: string): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(root, tokens, where);
  const last = tokens[tokens.length - 1] ?? '';
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, true, where), 0, value);
  else if (isObject(parent)) parent[last] = value;
  else throw new PatchError('invalid', `${where}: cannot add to a ${goJsonKind(parent)}`);
  return root;
}

/** Removes the value at `tokens`; returns the new root and the removed value. */
function removeValue(root: unknown, tokens: string[], where: string): { root: unknown; removed: unknown } {
  if (tokens.length === 0) return { root: null, removed: root };
  const parent = parentOf(root, tokens, where);
  const last = tokens[tokens.length - 1] ?? '';
  if (Array.isArray(parent)) {
    const removed: unknown[] = (parent as unknown[]).splice(arrayIndex(last, parent.length, false, where), 1);
    return { root, removed: removed[0] };
  }
  if (isObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) {
    const removed = parent[last];
    delete parent[last];
    return { root, removed };
  }
  throw new PatchError('invalid', `${where}: cannot remove a path that does not exist`);
}

/**
 * Applies a JSON Patch (RFC 6902) and returns the patched document.
 *
 * ## Example
 * ```ts
 * applyJsonPatch({ data: { a: '1' } }, [
 *   { op: 'test', path: '/data/a', value: '1' },
 *   { op: 'replace', path: '/data/a', value: '2' },
 * ]); // { data: { a: '2' } }
 * ```
 *
 * ## Semantics
 * Operations apply in order to a private copy; the first failing one aborts the whole patch
 * (nothing is half-applied because the input is never touched). `null` as the whole patch is an
 * empty patch (Go decodes it to a nil slice).
 *
 * @param doc the current object (not mutated).
 * @param patch the decoded request body (not mutated; values are copied into the result).
 * @throws {PatchError} `malformed` when the patch is not an array of objects (message like Go's
 *   `json: cannot unmarshal object into Go value of type jsonpatch.Patch`); `invalid` when an
 *   operation does not apply (failing `test`, missing path, unknown op, bad index).
 */
export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (patch === null) return clone(doc);
  if (!Array.isArray(patch)) {
    throw new PatchError(
      'malformed',
      `json: cannot unmarshal ${goJsonKind(patch)} into Go value of type jsonpatch.Patch`,
    );
  }
  for (const op of patch) {
    if (!isObject(op)) {
      throw new PatchError(
        'malformed',
        `json: cannot unmarshal ${goJsonKind(op)} into Go value of type jsonpatch.Operation`,
      );
    }
  }
  let root = clone(doc);
  (patch as JsonObject[]).forEach((operation, i) => {
    const where = `operation ${i} (${String(operation.op)} ${JSON.stringify(operation.path)})`;
    const path = parsePointer(operation.path, i, 'path');
    const needsValue = operation.op === 'add' || operation.op === 'replace' || operation.op === 'test';
    if (needsValue && !Object.prototype.hasOwnProperty.call(operation, 'value')) {
      throw new PatchError('invalid', `${where}: missing "value"`);
    }
    switch (operation.op) {
      case 'add':
        root = addValue(root, path, clone(operation.value), where);
        break;
      case 'remove':
        root = removeValue(root, path, where).root;
        break;
      case 'replace':
        root = removeValue(root, path, where).root;
        root = addValue(root, path, clone(operation.value), where);
        break;
      case 'move': {
        const from = parsePointer(operation.from, i, 'from');
        const isPrefix = from.length < path.length && from.every((t, j) => t === path[j]);
        if (isPrefix)
          throw new PatchError('invalid', `${where}: cannot move a value into one of its own children`);
        const removed = removeValue(root, from, where);
        root = addValue(removed.root, path, removed.removed, where);
        break;
      }
      case 'copy': {
        const from = parsePointer(operation.from, i, 'from');
        root = addValue(root, path, clone(getValue(root, from, where)), where);
        break;
      }
      case 'test': {
        // evanphx/json-patch (the apiserver's library): testing for `null` at a missing key of an
        // existing object succeeds; kube-rs's finalizer helper relies on it to create the
        // finalizers array only when absent.
        if (operation.value === null && isMissingKey(root, path, where)) break;
        const actual = getValue(root, path, where);
        if (!deepEqual(actual, operation.value)) {
          throw new PatchError(
            'invalid',
            `${where}: test failed: the value is ${JSON.stringify(actual)}, not ${JSON.stringify(operation.value)}`,
          );
        }
        break;
      }
      default:
        throw new PatchError('invalid', `${where}: unknown operation ${JSON.stringify(operation.op)}`);
    }
  });
  return root;
}
