/**
 * Kubernetes' own CEL validation cases, run through `@rxkube/cel`: the `valid` rules and the
 * `errors` (rule → text the error contains) of `TestValidationExpressions` in
 * apiextensions-apiserver/pkg/apiserver/schema/cel/validation_test.go (master, fetched
 * 2026-11-29; fixtures/README.md), with their objects and schemas. A rule is placed on the root
 * node (`self` is the object), as the Go test does with `withRule`.
 */
import { describe, expect, it } from 'vitest';

import { compileValidations } from './crd.js';
import { CelCompileError } from './errors.js';
import type { CelSchema } from './schema.js';

const str: CelSchema = { type: 'string' };
const int: CelSchema = { type: 'integer' };
const num: CelSchema = { type: 'number' };
const list = (items: CelSchema): CelSchema => ({ type: 'array', items });
const map = (values: CelSchema): CelSchema => ({ type: 'object', additionalProperties: values });
const obj = (properties: Record<string, CelSchema>): CelSchema => ({ type: 'object', properties });
/** The Go test's `objs(...)`/`schemas(...)`: fields val1, val2, … */
const vals = (...pairs: [unknown, CelSchema][]): { object: Record<string, unknown>; schema: CelSchema } => ({
  object: Object.fromEntries(pairs.map(([v], i) => [`val${i + 1}`, v])),
  schema: obj(Object.fromEntries(pairs.map(([, s], i) => [`val${i + 1}`, s]))),
});

interface Case {
  name: string;
  object: unknown;
  old?: unknown;
  schema: CelSchema;
  valid?: string[];
  errors?: Record<string, string>;
  /** Transition rules with no old value: skipped, so no error. */
  skipped?: boolean;
}

/** Errors of one rule placed on the root of `schema`, evaluated on `object` (`old` for an update). */
function run(schema: CelSchema, rule: string, object: unknown, old?: unknown): string[] {
  const compiled = compileValidations(
    {
      spec: {
        group: 'k8s.test',
        names: { kind: 'T', plural: 'ts' },
        versions: [
          { name: 'v1', schema: { openAPIV3Schema: { ...schema, 'x-kubernetes-validations': [{ rule }] } } },
        ],
      },
    },
    { compileErrors: 'report' },
  );
  const wrap = (o: unknown): unknown =>
    typeof o === 'object' && o !== null && !Array.isArray(o) ? { ...o, apiVersion: 'k8s.test/v1' } : o;
  return compiled
    .validate(wrap(object), old === undefined ? undefined : wrap(old))
    .map((e) => `${e.field}: ${e.message}`);
}

const MAX = 9223372036854775807n;

