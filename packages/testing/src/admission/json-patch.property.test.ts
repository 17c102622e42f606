/**
 * `createJsonPatch` (`@rxkube/kube/webhook`, what a mutating webhook answers) against the embedded
 * server's RFC 6902 applier (`patch/json-patch.ts`, checked against kube-apiserver's): applied to
 * the original object, the patch yields the mutated one exactly, for any pair of JSON documents
 * — keys with `~` and `/`, arrays grown, shrunk and reordered, nulls, type changes.
 */
import { createJsonPatch } from '@rxkube/kube/webhook';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { applyJsonPatch } from '../patch/json-patch.js';

const key = fc.oneof(
  fc.constantFrom('a', 'b', 'a/b', 'm~n', '~1', '', 'spec', '0'),
  fc.string({ maxLength: 4 }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string({ maxLength: 3 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const object = fc.dictionary(key, json, { maxKeys: 5 });

describe('createJsonPatch', () => {
  it('yields a patch that turns the original into the mutated object exactly (RFC 6902, any JSON pair)', () => {
    fc.assert(
      fc.property(object, object, (from, to) => {
        const patch = createJsonPatch(from, to);
        expect(applyJsonPatch(from, patch)).toEqual(to);
      }),
      { numRuns: 500 },
    );
  });

  it('yields a patch that applies to a small edit of an object as the edit (mutations of a draft)', () => {
    fc.assert(
      fc.property(object, key, json, (from, k, v) => {
        const to = { ...from, nested: { [k]: v } };
        expect(applyJsonPatch(from, createJsonPatch(from, to))).toEqual(to);
        expect(createJsonPatch(to, to)).toEqual([]);
      }),
    );
  });

  it('escapes ~ and / in keys (RFC 6901)', () => {
    expect(createJsonPatch({ metadata: {} }, { metadata: { 'a/b~c': 1 } })).toEqual([
      { op: 'add', path: '/metadata/a~1b~0c', value: 1 },
    ]);
  });
});
