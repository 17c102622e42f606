/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return -- schemas and response bodies are untyped JSON */
/**
 * The estimated cost of a CRD's `x-kubernetes-validations` rules, checked when the CRD is written
 * (kube-apiserver v1.24, gate CustomResourceValidationExpressions on; facts in
 * packages/cel/fixtures/README.md): each rule's cel-go estimate times its cardinality above
 * 10,000,000 is refused, and rules adding up to more than 100,000,000. Each case is written with
 * `dryRun=All`; the expected answer is `@rxkube/cel/estimate`'s, so on the real server this is a
 * differential test of the estimator, and on the embedded one of its wiring. A few answers are
 * also spelled out, as the real server gave them.
 */
import { estimatedCostCauses } from '@rxkube/cel/estimate';
import { expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import { describeEachBackend } from './vitest/describe-each-backend.js';
import { waitFor } from './wait-for.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const ROOT = 'spec.validation.openAPIV3Schema';
const ADVICE =
  '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

/** The CRD's root schema: `spec` under it, and `$root`'s rules on the root itself. */
function rootOf(c: any): any {
  const root: any = { type: 'object', properties: { spec: c.$root ? c.spec : c } };
  if (c.$root) root['x-kubernetes-validations'] = (c.$root as string[]).map((rule) => ({ rule }));
  return root;
}

function crd(plural: string, c: any): any {
  return {
    metadata: { name: `${plural}.celcost.example.com` },
    spec: {
      group: 'celcost.example.com',
      scope: 'Cluster',
      names: { plural, kind: `${plural[0]?.toUpperCase() ?? ''}${plural.slice(1, -1)}` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: rootOf(c) } }],
    },
  };
}

const rules = (...r: string[]) => ({ 'x-kubernetes-validations': r.map((rule) => ({ rule })) });
const str = (maxLength?: number) => ({ type: 'string', ...(maxLength === undefined ? {} : { maxLength }) });
const list = (items: any, maxItems?: number, ...r: string[]) => ({
  type: 'array',
  items,
  ...(maxItems === undefined ? {} : { maxItems }),
  ...(r.length ? rules(...r) : {}),
});
const map = (v: any, maxProperties?: number, ...r: string[]) => ({
  type: 'object',
  additionalProperties: v,
  ...(maxProperties === undefined ? {} : { maxProperties }),
  ...(r.length ? rules(...r) : {}),
});
const obj = (properties: any, ...r: string[]) => ({
  type: 'object',
  properties,
  ...(r.length ? rules(...r) : {}),
});
const int = { type: 'integer' };