const cases: Case[] = [
  {
    name: 'integers',
    ...vals([Number(MAX), int], [Number(MAX), int], [2147483647, int], [2147483647, int]),
    valid: [
      'self.val3 == self.val4',
      'self.val3 == 2147483647',
      'type(self.val1) == int',
      'self.val3 + 1 == 2147483647 + 1',
      'type(self.val3) == int',
    ],
    errors: {
      'self.val3 + 9223372036854775807 == 0': 'integer overflow',
      '1 / 0 == 1 / 0': 'division by zero',
    },
  },
  {
    name: 'numbers',
    ...vals([Number.MAX_VALUE, num], [Number.MAX_VALUE, num], [1, num]),
    valid: [
      'self.val1 == self.val2',
      'type(self.val1) == double',
      'type(self.val3) == double',
      'self.val3 == 1.0',
    ],
  },
  {
    name: 'numeric comparisons',
    ...vals([5, int], [10, int], [15, int], [10.0, num], [10, num]),
    valid: [
      'double(self.val1) < self.val4',
      'double(self.val2) == self.val4',
      'double(self.val3) > self.val4',
      'self.val1 < int(self.val4)',
      'self.val2 == int(self.val4)',
      'self.val5 == self.val4',
    ],
  },
  {
    name: 'unicode strings',
    ...vals(['Rook takes 👑', str], ['Rook takes 👑', str]),
    valid: [
      'self.val1 == self.val2',
      "self.val1 == 'Rook takes 👑'",
      "self.val1.startsWith('Rook')",
      "!self.val1.startsWith('knight')",
      "self.val1.contains('takes')",
      "!self.val1.contains('gives')",
      "self.val1.endsWith('👑')",
      "!self.val1.endsWith('pawn')",
      "self.val1.matches('^[^0-9]*$')",
      "!self.val1.matches('^[0-9]*$')",
      'type(self.val1) == string',
      'size(self.val1) == 12',
      "self.val1.charAt(3) == 'k'",
      "self.val1.indexOf('o') == 1",
      "self.val1.indexOf('o', 2) == 2",
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'",
      "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'",
      "self.val1.split(' ') == ['Rook', 'takes', '👑']",
      "self.val1.split(' ', 2) == ['Rook', 'takes 👑']",
      "self.val1.substring(5) == 'takes 👑'",
      "self.val1.substring(0, 4) == 'Rook'",
      "self.val1.substring(4, 10).trim() == 'takes'",
      "self.val1.upperAscii() == 'ROOK TAKES 👑'",
      "self.val1.lowerAscii() == 'rook takes 👑'",
    ],
  },
  {
    name: 'escaped strings',
    ...vals(['l1\nl2', str], ['l1\nl2', str]),
    valid: ['self.val1 == self.val2', "self.val1 == 'l1\\nl2'", "self.val1 == '''l1\nl2'''"],
  },
  {
    name: 'lists',
    ...vals([[1, 2, 3], list(int)], [[1, 2, 3], list(int)]),
    valid: [
      'self.val1 == self.val2',
      'self.val1 == [1, 2, 3]',
      '1 in self.val1',
      'self.val2[0] in self.val1',
      '!(0 in self.val1)',
      'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]',
      'self.val1 + [4, 5] == [1, 2, 3, 4, 5]',
    ],
  },
  {
    name: 'string lists',
    ...vals([['a', 'b', 'c'], list(str)]),
    valid: [
      "self.val1.join('-') == 'a-b-c'",
      "['a', 'b', 'c'].join('-') == 'a-b-c'",
      "self.val1.join() == 'abc'",
      "['a', 'b', 'c'].join() == 'abc'",
    ],
  },
  {
    name: 'maps',
    ...vals([{ k1: 'a', k2: 'b' }, map(str)], [{ k2: 'b', k1: 'a' }, map(str)]),
    valid: [
      'self.val1 == self.val2',
      "'k1' in self.val1",
      "!('k3' in self.val1)",
      "self.val1 == {'k1': 'a', 'k2': 'b'}",
    ],
  },
  {
    name: 'escaping',
    object: {
      true: 1,
      in: 4,
      namespace: 17,
      'dot.dot': 401,
      'dash-dash': 402,
      'slash/slash': 403,
      underscore_underscore: 404,
      doubleunderscore__doubleunderscore: 405,
    },
    schema: obj({
      true: int,
      in: int,
      namespace: int,
      'dot.dot': int,
      'dash-dash': int,
      'slash/slash': int,
      underscore_underscore: int,
      doubleunderscore__doubleunderscore: int,
    }),
    valid: [
      'self.__true__ == 1',
      'self.__in__ == 4',
      'self.__namespace__ == 17',
      'self.dot__dot__dot == 401',
      'self.dash__dash__dash == 402',
      'self.slash__slash__slash == 403',
      'self.underscore_underscore == 404',
      'self.doubleunderscore__underscores__doubleunderscore == 405',
    ],
  },
  {
    name: 'map keys are not escaped',
    object: { m: { 'a.b': 1, 'c-d': 2 } },
    schema: obj({ m: map(int) }),
    valid: ["'a.b' in self.m", "self.m['c-d'] == 2"],
  },
  {
    name: 'stdlib list functions',
    object: {
      ints: [1, 2, 2, 3],
      unsortedInts: [2, 1],
      emptyInts: [],
      doubles: [1.5, 2.5, 2.5, 3.5],
      emptyDoubles: [],
      strings: ['a', 'b', 'b', 'c'],
      unsortedStrings: ['b', 'a'],
      emptyStrings: [],
      objs: [
        { f1: 'a', f2: 'a' },
        { f1: 'a', f2: 'b' },
        { f1: 'a', f2: 'b' },
        { f1: 'a', f2: 'c' },
      ],
    },
    schema: obj({
      ints: list(int),
      unsortedInts: list(int),
      emptyInts: list(int),
      doubles: list(num),
      emptyDoubles: list(num),
      strings: list(str),
      unsortedStrings: list(str),
      emptyStrings: list(str),
      objs: list(obj({ f1: str, f2: str })),
    }),
    valid: [
      'self.ints.sum() == 8',
      'self.ints.min() == 1',
      'self.ints.max() == 3',
      'self.emptyInts.sum() == 0',
      'self.ints.isSorted()',
      '!self.unsortedInts.isSorted()',
      'self.emptyInts.isSorted()',
      'self.ints.indexOf(2) == 1',
      'self.ints.lastIndexOf(2) == 2',
      'self.ints.indexOf(10) == -1',
      'self.ints.lastIndexOf(10) == -1',
      'self.doubles.sum() == 10.0',
      'self.doubles.min() == 1.5',
      'self.doubles.max() == 3.5',
      'self.doubles.isSorted()',
      "self.strings.min() == 'a'",
      "self.strings.max() == 'c'",
      'self.strings.isSorted()',
      '!self.unsortedStrings.isSorted()',
      "self.strings.indexOf('b') == 1",
      "self.strings.lastIndexOf('b') == 2",
      'self.objs.indexOf(self.objs[1]) == 1',
      'self.objs.lastIndexOf(self.objs[1]) == 2',
      '([0] + self.emptyInts).min() == 0',
      'dyn([]).sum() == 0',
      'dyn([1, 2]).sum() == 3',
      'dyn([1.0, 2.0]).sum() == 3.0',
      '[].sum() == 0',
    ],
    errors: {
      'self.emptyInts.min() == 1': 'min called on empty list',
      'self.emptyInts.max() == 3': 'max called on empty list',
      'self.emptyDoubles.min() == 1.0': 'min called on empty list',
      'self.emptyDoubles.max() == 3.0': 'max called on empty list',
      "self.emptyStrings.min() == 'a'": 'min called on empty list',
      "self.emptyStrings.max() == 'c'": 'max called on empty list',
    },
  },
  {
    name: 'stdlib regex functions',
    object: { str: 'this is a 123 string 456' },
    schema: obj({ str }),
    valid: [
      "self.str.find('[0-9]+') == '123'",
      "self.str.find('[0-9]+') != '456'",
      "self.str.find('xyz') == ''",
      "self.str.findAll('[0-9]+') == ['123', '456']",
      "self.str.findAll('[0-9]+', 0) == []",
      "self.str.findAll('[0-9]+', 1) == ['123']",
      "self.str.findAll('[0-9]+', 2) == ['123', '456']",
      "self.str.findAll('[0-9]+', 3) == ['123', '456']",
      "self.str.findAll('[0-9]+', -1) == ['123', '456']",
      "self.str.findAll('xyz') == []",
      "self.str.findAll('xyz', 1) == []",
    ],
    errors: {
      "self.str.find(')') == ''": 'rule compile error',
      "self.str.findAll(')') == []": 'rule compile error',
      "self.str.findAll(')', 1) == []": 'rule compile error',
    },
  },
  {
    name: 'URL parsing',
    object: { url: 'https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor' },
    schema: obj({ url: str }),
    valid: [
      "url('/path').getScheme() == ''",
      "url('https://example.com/').getScheme() == 'https'",
      "url('https://example.com:80/').getHost() == 'example.com:80'",
      "url('https://example.com/').getHost() == 'example.com'",
      "url('https://[::1]:80/').getHost() == '[::1]:80'",
      "url('https://[::1]/').getHost() == '[::1]'",
      "url('/path').getHost() == ''",
      "url('https://example.com:80/').getHostname() == 'example.com'",
      "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
      "url('https://[::1]/').getHostname() == '::1'",
      "url('/path').getHostname() == ''",
      "url('https://example.com:80/').getPort() == '80'",
      "url('https://example.com/').getPort() == ''",
      "url('/path').getPort() == ''",
      "url('https://example.com/path').getEscapedPath() == '/path'",
      "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
      "url('https://example.com').getEscapedPath() == ''",
      "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
      "url('https://example.com/path?key with spaces=value with spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
      "url('https://example.com/path?').getQuery() == {}",
      "url('https://example.com/path').getQuery() == {}",
      "url(self.url).getScheme() == 'https'",
      "url(self.url).getHost() == 'kubernetes.io:80'",
      "url(self.url).getHostname() == 'kubernetes.io'",
      "url(self.url).getPort() == '80'",
      "url(self.url).getEscapedPath() == '/docs/home'",
      "url(self.url).getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
      "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
      "isURL('/path') == true",
      "isURL('https://a:b:c/') == false",
      "isURL('../relative-path') == false",
    ],
  },
  {
    name: 'transition rules',
    object: { v: 'new' },
    old: { v: 'old' },
    schema: obj({ v: str }),
    valid: ['oldSelf.v != self.v', "oldSelf.v == 'old' && self.v == 'new'"],
  },
  {
    name: 'skipped transition rule for nil old object',
    skipped: true,
    object: { f: 'exists' },
    schema: obj({ f: str }),
    valid: ['oldSelf.f == self.f', 'oldSelf.f != self.f'],
  },
  {
    name: 'optionals',
    object: { presentObj: { presentStr: 'value' }, m: { k: 'v' }, l: ['a'] },
    schema: obj({
      presentObj: obj({ presentStr: str }),
      absentObj: obj({ absentStr: str }),
      m: map(str),
      l: list(str),
    }),
    valid: [
      "self.?presentObj.?presentStr == optional.of('value')",
      "self.presentObj.?presentStr == optional.of('value')",
      "self.presentObj.?presentStr.or(optional.of('nope')) == optional.of('value')",
      "self.presentObj.?presentStr.orValue('') == 'value'",
      'self.presentObj.?presentStr.hasValue() == true',
      'self.?absentObj.?absentStr == optional.none()',
      "self.?absentObj.?absentStr.or(optional.of('nope')) == optional.of('nope')",
      "self.?absentObj.?absentStr.orValue('nope') == 'nope'",
      'self.?absentObj.?absentStr.hasValue() == false',
      "self.m[?'k'] == optional.of('v')",
      "self.m[?'k'].orValue('') == 'v'",
      "self.m[?'x'] == optional.none()",
      "self.m[?'x'].orValue('nope') == 'nope'",
      "self.l[?0] == optional.of('a')",
      'self.l[?1] == optional.none()',
      "self.l[?1].orValue('nope') == 'nope'",
    ],
    errors: { 'self.absentObj.?absentStr == optional.none()': 'no such key: absentObj' },
  },
  {
    name: 'authorizer is not supported for CRD Validation Rules',
    object: {},
    old: {},
    schema: obj({}),
    errors: { "authorizer.path('/healthz').check('get').allowed()": "undeclared reference to 'authorizer'" },
  },
  {
    name: 'quantity',
    ...vals(['20', str], ['200M', str]),
    valid: [
      'isQuantity(self.val1)',
      'isQuantity(self.val2)',
      'isQuantity("20Mi")',
      'quantity(self.val2).compareTo(quantity("0.2G")) == 0',
      'quantity(self.val1).isLessThan(quantity("100M"))',
      'quantity(self.val2).isGreaterThan(quantity("50M"))',
      'quantity("50k").add(quantity(self.val1)).compareTo(quantity("50.02k")) == 0',
      'quantity("50k").sub(quantity(self.val1)).compareTo(quantity("49980")) == 0',
      'quantity(self.val1).isInteger()',
    ],
  },
  {
    name: 'IP and CIDR',
    ...vals(['20', str]),
    valid: [
      'isIP("192.168.0.1")',
      'ip("192.168.0.1").family() > 0',
      'ip("0.0.0.0").isUnspecified()',
      'ip("127.0.0.1").isLoopback()',
      'ip("224.0.0.1").isLinkLocalMulticast()',
      'ip("192.168.0.1").isGlobalUnicast()',
      'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))',
      'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")',
      'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))',
      "cidr('192.168.0.0/16').prefixLength() == 16",
      "cidr('::1/128').ip().family() == 6",
    ],
  },
  {
    name: 'format',
    ...vals(['20', str]),
    valid: [
      'format.dns1123Label().validate("my-label-name") == optional.none()',
      'format.dns1123Subdomain().validate("apiextensions.k8s.io") == optional.none()',
      'format.qualifiedName().validate("apiextensions.k8s.io/v1beta1") == optional.none()',
      'format.dns1123LabelPrefix().validate("my-label-prefix-") == optional.none()',
      'format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-") == optional.none()',
      'format.dns1035LabelPrefix().validate("my-label-prefix-") == optional.none()',
      'format.uri().validate("http://example.com") == optional.none()',
      'format.uuid().validate("123e4567-e89b-12d3-a456-426614174000") == optional.none()',
      'format.byte().validate("aGVsbG8=") == optional.none()',
      'format.date().validate("2021-01-01") == optional.none()',
      'format.datetime().validate("2021-01-01T00:00:00Z") == optional.none()',
      'format.named("dns1123Label").value().validate("my-name") == optional.none()',
      `format.dns1123Label().validate("contains a space").value()[0] == "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \\'-\\', and must start and end with an alphanumeric character (e.g. \\'my-name\\',  or \\'123-abc\\', regex used for validation is \\'[a-z0-9]([-a-z0-9]*[a-z0-9])?\\')"`,
      '!format.named("unknown").hasValue()',
    ],
  },
];

