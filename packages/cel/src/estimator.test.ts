/**
 * The estimator against cel-go v0.10.1's own table (`checker/cost_test.go` `TestCost`): the same
 * expressions, variables and size hints (a path joined with `.` → its maximum size), the same
 * cost ranges. Left out: the two cases of a protobuf message type (`TestAllTypes{…}` creation,
 * and a test-only estimator charging `getFullYear` 7); a message's fields are an object's here.
 */
import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';

import { estimateRuleCost } from './estimate.js';
import { Coster, type Decl, simple } from './estimator.js';

const list = (elem: Decl): Decl => ({ kind: 'list', max: 0n, elem });
const map = (elem: Decl): Decl => ({ kind: 'map', max: 0n, key: simple('string'), elem });
const allTypes: Decl = { kind: 'object', max: 0n, fields: new Map([['single_int32', simple('int')]]) };
const allList = list(allTypes);
const intList = list(simple('int'));
const nestedList = list(allList);
const allMap = map(allTypes);
const nestedMap = map(allMap);

interface Case {
  expr: string;
  vars?: Record<string, Decl>;
  hints?: Record<string, number>;
  wanted: [number, number];
}

const CASES: Record<string, Case> = {
  const: { expr: `"Hello World!"`, wanted: [0, 0] },
  identity: { expr: 'input', vars: { input: intList }, wanted: [1, 1] },
  'select: map': { expr: `input['key']`, vars: { input: map(simple('string')) }, wanted: [2, 2] },
  'select: field': { expr: 'input.single_int32', vars: { input: allTypes }, wanted: [2, 2] },
  'select: field test only': { expr: 'has(input.single_int32)', vars: { input: allTypes }, wanted: [0, 0] },
  'create list': { expr: '[1, 2, 3]', wanted: [10, 10] },
  'create map': { expr: '{"a": 1, "b": 2, "c": 3}', wanted: [30, 30] },
  'all comprehension': {
    expr: 'input.all(x, true)',
    vars: { input: allList },
    hints: { input: 100 },
    wanted: [2, 302],
  },
  'nested all comprehension': {
    expr: 'input.all(x, x.all(y, true))',
    vars: { input: nestedList },
    hints: { input: 50, 'input.@items': 10 },
    wanted: [2, 1752],
  },
  'all comprehension on literal': { expr: '[1, 2, 3].all(x, true)', wanted: [20, 20] },
  'variable cost function': {
    expr: `input.matches('[0-9]')`,
    vars: { input: simple('string') },
    hints: { input: 500 },
    wanted: [3, 103],
  },
  'variable cost function with constant': { expr: `'123'.matches('[0-9]')`, wanted: [2, 2] },
  or: { expr: 'true || false', wanted: [0, 0] },
  and: { expr: 'true && false', wanted: [0, 0] },
  lt: { expr: '1 < 2', wanted: [1, 1] },
  lte: { expr: '1 <= 2', wanted: [1, 1] },
  eq: { expr: '1 == 2', wanted: [1, 1] },
  gt: { expr: '2 > 1', wanted: [1, 1] },
  gte: { expr: '2 >= 1', wanted: [1, 1] },
  in: { expr: '2 in [1, 2, 3]', wanted: [13, 13] },
  plus: { expr: '1 + 1', wanted: [1, 1] },
  minus: { expr: '1 - 1', wanted: [1, 1] },
  divide: { expr: '1 / 1', wanted: [1, 1] },
  times: { expr: '1 * 1', wanted: [1, 1] },
  modulo: { expr: '1 % 1', wanted: [1, 1] },
  ternary: { expr: 'true ? 1 : 2', wanted: [0, 0] },
  'string size': { expr: 'size("123")', wanted: [1, 1] },
  'bytes to string conversion': {
    expr: 'string(input)',
    vars: { input: simple('bytes') },
    hints: { input: 500 },
    wanted: [1, 51],
  },
  'string to bytes conversion': {
    expr: 'bytes(input)',
    vars: { input: simple('string') },
    hints: { input: 500 },
    wanted: [1, 51],
  },
  'int to string conversion': { expr: 'string(1)', wanted: [1, 1] },
  contains: {
    expr: 'input.contains(arg1)',
    vars: { input: simple('string'), arg1: simple('string') },
    hints: { input: 500, arg1: 500 },
    wanted: [2, 2502],
  },
  matches: {
    expr: `input.matches('\\\\d+a\\\\d+b')`,
    vars: { input: simple('string') },
    hints: { input: 500 },
    wanted: [3, 103],
  },
  startsWith: {
    expr: 'input.startsWith(arg1)',
    vars: { input: simple('string'), arg1: simple('string') },
    hints: { arg1: 500 },
    wanted: [2, 52],
  },
  endsWith: {
    expr: 'input.endsWith(arg1)',
    vars: { input: simple('string'), arg1: simple('string') },
    hints: { arg1: 500 },
    wanted: [2, 52],
  },
  'size receiver': { expr: 'input.size()', vars: { input: simple('string') }, wanted: [2, 2] },
  size: { expr: 'size(input)', vars: { input: simple('string') }, wanted: [2, 2] },
  'ternary eval': {
    expr: '(x > 2 ? input1 : input2).all(y, true)',
    vars: { x: simple('int'), input1: allList, input2: allList },
    hints: { input1: 1, input2: 1 },
    wanted: [4, 7],
  },
  'comprehension over map': {
    expr: 'input.all(k, input[k].single_int32 > 3)',
    vars: { input: allMap },
    hints: { input: 10 },
    wanted: [2, 82],
  },
  'comprehension over nested map of maps': {
    expr: 'input.all(k, input[k].all(x, true))',
    vars: { input: nestedMap },
    hints: { input: 5, 'input.@values': 10 },
    wanted: [2, 187],
  },
  'string size of map keys': {
    expr: 'input.all(k, k.contains(k))',
    vars: { input: nestedMap },
    hints: { input: 5, 'input.@keys': 10 },
    wanted: [2, 32],
  },
  'comprehension variable shadowing': {
    expr: 'input.all(k, input[k].all(k, true) && k.contains(k))',
    vars: { input: nestedMap },
    hints: { input: 2, 'input.@values': 2, 'input.@keys': 5 },
    wanted: [2, 34],
  },
  'list concat': {
    expr: '(list1 + list2).all(x, true)',
    vars: { list1: intList, list2: intList },
    hints: { list1: 10, list2: 10 },
    wanted: [4, 64],
  },
  'str concat': {
    expr: '"abcdefg".contains(str1 + str2)',
    vars: { str1: simple('string'), str2: simple('string') },
    hints: { str1: 10, str2: 10 },
    wanted: [2, 6],
  },
};

