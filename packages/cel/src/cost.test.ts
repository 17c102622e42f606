/**
 * The runtime cost of CEL rules, as kube-apiserver v1.24 counts it: the expressions, objects and
 * costs of apiextensions-apiserver's `TestCelCostStability`
 * (`pkg/apiserver/schema/cel/celcoststability_test.go`, v0.24.0; fixtures README), and the
 * budget's two limits with kube-apiserver's messages.
 */
import { describe, expect, it } from 'vitest';

import type { CostMeter } from './cost.js';
import { compileValidations } from './crd.js';
import { compileExpression } from './environment.js';
import { type CelSchema, toCel } from './schema.js';

const string: CelSchema = { type: 'string' };
const integer: CelSchema = { type: 'integer' };
const list = (items: CelSchema): CelSchema => ({ type: 'array', items });
const object = (properties: Record<string, CelSchema>): CelSchema => ({ type: 'object', properties });
const map = (v: CelSchema): CelSchema => ({ type: 'object', additionalProperties: v });
/** `objs`/`schemas` of the Go test: `val1`, `val2`, ... */
const vals = (...pairs: [unknown, CelSchema][]): { obj: unknown; schema: CelSchema } => ({
  obj: Object.fromEntries(pairs.map(([v], i) => [`val${String(i + 1)}`, v])),
  schema: object(Object.fromEntries(pairs.map(([, s], i) => [`val${String(i + 1)}`, s]))),
});

/** The cost of one evaluation of `rule` with `self` the object at a resource root. */
function costOf(rule: string, obj: unknown, schema: CelSchema): number {
  const program = compileExpression(rule);
  if (typeof program === 'string') throw new Error(program);
  const meter: CostMeter = { cost: 0, limit: Number.MAX_SAFE_INTEGER, exceeded: false };
  expect(program({ self: toCel(obj, schema, true) }, meter), rule).toBe(true);
  return meter.cost;
}

const listMap = {
  obj: {
    listMap: [
      { k: 'a1', v: 'b1' },
      { k: 'a2', v: 'b2' },
      { k: 'a3', v: 'b3', v2: 'z' },
    ],
  },
  schema: object({ listMap: list(object({ k: string, v: string, v2: string })) }),
};

