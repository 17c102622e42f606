import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { exchange, loadTranscript } from './replay/transcripts.js';
import { parseFieldSelector, parseLabelSelector, SelectorError } from './selectors.js';

const t04 = loadTranscript('04');
const META = ['metadata.name', 'metadata.namespace'] as const;

/** The ConfigMaps of the 04 setup: s04-p1..p5 with set=s04 and tier=odd|even, plus kube-root-ca.crt. */
const objects = [
  { name: 'kube-root-ca.crt', labels: undefined },
  ...[1, 2, 3, 4, 5].map((i) => ({
    name: `s04-p${i}`,
    labels: { set: 's04', tier: i % 2 ? 'odd' : 'even' },
  })),
];

function queryParam(path: string, name: string): string {
  return new URL(path, 'http://x').searchParams.get(name) ?? '';
}

function namesOf(body: unknown): string[] {
  return (body as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
}

function messageOf(body: unknown): string {
  return (body as { message: string }).message;
}

describe('parseLabelSelector against the 04 transcript', () => {
  for (const label of [
    'list with labelSelector set=s04, no limit',
    'labelSelector with set-based and inequality',
  ]) {
    it(`selects what the real server returned: ${label}`, () => {
      const ex = exchange(t04, label);
      const selector = parseLabelSelector(queryParam(ex.request.path, 'labelSelector'));
      expect(objects.filter((o) => selector.matches(o.labels)).map((o) => o.name)).toEqual(
        namesOf(ex.response?.body),
      );
    });
  }

  it('rejects the malformed selector with the real message', () => {
    const ex = exchange(t04, 'malformed labelSelector');
    const text = queryParam(ex.request.path, 'labelSelector');
    expect(() => parseLabelSelector(text)).toThrow(SelectorError);
    expect(() => parseLabelSelector(text)).toThrow(messageOf(ex.response?.body));
  });
});

describe('parseLabelSelector', () => {
  const labels = { app: 'web', tier: 'gold', n: '5' };
  it.each([
    ['', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,api)', true],
    ['app notin (web)', false],
    ['missing notin (web)', true],
    ['app in (api)', false],
    ['  app = web , tier in ( gold ) ', true],
    ['n>4', true],
    ['n<5', false],
    ['app=', false],
    ['missing=', false],
    ['in in (in)', false],
    ['example.com/app=x', false],
  ])('%j matches %s', (text, expected) => {
    expect(parseLabelSelector(text).matches(labels)).toBe(expected);
  });

  it('reports empty only for a selector without requirements', () => {
    expect(parseLabelSelector('').empty).toBe(true);
    expect(parseLabelSelector('  ').empty).toBe(true);
    expect(parseLabelSelector('a').empty).toBe(false);
  });

  it('treats `in` and `notin` as identifiers in value position', () => {
    expect(parseLabelSelector('x in (in,notin)').matches({ x: 'notin' })).toBe(true);
  });

  it('accepts empty values in sets: (,) and ()', () => {
    expect(parseLabelSelector('x in (,a)').matches({ x: '' })).toBe(true);
    expect(parseLabelSelector('x in ()').matches({ x: '' })).toBe(true);
  });

  it.each([
    ['set==(', "unable to parse requirement: found '(', expected: identifier"],
    ['a,', "found '', expected: identifier after ','"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a foo', "unable to parse requirement: found 'foo', expected: in, notin, =, ==, !=, gt, lt"],
    ['a=b=c', "found '=', expected: ',' or 'end of string'"],
    [
      'a>x',
      "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
    ],
    ['bad key!=x', "unable to parse requirement: found 'key', expected: in, notin, =, ==, !=, gt, lt"],
    [
      'a_=x',
      "unable to parse requirement: <nil>: Invalid value: \"a_\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
    [
      'a=b_',
      "unable to parse requirement: values[0][a]: Invalid value: \"b_\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ],
  ])('rejects %j: %s', (text, message) => {
    expect(() => parseLabelSelector(text)).toThrow(new SelectorError(message));
  });

  it('equality selectors built from any valid label set select exactly that set (property)', () => {
    const key = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
    const value = fc.stringMatching(/^([a-z0-9][a-z0-9._-]{0,6}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.dictionary(key, value, { minKeys: 1 }), fc.dictionary(key, value), (wanted, other) => {
        const text = Object.entries(wanted)
          .map(([k, v]) => `${k}=${v}`)
          .join(',');
        const selector = parseLabelSelector(text);
        expect(selector.matches(wanted)).toBe(true);
        const expected = Object.entries(wanted).every(([k, v]) => other[k] === v);
        expect(selector.matches(other)).toBe(expected);
      }),
    );
  });
});

describe('parseFieldSelector', () => {
  it('selects what the real server returned for metadata.name=s04-p3 (04)', () => {
    const ex = exchange(t04, 'fieldSelector metadata.name=s04-p3');
    const selector = parseFieldSelector(queryParam(ex.request.path, 'fieldSelector'), META);
    const selected = objects.filter((o) =>
      selector.matches({ 'metadata.name': o.name, 'metadata.namespace': 'wire' }),
    );
    expect(selected.map((o) => o.name)).toEqual(namesOf(ex.response?.body));
  });

  it('rejects an unknown field with the real message (04)', () => {
    const ex = exchange(t04, 'unsupported fieldSelector field');
    expect(() => parseFieldSelector(queryParam(ex.request.path, 'fieldSelector'), META)).toThrow(
      new SelectorError(messageOf(ex.response?.body)),
    );
  });

  it('supports =, == and != and conjunctions', () => {
    const fields = { 'metadata.name': 'a', 'metadata.namespace': 'ns' };
    expect(parseFieldSelector('metadata.name==a', META).matches(fields)).toBe(true);
    expect(parseFieldSelector('metadata.name!=a', META).matches(fields)).toBe(false);
    expect(parseFieldSelector('metadata.name=a,metadata.namespace!=other', META).matches(fields)).toBe(true);
    expect(parseFieldSelector('metadata.name=a,metadata.namespace=other', META).matches(fields)).toBe(false);
    expect(parseFieldSelector('', META).empty).toBe(true);
  });

  it('unescapes \\, \\= and \\\\ in values and rejects bad escapes', () => {
    expect(parseFieldSelector('metadata.name=a\\,b', META).matches({ 'metadata.name': 'a,b' })).toBe(true);
    expect(() => parseFieldSelector('metadata.name=a\\x', META)).toThrow(
      'invalid field selector: invalid escape sequence: \\x',
    );
    expect(() => parseFieldSelector('metadata.name', META)).toThrow(
      "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
    );
  });
});