describe("cel-go v0.10.1's cost estimate (checker/cost_test.go TestCost)", () => {
  it.each(Object.entries(CASES))('%s', (_, c) => {
    let env = new Environment({ enableOptionalTypes: true });
    for (const name of Object.keys(c.vars ?? {})) env = env.registerVariable(name, 'dyn');
    const ast = (env.parse(c.expr) as unknown as { ast: unknown }).ast;
    const hints = c.hints ?? {};
    const coster = new Coster(new Map(Object.entries(c.vars ?? {})), (path) => {
      const h = hints[path.join('.')];
      return h === undefined ? undefined : { min: 0n, max: BigInt(h) };
    });
    const { cost } = coster.cost(ast);
    expect([Number(cost.min), Number(cost.max)]).toEqual(c.wanted);
  });
});

describe('estimateRuleCost on a schema node, as kube-apiserver v1.24 sizes it', () => {
  it('prices startsWith by its argument: 1,048,575 strings fit in 3 MiB, each costs 5', () => {
    expect(
      estimateRuleCost('self.all(x, x.startsWith("a"))', { type: 'array', items: { type: 'string' } }, false),
    ).toBe(5242877n);
  });

  it('sizes a string by maxLength × 4, a list by maxItems', () => {
    // per item: @not_strictly_false 2, && 1, x 1, contains ⌈400·0.1⌉·⌈3·0.1⌉ = 40
    const schema = { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 100 } };
    expect(estimateRuleCost('self.all(x, x.contains("abc"))', schema, false)).toBe(2n + 10n * 44n);
  });

  it('gives no estimate for a rule that does not parse', () => {
    expect(estimateRuleCost('self.', { type: 'string' }, false)).toBeUndefined();
  });
});
