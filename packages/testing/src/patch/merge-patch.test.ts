import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { exchange, loadTranscript } from '../replay/transcripts.js';
import { applyMergePatch, createMergePatch, PatchError } from './merge-patch.js';

const t10 = loadTranscript('10');
const t12 = loadTranscript('12');
type Obj = { metadata?: { labels?: unknown }; data?: unknown; spec?: unknown; status?: unknown };

describe('applyMergePatch against the transcripts', () => {
  it('sets a and deletes b with null (10)', () => {
    const before = exchange(t10, 'create s10-cm').response?.body as Obj;
    const ex = exchange(t10, 'merge patch (application/merge-patch+json)');
    const after = applyMergePatch(before, ex.request.body) as Obj;
    expect(after.data).toEqual((ex.response?.body as Obj).data);
  });

  it('a patch that sets what is there changes nothing (10)', () => {
    const ex = exchange(t10, 'merge patch that changes nothing');
    const current = ex.response?.body as Obj;
    expect(applyMergePatch(current, ex.request.body)).toEqual(current);
  });

  it('merges a label into a custom resource (12)', () => {
    const before = exchange(t12, 'merge patch /status').response?.body as Obj;
    const ex = exchange(t12, 'metadata-only change (label)');
    const after = applyMergePatch(before, ex.request.body) as Obj;
    expect(after.metadata?.labels).toEqual((ex.response?.body as Obj).metadata?.labels);
    expect(after.spec).toEqual(before.spec);
  });
});

describe('applyMergePatch', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('RFC 7386 appendix A: %j + %j', (doc, patch, expected) => {
    expect(applyMergePatch(doc, patch)).toEqual(expected);
  });

  it('rejects a null patch as malformed', () => {
    expect(() => applyMergePatch({}, null)).toThrow(PatchError);
  });

  const nullFree = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.array(tie('value'), { maxLength: 3 }),
      tie('object'),
    ),
    object: fc.dictionary(fc.string({ maxLength: 3 }), tie('value'), { maxKeys: 4 }),
  })).object;

  it('applying the diff of two documents gives the second one (property)', () => {
    fc.assert(
      fc.property(nullFree, nullFree, (from, to) => {
        expect(applyMergePatch(from, createMergePatch(from, to))).toEqual(to);
      }),
    );
  });

  it('never mutates its inputs and shares no object with them (property)', () => {
    fc.assert(
      fc.property(nullFree, nullFree, (doc, patch) => {
        const docCopy = structuredClone(doc);
        const patchCopy = structuredClone(patch);
        const out = applyMergePatch(doc, patch) as Record<string, unknown>;
        expect(doc).toEqual(docCopy);
        expect(patch).toEqual(patchCopy);
        for (const k of Object.keys(out)) {
          const v = out[k];
          if (typeof v === 'object' && v !== null) {
            expect(v).not.toBe(doc[k]);
            expect(v).not.toBe(patch[k]);
          }
        }
      }),
    );
  });
});