const CASES: { name: string; obj: unknown; schema: CelSchema; expectCost: Record<string, number> }[] = [
  {
    name: 'integers',
    ...vals([5, integer], [5, integer]),
    expectCost: { 'self.val1 == self.val2': 5, 'type(self.val1) == int': 4, 'self.val1 + 1 == 5 + 1': 5 },
  },
  {
    name: 'unicode strings',
    ...vals(['Rook takes 👑', string], ['Rook takes 👑', string]),
    expectCost: {
      "self.val1.startsWith('Rook')": 4,
      "!self.val1.startsWith('knight')": 5,
      "self.val1.matches('^[^0-9]*$')": 8,
      "!self.val1.matches('^[0-9]*$')": 7,
      'type(self.val1) == string': 4,
      'size(self.val1) == 12': 4,
      "self.val1.charAt(3) == 'k'": 4,
      "self.val1.indexOf('o') == 1": 4,
      "self.val1.indexOf('o', 2) == 2": 4,
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'": 7,
      "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'": 7,
      "self.val1.split(' ') == ['Rook', 'takes', '👑']": 6,
      "self.val1.split(' ', 2) == ['Rook', 'takes 👑']": 6,
      "self.val1.substring(5) == 'takes 👑'": 5,
      "self.val1.substring(0, 4) == 'Rook'": 5,
      "self.val1.substring(4, 10).trim() == 'takes'": 6,
      "self.val1.upperAscii() == 'ROOK TAKES 👑'": 6,
      "self.val1.lowerAscii() == 'rook takes 👑'": 6,
    },
  },
  {
    name: 'lists',
    ...vals([[1, 2, 3], list(integer)], [[1, 2, 3], list(integer)]),
    expectCost: {
      '1 in self.val1': 5,
      'self.val2[0] in self.val1': 8,
      '!(0 in self.val1)': 6,
      'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]': 6,
      'self.val1 + [4, 5] == [1, 2, 3, 4, 5]': 4,
    },
  },
  {
    name: 'escaped strings',
    ...vals(['l1\nl2', string], ['l1\nl2', string]),
    expectCost: { "self.val1 == '''l1\nl2'''": 3 },
  },
  {
    name: 'bytes',
    ...vals(['QUI=', { type: 'string', format: 'byte' }], ['QUI=', { type: 'string', format: 'byte' }]),
    expectCost: {
      'self.val1 == self.val2': 5,
      "self.val1 == b'AB'": 3,
      'type(self.val1) == bytes': 4,
      'size(self.val1) == 2': 4,
    },
  },
  {
    name: 'booleans',
    ...vals(
      [true, { type: 'boolean' }],
      [true, { type: 'boolean' }],
      [false, { type: 'boolean' }],
      [false, { type: 'boolean' }],
    ),
    expectCost: { 'self.val1 != self.val4': 5, 'type(self.val1) == bool': 4 },
  },
  {
    name: 'enums',
    obj: { enumStr: 'Pending' },
    schema: object({ enumStr: string }),
    expectCost: { "self.enumStr == 'Pending'": 3, "self.enumStr in ['Pending', 'Available']": 2 },
  },
  {
    name: 'listSets',
    ...vals([['a', 'b', 'c'], list(string)], [['a', 'c', 'b'], list(string)]),
    expectCost: {
      "'a' in self.val1": 5,
      'self.val2[0] in self.val1': 8,
      "!('x' in self.val1)": 6,
    },
  },
  {
    name: 'objects',
    obj: {
      objs: [
        { f1: 'a', f2: 'b' },
        { f1: 'a', f2: 'b' },
      ],
    },
    schema: object({ objs: list(object({ f1: string, f2: string })) }),
    expectCost: { 'self.objs[0] == self.objs[1]': 7 },
  },
  {
    name: 'maps',
    ...vals([{ k1: 'a', k2: 'b' }, map(string)], [{ k2: 'b', k1: 'a' }, map(string)]),
    expectCost: {
      'self.val1 == self.val2': 5,
      "'k1' in self.val1": 3,
      "!('k3' in self.val1)": 4,
      "self.val1 == {'k1': 'a', 'k2': 'b'}": 3,
    },
  },
  {
    name: 'object access',
    obj: { a: { b: 1 }, a1: { b1: { c1: 4 } }, a3: {} },
    schema: object({
      a: object({ b: integer, c: integer }),
      a1: object({ b1: object({ c1: integer }), d2: object({ e2: integer }) }),
    }),
    expectCost: {
      'has(self.a.b)': 2,
      'has(self.a1.b1.c1)': 3,
      '!(has(self.a1.d2) && has(self.a1.d2.e2))': 3,
      '!has(self.a1.d2)': 3,
    },
  },
  {
    name: 'map access',
    obj: { val: { b: 1, d: 2 } },
    schema: object({ val: map(integer) }),
    expectCost: {
      "!('a' in self.val)": 4,
      "'b' in self.val": 3,
      '!has(self.val.a)': 3,
      'has(self.val.b)': 2,
      'self.val.all(k, self.val[k] > 0)': 17,
      'self.val.exists_one(k, self.val[k] == 2)': 14,
      '!self.val.exists_one(k, self.val[k] > 0)': 17,
      'size(self.val) == 2': 4,
      'size(self.val.filter(k, self.val[k] > 1)) == 1': 26,
    },
  },
  {
    name: 'listMap access',
    ...listMap,
    expectCost: {
      "self.listMap.all(m, m.k.startsWith('a'))": 21,
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')": 21,
      "self.listMap.exists(m, m.k.endsWith('1'))": 13,
      "self.listMap.exists_one(m, m.k == 'a3')": 15,
      "!self.listMap.all(m, m.k.endsWith('1'))": 18,
      "!self.listMap.exists(m, m.v == 'x')": 25,
      "!self.listMap.exists_one(m, m.k.startsWith('a'))": 20,
      "size(self.listMap.filter(m, m.k == 'a1')) == 1": 27,
      "self.listMap.exists(m, m.k == 'a1' && m.v == 'b1')": 16,
      "self.listMap.map(m, m.v).exists(v, v == 'b1')": 55,
      "self.listMap.exists(m, has(m.v2) && m.v2 == 'z')": 21,
      "!self.listMap.all(m, has(m.v2) && m.v2 != 'z')": 10,
      "self.listMap.exists_one(m, has(m.v2) && m.v2 == 'z')": 12,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').size() == 1": 24,
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1": 25,
      "self.listMap.filter(m, has(m.v2) && m.v2 == 'z').map(m, m.v2).size() == 1": 39,
      "self.listMap.exists(m, m.v2 == 'z')": 24,
      "!self.listMap.all(m, m.v2 != 'z')": 22,
    },
  },
  {
    name: 'list access',
    obj: { array: [1, 1, 2, 2, 3, 3, 4, 5] },
    schema: object({ array: list(integer) }),
    expectCost: {
      '2 in self.array': 10,
      'self.array.all(e, e > 0)': 43,
      'self.array.exists(e, e > 2)': 36,
      'self.array.exists_one(e, e > 4)': 22,
      '!self.array.all(e, e < 2)': 21,
      '!self.array.exists(e, e < 0)': 52,
      '!self.array.exists_one(e, e == 2)': 25,
      'self.array.all(e, e < 100)': 43,
      'size(self.array.filter(e, e%2 == 0)) == 3': 68,
      'self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)': 194,
      'size(self.array) == 8': 4,
    },
  },
  {
    name: 'listSet access',
    obj: { set: [1, 2, 3, 4, 5] },
    schema: object({ set: list(integer) }),
    expectCost: {
      '3 in self.set': 7,
      'self.set.all(e, e > 0)': 28,
      'self.set.exists(e, e > 3)': 30,
      'self.set.exists_one(e, e == 3)': 16,
      '!self.set.all(e, e < 3)': 21,
      '!self.set.exists(e, e < 0)': 34,
      '!self.set.exists_one(e, e > 3)': 19,
      'size(self.set.filter(e, e%2 == 0)) == 2': 46,
      'self.set.map(e, e * 20).filter(e, e > 50).exists_one(e, e == 60)': 133,
      'size(self.set) == 5': 4,
    },
  },
  {
    name: 'typemeta and objectmeta access not specified',
    obj: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'foo', generateName: 'pickItForMe' },
      spec: { field1: 'a' },
    },
    schema: object({ spec: object({ field1: string }) }),
    expectCost: {
      "self.kind == 'Pod'": 3,
      "self.apiVersion == 'v1'": 3,
      "self.metadata.name == 'foo'": 4,
      "self.metadata.generateName == 'pickItForMe'": 5,
      "self.spec.field1 == 'a'": 4,
    },
  },
];