/** name → the schema of `spec`. */
const CASES: Record<string, any> = {
  startswithunbounded: list(str(), undefined, 'self.all(x, x.startsWith("a"))'),
  nestedunbounded: list(str(), undefined, 'self.all(x, self.all(y, x == y))'),
  nestedbounded: list(str(10), 10, 'self.all(x, self.all(y, x == y))'),
  containsbounded: list(str(), 1000, 'self.all(x, x.contains("abc"))'),
  matchesbounded: obj({ s: str(100) }, "self.s.matches('^[a-z]+$')"),
  matchesunbounded: obj({ s: str() }, "self.s.matches('^[a-z]+$')"),
  matchesfewer: list(str(), 3, "self.all(x, x.matches('^[a-z]+$'))"),
  matchesmore: list(str(), 4, "self.all(x, x.matches('^[a-z]+$'))"),
  justunder: list(int, 1999999, 'self.all(x, x > 0)'),
  justover: list(int, 2000000, 'self.all(x, x > 0)'),
  overbyhalf: list(int, 3000000, 'self.all(x, x > 0)'),
  mapbounded: map(int, 1999999, 'self.all(k, self[k] > 0)'),
  mapunbounded: map(str(), undefined, 'self.all(k, self[k].size() < 10)'),
  mapkeys: map(str(), undefined, 'self.exists(k, k.startsWith("x") && k == "y")'),
  itemsunbounded: list({ ...str(100), ...rules('self.contains("ab")') }),
  itemsbounded: list({ ...str(100), ...rules('self.contains("ab")') }, 100),
  itemsobjects: list(obj({ s: str(), n: int }, 'self.s.size() > self.n && self.s != "x"')),
  nestedlists: list(list(int, undefined, 'self.all(x, x > 0)'), 10),
  nestedlistsouter: list(list(int), 10, 'self.all(l, l.all(x, x > 0))'),
  nestedlistsbounded: list(list(int, 100), 10, 'self.all(l, l.all(x, x > 0))'),
  mapthenexists: list(int, undefined, 'self.map(x, x * 2).exists(y, y > 5)'),
  filtersize: list(int, 100000, 'self.filter(x, x > 0).size() > 0'),
  mapsize: list(int, 100000, 'self.map(x, x + 1).size() > 0'),
  mapfilter: list(int, 100000, 'self.map(x, x > 0, x + 1).size() > 0'),
  existsone: list(int, 100000, 'self.exists_one(x, x == 1)'),
  existsquadratic: list(int, 3000, 'self.exists(x, x in self)'),
  existsquadraticover: list(int, 5000, 'self.exists(x, x in self)'),
  stringsequal: obj({ s: str(1000), t: str(2000) }, 'self.s == self.t', 'self.s != self.t + "x"'),
  stringconcat: obj({ s: str(), t: str() }, 'self.s + self.t == "x"'),
  stringorder: list(str(1000), 1000, 'self.all(x, x < "m")'),
  stringorderlonger: list(str(10000), 1000, 'self.all(x, x >= "m")'),
  lowerascii: list(str(), 100, 'self.all(x, x.lowerAscii() == "a")'),
  split: obj({ s: str(10) }, 'self.s.split(",").all(x, x != "")'),
  hasselect: obj({ a: str() }, 'has(self.a) && self.a.startsWith("x")'),
  ternary: obj({ a: str(10), b: str() }, '(self.a == "x" ? self.a : self.b).size() > 1'),
  inlist: list(str(), 100, 'self.all(x, x in ["a", "b", "c"])'),
  sizes: obj({ l: list(int), m: map(int) }, 'size(self.l) + size(self.m) < 100'),
  sortedsum: list(int, 1000, 'self.isSorted() && self.sum() > 0'),
  indexofstrings: list(str(100), 1000, 'self.indexOf("a") > 0'),
  joined: list(str(10), 1000, 'self.join(",").size() > 0'),
  replaced: obj({ s: str(1000) }, 'self.s.replace("a", "bb").size() > 0'),
  timestamps: obj(
    { t: { type: 'string', format: 'date-time' }, d: { type: 'string', format: 'duration' } },
    "self.t < timestamp('2020-01-01T00:00:00Z') && self.d > duration('1s')",
  ),
  bytesrule: obj({ b: { type: 'string', format: 'byte', maxLength: 100 } }, 'string(self.b).startsWith("a")'),
  intorstring: obj(
    { x: { 'x-kubernetes-int-or-string': true } },
    "type(self.x) == int || self.x.matches('^[0-9]+%$')",
  ),
  required: list(obj({ name: str() }, 'self.name.contains("a")'), undefined),
  requiredfields: list({
    ...obj({ name: str(), n: int }, 'self.name.contains("a")'),
    required: ['name', 'n'],
  }),
  // the CRD's total: distinct costs, so the 4 dearest do not depend on Go's map order
  // where the type is dyn, cel-go prices every overload that fits
  intorstringops: obj(
    { x: { 'x-kubernetes-int-or-string': true }, y: { 'x-kubernetes-int-or-string': true } },
    'self.x < self.y || self.x + self.y == self.x || self.x.contains("a")',
  ),
  rootmetadata: list(str(), undefined, 'self.all(x, x.startsWith("a"))'),
  existsonelist: list(list(int, 10), 10, 'self.exists_one(l, l.exists_one(x, x == 1))'),
  mapthenfilter: list(int, 1000, 'self.map(x, x * 2).filter(y, y > 5).size() > 0'),
  preserve: obj({ p: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, 'has(self.p)'),
  nestedmaps: map(map(int, undefined, 'self.all(k, self[k] > 0)'), 4),
  defaults: list({
    ...obj({ a: { type: 'string', default: 'x' }, b: str(3) }, 'self.b != self.a'),
    required: ['a', 'b'],
  }),
  total: obj(
    Object.fromEntries(
      Array.from({ length: 11 }, (_, i) => [
        `l${String(i)}`,
        list(int, 1900000 + i * 1000, 'self.all(x, x > 0)'),
      ]),
    ),
  ),
  totalsmall: obj(
    Object.fromEntries(
      Array.from({ length: 9 }, (_, i) => [
        `l${String(i)}`,
        list(int, 1900000 + i * 1000, 'self.all(x, x > 0)'),
      ]),
    ),
  ),
};

/** What the estimator expects: 201, or 422 with these causes. */
function expected(c: any): any[] {
  return estimatedCostCauses(rootOf(c), ROOT).map((c) => ({
    reason: 'FieldValueForbidden',
    field: c.field,
    message: `Forbidden: ${c.message}`,
  }));
}

/**
 * Rules whose cost grows with one bound: each is written with the largest bound the estimate
 * accepts and with one more, so a cost per element off by one unit on either side fails one of
 * the two.
 */
const BOUNDED: Record<string, (n: number) => any> = {
  startswith: (n) => list(str(), n, 'self.all(x, x.startsWith("abc"))'),
  matches: (n) => list(str(50), n, 'self.all(x, x.matches("^[a-z]+$"))'),
  contains: (n) => list(str(40), n, 'self.all(x, x.contains("abcdefghijkl"))'),
  order: (n) => list(str(100), n, 'self.all(x, x < "m")'),
  equalsorendswith: (n) => list(str(100), n, 'self.all(x, x == "m" || x.endsWith("z"))'),
  exists: (n) => list(int, n, 'self.exists(x, x == 1)'),
  existsone: (n) => list(int, n, 'self.exists_one(x, x == 1)'),
  map: (n) => list(int, n, 'self.map(x, x * 2).size() > 0'),
  filter: (n) => list(int, n, 'self.filter(x, x > 0).size() > 0'),
  mapfilter: (n) => list(int, n, 'self.map(x, x > 0, x * 2).size() > 0'),
  lowerascii: (n) => list(str(20), n, 'self.all(x, x.lowerAscii() == "a")'),
  concat: (n) => list(str(20), n, 'self.all(x, x + "a" != "b")'),
  nested: (n) => list(list(int, 5), n, 'self.all(l, l.all(x, x > 0))'),
  mapvalues: (n) => map(str(10), n, 'self.all(k, self[k].startsWith(k))'),
  objects: (n) =>
    list({ ...obj({ a: str(10) }), required: ['a'] }, n, 'self.all(o, has(o.a) && o.a.size() > 1)'),
  inlist: (n) => list(str(10), n, 'self.all(x, x in ["a", "b"])'),
  issorted: (n) => list(int, n, 'self.isSorted()'),
  indexof: (n) => list(str(10), n, 'self.indexOf("a") >= 0'),
  cardinality: (n) => list({ ...str(100), ...rules('self.contains("ab")') }, n),
  cardinalitymap: (n) => map(obj({ s: str(30) }, 'self.s.matches("[0-9]+")'), n),
  // strings bounded by maxLength (×4: runes may take 4 bytes)
  stringmatches: (n) => obj({ s: str(n) }, 'self.s.matches("^[a-z]+[0-9]*$")'),
  stringcontains: (n) => obj({ s: str(n), t: str(n) }, 'self.s.contains(self.t)'),
  stringfind: (n) => obj({ s: str(n) }, 'self.s.findAll("[0-9]+").size() > 0 && self.s.find("a") != ""'),
  stringfunctions: (n) =>
    obj(
      { s: str(n) },
      'self.s.upperAscii().size() + self.s.trim().size() + self.s.substring(1).size() > 0 && self.s.lastIndexOf("a") >= 0',
    ),
  stringsplit: (n) =>
    obj({ s: str(n) }, 'self.s.split(",", 3).size() > 0 && self.s.replace("a", "b", 2) != ""'),
  url: (n) => obj({ u: str(n) }, 'isURL(self.u) && url(self.u).getHost() != ""'),
  bytes: (n) =>
    obj({ b: { type: 'string', format: 'byte', maxLength: n } }, 'string(self.b) != "a" && size(self.b) > 0'),
  // lists of other element types
  listsum: (n) => list({ type: 'number' }, n, 'self.sum() > 0.0 && self.min() < self.max()'),
  liststrings: (n) => list(str(10), n, 'self.isSorted() && self.max() != "z" && self.join() != ""'),
  dates: (n) =>
    list({ type: 'string', format: 'date-time' }, n, "self.all(t, t > timestamp('2020-01-01T00:00:00Z'))"),
  durations: (n) => list({ type: 'string', format: 'duration' }, n, "self.exists(d, d < duration('1h'))"),
  datesunbounded: (n) =>
    list(obj({ t: { type: 'string', format: 'date' } }, 'self.t.getFullYear() > 2000'), n),
  // maps and their keys
  mapin: (n) => map(int, n, 'self.all(k, k in self && self[k] > 0)'),
  mapofobjects: (n) =>
    map({ ...obj({ a: str(5), b: int }), required: ['a', 'b'] }, n, 'self.all(k, self[k].a == k)'),
  mapkeysize: (n) => map(str(5), n, 'self.exists(k, k.size() > 2 || self[k] == k)'),
  // literals, ternaries, concatenation
  listliteral: (n) =>
    list(str(n), 10, 'self.all(x, ["abc", "def"].exists(y, x.startsWith(y) || y.contains(x)))'),
  ternaryrange: (n) =>
    obj(
      { a: list(int, n), b: list(int, 10), c: { type: 'boolean' } },
      '(self.c ? self.a : self.b).all(x, x > 0)',
    ),
  listconcat: (n) => obj({ a: list(int, n), b: list(int, 10) }, '(self.a + self.b).exists(x, x == 0)'),
  stringconcatcompare: (n) => list(str(n), 10, 'self.all(x, x + x < "zzz")'),
  inlistliteral: (n) => list(int, n, 'self.all(x, x in [1, 2, 3, 4])'),
  // a transition rule, and the root of the resource
  transition: (n) => list(str(20), n, 'self.all(x, x in oldSelf)'),
  intorstringops: (n) =>
    list({ 'x-kubernetes-int-or-string': true }, n, 'self.all(x, x < x || x + x == x || x.contains("a"))'),
  index: (n) =>
    list(list(str(n), 3), 3, 'self[0][1].contains(self[1][0]) && self[2].exists(x, x == self[0][0])'),
  mapindex: (n) => map(str(n), 5, 'self["a"].matches(self["b"]) || self["c"] + self["d"] == self["e"]'),
  // an index of dyn has no size: comparing two of them costs more than any limit
  dynindex: (n) => list({ 'x-kubernetes-int-or-string': true }, n, 'self.all(x, x["a"] == x[0])'),
  dynindexint: (n) => list({ 'x-kubernetes-int-or-string': true }, n, 'self.all(x, x[0] > 1)'),
  // a rule on the resource's root: metadata.name is a string of unknown length
  root: (n) => ({
    $root: ['self.metadata.name.startsWith("a") && self.spec.l.all(x, x.startsWith(self.metadata.name))'],
    spec: obj({ l: list(str(), n) }),
  }),
  intorstring: (n) =>
    list({ 'x-kubernetes-int-or-string': true }, n, 'self.all(x, type(x) == string && x.startsWith("a"))'),
};

/** A small deterministic generator (mulberry32), so the random rules are the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Well-typed random rules over one schema (strings, lists, maps, objects, bytes, dates,
 * int-or-string), each then written at its bound and one above: what the hand-written cases do
 * not combine.
 */
function randomRule(next: () => number, depth = 0, scope: string[] = []): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const str = (): string =>
    pick([
      'self.s',
      'self.t',
      '"abc"',
      'self.s.lowerAscii()',
      'self.t + "x"',
      'self.o[0].a',
      '(self.b ? self.s : self.t)',
      'self.s.substring(1)',
      'string(self.by)',
      'self.t.trim()',
      'self.l[0]',
      ...scope.filter((v) => v.startsWith('x')),
    ]);
  const int = (): string =>
    pick([
      'self.i',
      'size(self.s)',
      'self.t.size()',
      'self.l.size()',
      'self.o[0].b',
      '1',
      'self.m["k"]',
      'self.s.indexOf("a")',
      'self.l.indexOf("a")',
    ]);
  const leaf = (): string =>
    pick([
      `${str()} == ${str()}`,
      `${str()} != ${str()}`,
      `${str()} < ${str()}`,
      `${str()}.startsWith(${str()})`,
      `${str()}.endsWith(${str()})`,
      `${str()}.contains(${str()})`,
      `${str()}.matches("^[a-z]+[0-9]?$")`,
      `${int()} < ${int()}`,
      `${int()} == ${int()}`,
      `${str()} in self.l`,
      '"k" in self.m',
      'has(self.s)',
      'self.b',
      'self.l.isSorted()',
      "self.d < timestamp('2020-01-01T00:00:00Z')",
      'type(self.ios) == int',
      'self.l.map(y, y + "a").size() > 0',
    ]);
  if (depth >= 2 || next() < 0.3) return leaf();
  const v = `x${String(depth)}`;
  const inner = (): string => randomRule(next, depth + 1, [...scope, v]);
  return pick([
    () => `self.l.all(${v}, ${inner()})`,
    () => `self.l.exists(${v}, ${inner()})`,
    () => `self.l.filter(${v}, ${inner()}).size() == 0`,
    () =>
      `self.m.all(k${String(depth)}, self.m[k${String(depth)}] > 0 && ${randomRule(next, depth + 1, scope)})`,
    () => `self.o.exists_one(e${String(depth)}, e${String(depth)}.a == ${str()})`,
    () => `${randomRule(next, depth + 1, scope)} && ${randomRule(next, depth + 1, scope)}`,
    () => `${randomRule(next, depth + 1, scope)} || !(${randomRule(next, depth + 1, scope)})`,
    () => `self.b ? ${randomRule(next, depth + 1, scope)} : ${randomRule(next, depth + 1, scope)}`,
  ])();
}

