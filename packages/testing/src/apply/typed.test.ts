/**
 * structured-merge-diff's typed operations (`typed.ts`), with cases ported from SMD v4.2.1's own
 * tests (`typed/merge_test.go`, `typed/toset_test.go`, `typed/remove_test.go`) and the messages its
 * validation prints (`typed/validate.go`, as a real v1.24 server answers them).
 */
import { describe, expect, it } from 'vitest';

import { FieldSet } from './field-set.js';
import { kindType } from './smd-type.js';
import {
  compare,
  ensureNamedFieldsAreMembers,
  listItemElement,
  merge,
  reconcileWithSchema,
  removeItems,
  toFieldSet,
} from './typed.js';
import { validate, validationMessage } from './validate.js';

const schema = {
  type: 'object',
  properties: {
    setStr: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    setBool: { type: 'array', items: { type: 'boolean' }, 'x-kubernetes-list-type': 'set' },
    setNumeric: { type: 'array', items: { type: 'number' }, 'x-kubernetes-list-type': 'set' },
    list: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['key', 'id'],
      items: {
        type: 'object',
        properties: {
          key: { type: 'string' },
          id: { type: 'number' },
          value: { type: 'object', additionalProperties: { type: 'string' } },
          bv: { type: 'boolean' },
          nv: { type: 'number' },
        },
      },
    },
    atomicList: { type: 'array', items: { type: 'string' } },
    defaulted: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: {
        type: 'object',
        properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
      },
    },
    struct: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
    atomicStruct: {
      type: 'object',
      'x-kubernetes-map-type': 'atomic',
      properties: { a: { type: 'string' } },
    },
    map: { type: 'object', additionalProperties: { type: 'string' } },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};
const T = kindType('example.com/v1', 'Thing', schema);

