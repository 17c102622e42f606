/**
 * A small, strict RFC 6902 applier used as the oracle of the sink tests (add, remove, replace,
 * test; array indexes and `-`). Throws on anything the API server would refuse with 422.
 */
import { jsonEqual } from './internal/json.js';

interface Op {
  readonly op: string;
  readonly path: string;
  readonly value?: unknown;
}

function parse(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`bad pointer ${pointer}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

export function applyJsonPatchForTest(doc: unknown, ops: readonly Op[]): unknown {
  let root: unknown = structuredClone(doc);
  for (const op of ops) {
    const path = parse(op.path);
    if (path.length === 0) {
      if (op.op === 'test') {
        if (!jsonEqual(root, op.value)) throw new Error(`test failed at ''`);
      } else if (op.op === 'remove') root = undefined;
      else root = structuredClone(op.value);
      continue;
    }
    let parent: unknown = root;
    for (const s of path.slice(0, -1)) {
      if (parent === null || typeof parent !== 'object') throw new Error(`missing parent at ${op.path}`);
      parent = (parent as Record<string, unknown>)[s];
    }
    if (parent === null || typeof parent !== 'object') throw new Error(`missing parent at ${op.path}`);
    const key = path[path.length - 1] as string;
    if (Array.isArray(parent)) {
      const index = key === '-' ? parent.length : Number(key);
      const limit = op.op === 'add' ? parent.length : parent.length - 1;
      if (!Number.isInteger(index) || index < 0 || index > limit) throw new Error(`bad index at ${op.path}`);
      if (op.op === 'add') parent.splice(index, 0, structuredClone(op.value));
      else if (op.op === 'remove') parent.splice(index, 1);
      else if (op.op === 'replace') parent[index] = structuredClone(op.value);
      else if (op.op === 'test' && !jsonEqual(parent[index], op.value))
        throw new Error(`test failed at ${op.path}`);
    } else {
      const obj = parent as Record<string, unknown>;
      const has = Object.prototype.hasOwnProperty.call(obj, key);
      if (op.op === 'add') obj[key] = structuredClone(op.value);
      else if (op.op === 'test') {
        if (!(has ? jsonEqual(obj[key], op.value) : op.value === null))
          throw new Error(`test failed at ${op.path}`);
      } else {
        if (!has) throw new Error(`${op.op} of missing member ${op.path}`);
        if (op.op === 'remove') delete obj[key];
        else obj[key] = structuredClone(op.value);
      }
    }
  }
  return root;
}
