import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { exchange, loadTranscript } from '../replay/transcripts.js';
import { applyJsonPatch, PatchError } from './json-patch.js';

const t10 = loadTranscript('10');
type Obj = { metadata?: { labels?: unknown }; data?: unknown; spec?: unknown };
const body = (label: string): Obj => exchange(t10, label).response?.body as Obj;
const request = (label: string): unknown => exchange(t10, label).request.body;

function expectPatchError(fn: () => unknown, kind: PatchError['kind'], message?: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(PatchError);
  expect((caught as PatchError).kind).toBe(kind);
  if (message !== undefined) expect((caught as PatchError).message).toBe(message);
}

describe('applyJsonPatch against the 10 transcript', () => {
  const before = body('merge patch (application/merge-patch+json)');

  it('add and replace give what the real server stored', () => {
    const after = applyJsonPatch(
      before,
      request('JSON patch (application/json-patch+json): add and replace'),
    ) as Obj;
    const expected = body('JSON patch (application/json-patch+json): add and replace');
    expect(after.data).toEqual(expected.data);
    expect(after.metadata?.labels).toEqual(expected.metadata?.labels);
  });

  it('a failing test op is invalid (422)', () => {
    const current = body('JSON patch (application/json-patch+json): add and replace');
    expect(exchange(t10, 'JSON patch with a failing test op').response?.status).toBe(422);
    expectPatchError(() => applyJsonPatch(current, request('JSON patch with a failing test op')), 'invalid');
  });

  it('removing a missing path is invalid (422)', () => {
    const current = body('JSON patch (application/json-patch+json): add and replace');
    expect(exchange(t10, 'JSON patch removing a path').response?.status).toBe(422);
    expectPatchError(() => applyJsonPatch(current, request('JSON patch removing a path')), 'invalid');
  });

  it('a body that is not an array is malformed (400) with the Go message', () => {
    const ex = exchange(t10, 'JSON patch body that is not an array');
    expectPatchError(
      () => applyJsonPatch(before, ex.request.body),
      'malformed',
      (ex.response?.body as { message: string }).message,
    );
  });

  it('works on custom resources as well', () => {
    const w = body('merge patch on a custom resource');
    const after = applyJsonPatch(w, request('JSON patch on a custom resource')) as Obj;
    expect(after.spec).toEqual(body('JSON patch on a custom resource').spec);
  });
});