const randomSchema = (n: number, rule: string): any =>
  obj(
    {
      s: str(n),
      t: str(),
      l: list(str(20), n),
      m: map(int, n),
      o: list(obj({ a: str(10), b: int }), 5),
      i: int,
      b: { type: 'boolean' },
      ios: { 'x-kubernetes-int-or-string': true },
      by: { type: 'string', format: 'byte', maxLength: n },
      d: { type: 'string', format: 'date-time' },
    },
    rule,
  );

const next = random(23);
for (let i = 0; i < 80; i++) {
  const rule = randomRule(next);
  BOUNDED[`random${String(i)}`] = (n) => randomSchema(n, rule);
}

/** The largest bound whose rules the estimate accepts. */
function largestAccepted(build: (n: number) => any): number {
  let lo = 1;
  let hi = 2 ** 31;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (expected(build(mid)).length === 0) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

for (const [name, build] of Object.entries(BOUNDED)) {
  const n = largestAccepted(build);
  CASES[`${name}under`] = build(n);
  CASES[`${name}over`] = build(n + 1);
}

const sorted = (causes: any[]): any[] =>
  [...causes].sort((a, b) => `${a.field} ${a.message}`.localeCompare(`${b.field} ${b.message}`));

describeEachBackend('the estimated cost of CRD rules is checked when the CRD is written', (b) => {
  const opts = (body?: unknown) => ({
    headers: { Authorization: `Bearer ${b.cluster.token}` },
    ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
    ...(body === undefined ? {} : { body }),
  });
  const post = (body: unknown) => call(b.cluster.url, 'POST', `${CRDS}?dryRun=All`, opts(body));

  it.each(Object.keys(CASES))('%s: refused or accepted as the estimate says', async (name) => {
    const spec = CASES[name];
    const r = await post(crd(name, spec));
    const want = expected(spec);
    if (process.env['RXKUBE_COST_RECORD'])
      console.log(
        'RECORD',
        name,
        r.status,
        JSON.stringify(r.body?.details?.causes ?? []),
        '| want',
        JSON.stringify(want),
      );
    if (want.length === 0) expect(r.status, r.text).toBe(201);
    else {
      expect(r.status, r.text).toBe(422);
      expect(sorted(r.body.details.causes)).toEqual(sorted(want));
    }
  });

  it("accepts self.all(x, x.startsWith('a')) on an unbounded list of strings", async () => {
    const r = await post(crd('literalstarts', list(str(), undefined, 'self.all(x, x.startsWith("a"))')));
    expect(r.status, r.text).toBe(201);
  });

  it('refuses an unbounded nested rule with the rule and the schema total', async () => {
    const r = await post(crd('literalnesteds', list(str(), undefined, 'self.all(x, self.all(y, x == y))')));
    expect(r.status, r.text).toBe(422);
    const field = `${ROOT}.properties[spec].x-kubernetes-validations[0].rule`;
    expect(sorted(r.body.details.causes)).toEqual(
      sorted([
        {
          reason: 'FieldValueForbidden',
          field,
          message: `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${ADVICE}`,
        },
        {
          reason: 'FieldValueForbidden',
          field,
          message:
            'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
        },
        {
          reason: 'FieldValueForbidden',
          field: ROOT,
          message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${ADVICE}`,
        },
      ]),
    );
  });

  it('refuses an update that makes a rule too dear, and keeps the CRD as it was', async () => {
    const made = await call(
      b.cluster.url,
      'POST',
      CRDS,
      opts(crd('updates', list(int, 1999999, 'self.all(x, x > 0)'))),
    );
    expect(made.status, made.text).toBe(201);
    const name = String(made.body.metadata.name);
    // the CRD controller writes status until Established: update the established one
    const established = await waitFor(`${name} Established`, async () => {
      const g = await call(b.cluster.url, 'GET', `${CRDS}/${name}`, opts());
      const conditions: any[] = g.body.status?.conditions ?? [];
      return conditions.some((c) => c.type === 'Established' && c.status === 'True') ? g.body : undefined;
    });
    const dear = structuredClone(established);
    dear.spec.versions[0].schema.openAPIV3Schema.properties.spec.maxItems = 2000000;
    const r = await call(b.cluster.url, 'PUT', `${CRDS}/${name}`, opts(dear));
    expect(r.status, r.text).toBe(422);
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: `${ROOT}.properties[spec].x-kubernetes-validations[0].rule`,
        message: `Forbidden: estimated rule cost exceeds budget by factor of 1.000000x ${ADVICE}`,
      },
    ]);
    const now = await call(b.cluster.url, 'GET', `${CRDS}/${name}`, opts());
    expect(now.body.spec.versions[0].schema.openAPIV3Schema.properties.spec.maxItems).toBe(1999999);
  });

  it('checks each version with a schema of its own, under spec.versions[i]', async () => {
    const body = crd('versioneds', list(int, 2000000, 'self.all(x, x > 0)'));
    const v1 = body.spec.versions[0];
    const v2 = structuredClone(v1);
    v2.name = 'v2';
    v2.storage = false;
    v2.schema.openAPIV3Schema.properties.spec.maxItems = 1999999;
    const v3 = structuredClone(v1);
    v3.name = 'v3';
    v3.storage = false;
    v3.schema.openAPIV3Schema.properties.spec.maxItems = 3000000;
    body.spec.versions = [v1, v2, v3];
    const r = await post(body);
    expect(r.status, r.text).toBe(422);
    const at = (i: number) =>
      `spec.versions[${String(i)}].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule`;
    expect(sorted(r.body.details.causes)).toEqual(
      sorted([
        {
          reason: 'FieldValueForbidden',
          field: at(0),
          message: `Forbidden: estimated rule cost exceeds budget by factor of 1.000000x ${ADVICE}`,
        },
        {
          reason: 'FieldValueForbidden',
          field: at(2),
          message: `Forbidden: estimated rule cost exceeds budget by factor of 1.5x ${ADVICE}`,
        },
      ]),
    );
  });

  it('refuses a rule just over the limit with the factor to six places', async () => {
    const r = await post(crd('literalovers', list(int, 2000000, 'self.all(x, x > 0)')));
    expect(r.status, r.text).toBe(422);
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: `${ROOT}.properties[spec].x-kubernetes-validations[0].rule`,
        message: `Forbidden: estimated rule cost exceeds budget by factor of 1.000000x ${ADVICE}`,
      },
    ]);
  });
});