describe('merge (typed/merge_test.go "set" and "associative list")', () => {
  it.each([
    [
      ['a', 'b', 'c'],
      ['a', 'b'],
      ['a', 'b', 'c'],
    ],
    [
      ['a', 'b'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ],
    [['a', 'b', 'c'], [], ['a', 'b', 'c']],
    [[], ['a', 'b', 'c'], ['a', 'b', 'c']],
    [
      ['a', 'b'],
      ['b', 'a'],
      ['b', 'a'],
    ],
    [
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
      ['a', 'b', 'c', 'd', 'e', 'f'],
    ],
    [
      ['a', 'b', 'c', 'g', 'f'],
      ['c', 'd', 'e', 'f'],
      ['a', 'b', 'c', 'g', 'd', 'e', 'f'],
    ],
    [
      ['c', 'd', 'e', 'f'],
      ['a', 'c', 'e'],
      ['a', 'c', 'd', 'e', 'f'],
    ],
    [
      ['a', 'b', 'c', 'x', 'y', 'z'],
      ['d', 'e', 'f', 'x', 'y', 'z'],
      ['a', 'b', 'c', 'd', 'e', 'f', 'x', 'y', 'z'],
    ],
    [
      ['c', 'a', 'g', 'f'],
      ['c', 'f', 'a', 'g'],
      ['c', 'f', 'a', 'g'],
    ],
    [
      ['a', 'b', 'c', 'd'],
      ['d', 'e', 'f', 'a'],
      ['b', 'c', 'd', 'e', 'f', 'a'],
    ],
    [
      ['c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'],
      ['2', 'h', '3', 'e', '4', 'k', 'l'],
      ['c', 'd', 'f', 'g', '2', 'h', 'i', 'j', '3', 'e', '4', 'k', 'l'],
    ],
    [
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'],
      ['1', 'b', '2', 'h', '3', 'e', '4', 'k', 'l'],
      ['a', '1', 'b', 'c', 'd', 'f', 'g', '2', 'h', 'i', 'j', '3', 'e', '4', 'k', 'l'],
    ],
  ])('set %j + %j = %j', (lhs, rhs, out) => {
    expect(merge({ setStr: lhs }, { setStr: rhs }, T)).toEqual({ setStr: out });
  });

  it('sets of booleans and numbers merge by value', () => {
    expect(merge({ setBool: [true] }, { setBool: [false] }, T)).toEqual({ setBool: [true, false] });
    expect(merge({ setNumeric: [1, 2, 3.14159] }, { setNumeric: [1, 2, 3] }, T)).toEqual({
      setNumeric: [1, 2, 3.14159, 3],
    });
  });

  it.each([
    [
      [{ key: 'a', id: 1, value: { a: 'a' } }],
      [{ key: 'a', id: 2, value: { a: 'a' } }],
      [
        { key: 'a', id: 1, value: { a: 'a' } },
        { key: 'a', id: 2, value: { a: 'a' } },
      ],
    ],
    [
      [
        { key: 'a', id: 1 },
        { key: 'b', id: 2 },
        { key: 'c', id: 3 },
      ],
      [
        { key: 'c', id: 3 },
        { key: 'a', id: 1 },
      ],
      [
        { key: 'b', id: 2 },
        { key: 'c', id: 3 },
        { key: 'a', id: 1 },
      ],
    ],
  ])('associative list %j + %j', (lhs, rhs, out) => {
    expect(merge({ list: lhs }, { list: rhs }, T)).toEqual({ list: out });
  });

  it('atomic lists and leaves take the right-hand value, null and [] included', () => {
    expect(merge({ atomicList: ['a', 'a', 'a'] }, { atomicList: null }, T)).toEqual({ atomicList: null });
    expect(merge({ atomicList: ['a', 'b', 'c'] }, { atomicList: [] }, T)).toEqual({ atomicList: [] });
    expect(merge({ atomicStruct: { a: '1' } }, { atomicStruct: {} }, T)).toEqual({ atomicStruct: {} });
  });
});

describe('toFieldSet (typed/tofieldset.go)', () => {
  it('struct fields are leaves only when empty or null; map keys and undeclared keys are members', () => {
    const set = toFieldSet(
      {
        struct: { a: 'x' },
        map: { k: 'v' },
        free: { x: { y: 1 } },
        atomicStruct: { a: '1' },
        atomicList: ['a'],
      },
      T,
    );
    expect(set.toFieldsV1()).toEqual({
      'f:atomicList': {},
      'f:atomicStruct': {},
      'f:free': { 'f:x': { '.': {}, 'f:y': {} } },
      'f:map': { 'f:k': {} },
      'f:struct': { 'f:a': {} },
    });
    expect(toFieldSet({ struct: {}, map: null }, T).toFieldsV1()).toEqual({ 'f:map': {}, 'f:struct': {} });
  });

  it('list items are members; an empty granular list owns nothing, an empty atomic one is a leaf', () => {
    expect(toFieldSet({ list: [{ key: 'a', id: 1, nv: 2 }], setStr: ['x'] }, T).toFieldsV1()).toEqual({
      'f:list': { 'k:{"id":1,"key":"a"}': { '.': {}, 'f:id': {}, 'f:key': {}, 'f:nv': {} } },
      'f:setStr': { 'v:"x"': {} },
    });
    expect(toFieldSet({ list: [], atomicList: [] }, T).toFieldsV1()).toEqual({ 'f:atomicList': {} });
  });

  it('a missing key field takes its schema default (keyedAssociativeListItemToPathElement)', () => {
    expect(toFieldSet({ defaulted: [{ port: 80 }] }, T).toFieldsV1()).toEqual({
      'f:defaulted': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } },
    });
  });
});

