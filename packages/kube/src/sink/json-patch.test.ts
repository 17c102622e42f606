import { InvalidArgumentError } from '@rxkube/core';
import fc from 'fast-check';
import { enablePatches, produceWithPatches } from 'immer';
import type { Patch as ImmerPatch } from 'immer';
import { describe, expect, it } from 'vitest';

import { applyJsonPatchForTest } from './apply-json-patch.test.helper.js';
import { toJsonPatch } from './json-patch.js';

enablePatches();

type Doc = Record<string, unknown>;

function patchesOf<T extends object>(base: T, recipe: (d: T) => void): ImmerPatch[] {
  return produceWithPatches(base, recipe as never)[1];
}

describe('toJsonPatch', () => {
  it('escapes ~ and / in keys (~ first) and prefixes the path', () => {
    const base: Doc = {};
    const ops = toJsonPatch(
      patchesOf(base, (d: Doc) => {
        d['a/b'] = 1;
        d['c~d'] = 2;
        d['~1'] = 3;
      }),
      base,
      ['status'],
    );
    expect(ops).toEqual([
      { op: 'add', path: '/status/a~1b', value: 1 },
      { op: 'add', path: '/status/c~0d', value: 2 },
      { op: 'add', path: '/status/~01', value: 3 },
    ]);
  });

  it('never sends undefined: a removed key is `remove`, a new undefined key is nothing, nested undefined dropped', () => {
    const base: Doc = { gone: 'x', keep: 1 };
    const ops = toJsonPatch(
      patchesOf(base, (d: Doc) => {
        d['gone'] = undefined;
        d['never'] = undefined;
        d['nested'] = { a: undefined, b: 1, list: [undefined, 2] };
      }),
      base,
    );
    expect(ops).toEqual([
      { op: 'remove', path: '/gone' },
      { op: 'add', path: '/nested', value: { b: 1, list: [null, 2] } },
    ]);
    expect(JSON.stringify(ops)).not.toContain('undefined');
  });

  it('turns `replace` of a key that is missing from JSON (undefined in JS) into `add`', () => {
    const base: Doc = { phase: undefined };
    const ops = toJsonPatch(
      patchesOf(base, (d: Doc) => {
        d['phase'] = 'Ready';
      }),
      base,
    );
    expect(ops).toEqual([{ op: 'add', path: '/phase', value: 'Ready' }]);
    expect(applyJsonPatchForTest(JSON.parse(JSON.stringify(base)), ops)).toEqual({ phase: 'Ready' });
  });

  it('drops `remove` of a key that JSON does not have', () => {
    const base: Doc = { a: undefined };
    expect(toJsonPatch([{ op: 'remove', path: ['a'] }], base)).toEqual([]);
  });

  it('handles a `length` patch by removing items from the end, or adding nulls', () => {
    const base = { list: ['a', 'b', 'c'] };
    expect(toJsonPatch([{ op: 'replace', path: ['list', 'length'], value: 1 }], base)).toEqual([
      { op: 'remove', path: '/list/2' },
      { op: 'remove', path: '/list/1' },
    ]);
    expect(toJsonPatch([{ op: 'replace', path: ['list', 'length'], value: 4 }], base)).toEqual([
      { op: 'add', path: '/list/3', value: null },
    ]);
  });

  it('converts immer 11 array shrinking (removes from the end) and growing', () => {
    const base = { list: [1, 2, 3, 4] };
    const ops = toJsonPatch(
      patchesOf(base, (d) => {
        d.list.splice(1, 2);
      }),
      base,
    );
    expect(applyJsonPatchForTest(base, ops)).toEqual({ list: [1, 4] });
    const grow = toJsonPatch(
      patchesOf(base, (d) => {
        d.list.push(5, 6);
      }),
      base,
    );
    expect(grow).toEqual([
      { op: 'add', path: '/list/4', value: 5 },
      { op: 'add', path: '/list/5', value: 6 },
    ]);
  });

  it('a whole-value patch is `add` when the base is absent, `replace` otherwise, `remove` for undefined', () => {
    expect(toJsonPatch([{ op: 'replace', path: [], value: { a: 1 } }], undefined, ['status'])).toEqual([
      { op: 'add', path: '/status', value: { a: 1 } },
    ]);
    expect(toJsonPatch([{ op: 'replace', path: [], value: { a: 1 } }], {}, ['status'])).toEqual([
      { op: 'replace', path: '/status', value: { a: 1 } },
    ]);
    expect(toJsonPatch([{ op: 'replace', path: [], value: undefined }], {}, ['status'])).toEqual([
      { op: 'remove', path: '/status' },
    ]);
    expect(toJsonPatch([{ op: 'replace', path: [], value: undefined }], undefined, ['status'])).toEqual([]);
  });

  it('refuses values JSON cannot carry, naming the path', () => {
    const base: Doc = {};
    const bad = patchesOf(base, (d: Doc) => {
      d['a'] = { n: Number.NaN };
    });
    expect(() => toJsonPatch(bad, base, ['status'])).toThrow(InvalidArgumentError);
    expect(() => toJsonPatch(bad, base, ['status'])).toThrow('"/status/a/n"');
    expect(() => toJsonPatch([{ op: 'add', path: ['m'], value: new Map() }], {})).toThrow('Map');
    expect(() => toJsonPatch([{ op: 'add', path: ['b'], value: 1n }], {})).toThrow('bigint');
  });

  it('refuses patches whose parent does not exist in base (patches from another base)', () => {
    expect(() => toJsonPatch([{ op: 'add', path: ['x', 'y'], value: 1 }], {})).toThrow(
      /must point into an existing container/,
    );
    expect(() => toJsonPatch([{ op: 'add', path: ['l', 5], value: 1 }], { l: [] })).toThrow(/from 0 to 0/);
  });

  it('property: the operations turn JSON(base) into JSON(next) for random drafts', () => {
    const key = fc.constantFrom('a', 'b', 'c/d', 'e~f', 'g');
    const leaf = fc.oneof(
      fc.integer(),
      fc.string({ maxLength: 3 }),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(key, tie('node'), { maxKeys: 3 }),
      ),
    })).node;
    const edit = fc.record({
      path: fc.array(fc.oneof(key, fc.nat(3)), { minLength: 1, maxLength: 3 }),
      kind: fc.constantFrom('set', 'delete', 'push', 'splice'),
      value,
    });
    fc.assert(
      fc.property(
        fc.dictionary(key, value, { maxKeys: 4 }),
        fc.array(edit, { maxLength: 5 }),
        (base, edits) => {
          const [next, patches] = produceWithPatches(base, (d: Doc) => {
            for (const e of edits) applyEdit(d, e.path, e.kind, e.value);
          });
          const ops = toJsonPatch(patches, base, ['status']);
          const json = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
          const result = applyJsonPatchForTest({ status: json(base) }, ops) as { status: unknown };
          expect(result.status).toEqual(json(next));
          expect(JSON.stringify(ops)).toBe(JSON.stringify(json(ops)));
        },
      ),
      { numRuns: 400 },
    );
  });
});

function applyEdit(root: unknown, path: readonly (string | number)[], kind: string, value: unknown): void {
  let node = root;
  for (const s of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = Array.isArray(node) ? node[Number(s)] : (node as Doc)[String(s)];
  }
  if (node === null || typeof node !== 'object') return;
  const last = path[path.length - 1] as string | number;
  if (Array.isArray(node)) {
    const i = Number(last);
    if (!Number.isInteger(i)) return;
    if (kind === 'push') node.push(value);
    else if (kind === 'splice') node.splice(Math.min(i, node.length), 1);
    else if (kind === 'delete') node.length = Math.min(node.length, i);
    else if (i <= node.length) node[i] = value;
  } else {
    const obj = node as Doc;
    if (kind === 'delete') delete obj[String(last)];
    else obj[String(last)] = value;
  }
}