describe("CEL runtime cost, as cel-go counts it (Kubernetes' TestCelCostStability)", () => {
  for (const c of CASES)
    it(c.name, () => {
      const got = Object.fromEntries(
        Object.keys(c.expectCost).map((rule) => [rule, costOf(rule, c.obj, c.schema)]),
      );
      expect(got).toEqual(c.expectCost);
    });
});

const crd = (schema: CelSchema) => ({
  spec: {
    group: 'g',
    names: { kind: 'T', plural: 'ts' },
    versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }],
  },
});
const ints = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
/** About 9n² for a list of n ints: the inner predicate costs 6 (3 when x == y), its loop 3. */
const NESTED = 'self.all(x, self.all(y, x == y || x != y))';

describe('the cost budget of one object (PerCallLimit, RuntimeCELCostBudget)', () => {
  const schema = object({
    spec: object({ l: { ...list(integer), 'x-kubernetes-validations': [{ rule: NESTED }] } }),
  });

  it('a rule under the per-call limit passes; kube-apiserver’s limit is 1,000,000', () => {
    // n = 300: 9·300² + … ≈ 811k (x == y || x != y: 2+2+1 per inner element, and ||: 0)
    expect(compileValidations(crd(schema)).validate({ apiVersion: 'g/v1', spec: { l: ints(300) } })).toEqual(
      [],
    );
  });

  it('a rule over the per-call limit fails with kube-apiserver’s message and stops the validation', () => {
    const s = object({
      spec: object({
        l: { ...list(integer), 'x-kubernetes-validations': [{ rule: NESTED }, { rule: 'false' }] },
        n: { ...integer, 'x-kubernetes-validations': [{ rule: 'false' }] },
      }),
    });
    // 400 elements ≈ 1.44M > 1,000,000; the next rule and the sibling field are not evaluated
    expect(compileValidations(crd(s)).validate({ apiVersion: 'g/v1', spec: { l: ints(400), n: 1 } })).toEqual(
      [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.l',
          detail: `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${NESTED}`,
          message: `Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${NESTED}`,
        },
      ],
    );
  });

  it('rules that together spend more than the object’s budget fail with “running out of cost budget”', () => {
    const s = object({
      spec: object({ l: { ...list(integer), 'x-kubernetes-validations': Array(13).fill({ rule: NESTED }) } }),
    });
    // 13 rules × ≈ 811k each > 10,000,000: the 13th is charged past the budget
    const errs = compileValidations(crd(s)).validate({ apiVersion: 'g/v1', spec: { l: ints(300) } });
    expect(errs.map((e) => [e.field, e.message])).toEqual([
      [
        'spec.l',
        'Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run',
      ],
    ]);
  });

  it('limits are options: a quantifier that errors on one element still stops at the limit, never passes', () => {
    const s = object({
      spec: object({
        l: { ...list(integer), 'x-kubernetes-validations': [{ rule: 'self.all(x, 10 / x > 0)' }] },
      }),
    });
    const v = compileValidations(crd(s), { perCallLimit: 20 });
    // 1 / 0 fails the first element; the engine keeps going, the meter stops it past 20
    expect(v.validate({ apiVersion: 'g/v1', spec: { l: [0, 1, 2, 3, 4, 5, 6] } })[0]?.detail).toMatch(
      /^'operation cancelled: actual cost limit exceeded'/,
    );
    const none = compileValidations(crd(s), { costBudget: 0 });
    expect(none.validate({ apiVersion: 'g/v1', spec: { l: [1] } }).map((e) => e.detail)).toEqual([
      'validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });
});