describe('compare (typed.go Compare)', () => {
  it('added, modified, removed; an absent field is not a null one', () => {
    const c = compare(
      { struct: { a: '1', b: '2' }, map: null },
      { struct: { a: '9' }, map: {}, setStr: ['x'] },
      T,
    );
    expect(c.added.toFieldsV1()).toEqual({ 'f:setStr': { '.': {}, 'v:"x"': {} } });
    expect(c.modified.toFieldsV1()).toEqual({ 'f:map': {}, 'f:struct': { 'f:a': {} } });
    expect(c.removed.toFieldsV1()).toEqual({ 'f:struct': { 'f:b': {} } });
  });

  it('reports list items it cannot key (SMD fails: duplicate entries for key)', () => {
    expect(compare({}, { setStr: ['a', 'a'] }, T).invalid).toBe(true);
    expect(compare({}, { setStr: ['a', 'b'] }, T).invalid).toBe(false);
  });
});

describe('removeItems and named fields (typed/remove.go, fieldpath/set.go)', () => {
  it('removes fields and items; a map left empty becomes null', () => {
    const v = {
      list: [
        { key: 'a', id: 1 },
        { key: 'b', id: 2 },
      ],
      map: { k: 'v' },
      struct: { a: '1' },
    };
    const out = removeItems(
      v,
      FieldSet.of(['f:list', 'k:{"id":1,"key":"a"}'], ['f:map', 'f:k'], ['f:struct']),
      T,
    );
    expect(out).toEqual({ list: [{ key: 'b', id: 2 }], map: null });
  });

  it('EnsureNamedFieldsAreMembers adds declared fields on the way, not map keys', () => {
    const set = ensureNamedFieldsAreMembers(FieldSet.of(['f:struct', 'f:a'], ['f:map', 'f:k']), T);
    expect(set.has(['f:struct'])).toBe(true);
    expect(set.has(['f:map'])).toBe(true);
    expect(set.has(['f:map', 'f:k'])).toBe(true);
  });
});

describe('validate (typed/validate.go) words errors as the real server', () => {
  it.each([
    [{ struct: { c: 'x' } }, '.struct.c: field not declared in schema'],
    [{ struct: { a: 1 } }, '.struct.a: expected string, got &value.valueUnstructured{Value:1}'],
    [
      { list: [{ key: 'a', id: 'x' }] },
      '.list[id="x",key="a"].id: expected numeric (int or float), got string',
    ],
    [{ setBool: ['x'] }, '.setBool[="x"]: expected boolean, got &{x}'],
    [{ struct: 3 }, '.struct: expected map, got &{3}'],
    [{ setStr: ['a', 'a'] }, '.setStr: duplicate entries for key [="a"]'],
    [
      { list: [{ key: 'a' }] },
      '.list: element 0: associative list with keys has an element that omits key field "id" (and doesn\'t have default value)',
    ],
  ])('%j: %s', (value, message) => {
    expect(validate(value, T)).toEqual([message]);
  });

  it('several errors: "errors:" and one indented line each', () => {
    expect(validationMessage(['a', 'b'])).toBe('errors:\n  a\n  b');
  });
});

describe('list item path elements (typed/helpers.go)', () => {
  const set = { atomic: false, keys: [], item: T } as const;
  it.each([
    [{}, "associative list without keys has an element that's a map type"],
    [[], 'not supported: associative list with lists as elements'],
    [null, "associative list without keys has an element that's an explicit null"],
  ])('set item %j: %s', (item, error) => {
    expect(listItemElement(set, 0, item)).toEqual({ error });
  });
});

describe('reconcileWithSchema (typed/reconcile_schema.go)', () => {
  it('children recorded under a field that is atomic become the field itself', () => {
    const deployment = kindType('apps/v1', 'Deployment');
    const recorded = FieldSet.of(
      ['f:spec', 'f:selector', 'f:matchLabels', 'f:app'],
      ['f:spec', 'f:replicas'],
    );
    expect(reconcileWithSchema(recorded, deployment)?.toFieldsV1()).toEqual({
      'f:spec': { 'f:replicas': {}, 'f:selector': {} },
    });
    expect(reconcileWithSchema(FieldSet.of(['f:spec', 'f:replicas']), deployment)).toBeUndefined();
  });
});