describe("Kubernetes' CEL validation cases (validation_test.go)", () => {
  for (const c of cases) {
    describe(c.name, () => {
      it.each(c.valid ?? [])('holds: %s', (rule) => {
        expect(run(c.schema, rule, c.object, c.old)).toEqual([]);
      });
      it.each(Object.entries(c.errors ?? {}))('fails: %s', (rule, text) => {
        const errs = run(c.schema, rule, c.object, c.old);
        expect(errs.length).toBeGreaterThan(0);
        for (const e of errs) expect(e).toContain(text);
      });
    });
  }

  it('skipped transition rules really do not run (a failing one is not reported without an old value)', () => {
    expect(run(obj({ f: str }), 'oldSelf.f != self.f', { f: 'x' })).toEqual([]);
    expect(run(obj({ f: str }), 'oldSelf.f != self.f', { f: 'x' }, { f: 'x' })).toHaveLength(1);
  });

  // Valid in Kubernetes' table, not parsed by the engine: refused (the object fails), never passed.
  it.each([
    "self.presentObj.?presentStr.optMap(v, v == 'value').hasValue()",
    "['a', ?optional.none(), 'c'] == ['a', 'c']",
    "['a', ?optional.of('v'), 'c'] == ['a', 'v', 'c']",
  ])('engine gap, fails closed: %s', (rule) => {
    const errs = run(obj({ presentObj: obj({ presentStr: str }) }), rule, {
      presentObj: { presentStr: 'value' },
    });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toContain('rule compile error');
    expect(() =>
      compileValidations({
        spec: {
          group: 'g',
          names: { kind: 'T', plural: 'ts' },
          versions: [
            {
              name: 'v1',
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-validations': [{ rule }] } },
            },
          ],
        },
      }),
    ).toThrow(CelCompileError);
  });

  it('a rule that does not parse throws CelCompileError unless reported', () => {
    const crd = {
      spec: {
        group: 'k8s.test',
        names: { kind: 'T', plural: 'ts' },
        versions: [
          {
            name: 'v1',
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.' }] } },
          },
        ],
      },
    };
    expect(() => compileValidations(crd)).toThrow(CelCompileError);
    expect(run({ type: 'object' }, 'self.', {})[0]).toMatch(
      /^<nil>: Invalid value: "object": rule compile error: /,
    );
  });
});
