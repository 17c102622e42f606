import { InvalidArgumentError } from '@rxkube/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { mergePatchOf } from './merge-patch.js';

/** RFC 7386 MergePatch, as the oracle. */
function applyMerge(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    // defineProperty, as JSON.parse does: an assignment would make a "__proto__" key a prototype
    if (v === null) delete out[k];
    else
      Object.defineProperty(out, k, {
        value: applyMerge(out[k], v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

describe('mergePatchOf', () => {
  it('is undefined when nothing changed (arrays compared deeply, undefined keys ignored)', () => {
    expect(
      mergePatchOf({ a: [1, { b: 2 }], c: 'x' }, { a: [1, { b: 2 }], c: 'x', d: undefined }),
    ).toBeUndefined();
    expect(mergePatchOf(undefined, {})).toBeUndefined();
  });

  it('sends null for removed keys, only changed nested keys, and arrays whole', () => {
    expect(
      mergePatchOf(
        { phase: 'Pending', ready: false, nested: { a: 1, b: 2 }, list: [1, 2, 3] },
        { phase: 'Ready', nested: { a: 1, b: 3 }, list: [1, 2] },
      ),
    ).toEqual({ phase: 'Ready', ready: null, nested: { b: 3 }, list: [1, 2] });
  });

  it('replaces a scalar with an object whole, and the reverse', () => {
    expect(mergePatchOf({ a: 1 }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
    expect(mergePatchOf({ a: { b: 1 } }, { a: 2 })).toEqual({ a: 2 });
  });

  it('refuses an `after` that is not an object, and values JSON cannot carry', () => {
    expect(() => mergePatchOf({}, [1])).toThrow(InvalidArgumentError);
    expect(() => mergePatchOf({}, { a: () => 1 })).toThrow('"after/a"');
  });

  it('keeps a "__proto__" key as a key (JSON allows it; found by the property below)', () => {
    const after = JSON.parse('{"a":{"__proto__":{"x":1}},"__proto__":2}') as unknown;
    const patch = mergePatchOf({ a: {} }, after);
    expect(JSON.stringify(patch)).toBe('{"a":{"__proto__":{"x":1}},"__proto__":2}');
    expect(Object.getPrototypeOf(patch)).toBe(Object.prototype);
  });

  it('property: applying the patch to before gives after (null-free documents)', () => {
    const json = fc.jsonValue().filter((v) => !JSON.stringify(v).includes('null'));
    const doc = fc.dictionary(fc.constantFrom('a', 'b', 'c'), json, { maxKeys: 3 });
    fc.assert(
      fc.property(doc, doc, (before, after) => {
        const patch = mergePatchOf(before, after);
        const norm = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
        if (patch === undefined) expect(norm(before)).toEqual(norm(after));
        else expect(norm(applyMerge(norm(before), patch))).toEqual(norm(after)); // -0 is 0 in JSON
      }),
      { numRuns: 300 },
    );
  });
});