describe('applyJsonPatch', () => {
  const doc = { a: { b: [1, 2, 3], 'x/y': 'slash', 'm~n': 'tilde' }, c: 'x' };

  it.each([
    [[{ op: 'add', path: '/a/b/-', value: 4 }], { a: { ...doc.a, b: [1, 2, 3, 4] }, c: 'x' }],
    [[{ op: 'add', path: '/a/b/0', value: 0 }], { a: { ...doc.a, b: [0, 1, 2, 3] }, c: 'x' }],
    [[{ op: 'add', path: '/a/b/3', value: 9 }], { a: { ...doc.a, b: [1, 2, 3, 9] }, c: 'x' }],
    [[{ op: 'remove', path: '/a/b/1' }], { a: { ...doc.a, b: [1, 3] }, c: 'x' }],
    [[{ op: 'replace', path: '/a/x~1y', value: 'S' }], { a: { ...doc.a, 'x/y': 'S' }, c: 'x' }],
    [[{ op: 'remove', path: '/a/m~0n' }], { a: { b: [1, 2, 3], 'x/y': 'slash' }, c: 'x' }],
    [[{ op: 'move', from: '/c', path: '/d' }], { a: doc.a, d: 'x' }],
    [[{ op: 'copy', from: '/a/b/0', path: '/a/b/-' }], { a: { ...doc.a, b: [1, 2, 3, 1] }, c: 'x' }],
    [[{ op: 'test', path: '/a/b', value: [1, 2, 3] }], doc],
    [[{ op: 'test', path: '/a', value: { 'm~n': 'tilde', b: [1, 2, 3], 'x/y': 'slash' } }], doc],
    [[{ op: 'replace', path: '', value: 5 }], 5],
    [[], doc],
  ])('%j', (patch, expected) => {
    expect(applyJsonPatch(doc, patch)).toEqual(expected);
  });

  it.each([
    [[{ op: 'test', path: '/c', value: 'y' }]],
    [[{ op: 'remove', path: '/nope' }]],
    [[{ op: 'replace', path: '/nope', value: 1 }]],
    [[{ op: 'add', path: '/nope/deeper', value: 1 }]],
    [[{ op: 'add', path: '/a/b/5', value: 1 }]],
    [[{ op: 'add', path: '/a/b/01', value: 1 }]],
    [[{ op: 'remove', path: '/a/b/-' }]],
    [[{ op: 'add', path: 'a', value: 1 }]],
    [[{ op: 'add', path: '/x' }]],
    [[{ op: 'frobnicate', path: '/c' }]],
    [[{ op: 'move', from: '/a', path: '/a/z' }]],
    [[{ op: 'copy', from: '/nope', path: '/z' }]],
  ])('rejects %j as invalid', (patch) => {
    expectPatchError(() => applyJsonPatch(doc, patch), 'invalid');
  });

  it('rejects a non-object operation as malformed', () => {
    expectPatchError(
      () => applyJsonPatch(doc, ['x']),
      'malformed',
      'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
    );
  });

  it('is all-or-nothing: a failing later op leaves no trace, and null is an empty patch', () => {
    const input = { a: 1 };
    expectPatchError(
      () =>
        applyJsonPatch(input, [
          { op: 'add', path: '/b', value: 2 },
          { op: 'test', path: '/a', value: 2 },
        ]),
      'invalid',
    );
    expect(input).toEqual({ a: 1 });
    expect(applyJsonPatch(input, null)).toEqual({ a: 1 });
  });

  it('never mutates the document or the patch, and shares nothing with them (property)', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 3 }), json), json, (input, value) => {
        const keys = Object.keys(input);
        const patch = [
          { op: 'add', path: '/new', value },
          ...(keys[0] !== undefined
            ? [{ op: 'remove', path: `/${keys[0].replace(/~/g, '~0').replace(/\//g, '~1')}` }]
            : []),
        ];
        const docCopy = structuredClone(input);
        const patchCopy = structuredClone(patch);
        const out = applyJsonPatch(input, patch) as Record<string, unknown>;
        expect(input).toEqual(docCopy);
        expect(patch).toEqual(patchCopy);
        expect(out.new).toEqual(value);
        if (typeof value === 'object' && value !== null) expect(out.new).not.toBe(value);
      }),
    );
  });
});

describe('applyJsonPatch with a "__proto__" key', () => {
  it('keeps it as an ordinary member (JSON.parse makes it an own property)', () => {
    const value = JSON.parse('{"__proto__": 0}') as unknown;
    const out = applyJsonPatch({}, [{ op: 'add', path: '/new', value }]) as Record<string, unknown>;
    expect(Object.keys(out['new'] as object)).toEqual(['__proto__']);
    expect(out['new']).toEqual(value);
  });

  it('passes a test for null at a missing key of an existing object, as evanphx/json-patch does', () => {
    const doc = { metadata: { name: 'a' } };
    const patch = [
      { op: 'test', path: '/metadata/finalizers', value: null },
      { op: 'add', path: '/metadata/finalizers', value: ['x'] },
    ];
    expect(applyJsonPatch(doc, patch)).toEqual({ metadata: { name: 'a', finalizers: ['x'] } });
    expect(() => applyJsonPatch({ metadata: { finalizers: [] } }, patch.slice(0, 1))).toThrow(PatchError);
    expect(() => applyJsonPatch({}, [{ op: 'test', path: '/metadata/finalizers', value: null }])).toThrow(
      PatchError,
    );
  });
});
