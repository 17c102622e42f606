import { InvalidArgumentError } from '@rxkube/core';
import {
  parseFieldSelector as testingParseFieldSelector,
  parseLabelSelector as testingParseLabelSelector,
  SelectorError,
} from '@rxkube/testing/validation';
import { describe, expect, it } from 'vitest';

import { parseFieldSelector } from './field-selector.js';
import { InvalidSelectorError } from './invalid-selector-error.js';
import { formatLabelSelector, labelMatcher, parseLabelSelector, toLabelSelector } from './label-selector.js';

const labels = { app: 'web', tier: 'front', n: '5' };

describe('labelMatcher: the text form (k8s.io/apimachinery/pkg/labels)', () => {
  it.each([
    ['app=web', true],
    ['app==web', true],
    ['app!=web', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['app in (db, web)', true],
    ['app notin (db,web)', false],
    ['tier notin (back)', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['app=web,tier=front', true],
    ['app=web,tier in (back)', false],
    ['n>4', true],
    ['n<5', false],
    ['app=', false],
    ['in in (in)', false],
    ['', true],
  ])('%j → %s', (selector, expected) => {
    expect(labelMatcher(selector)(labels)).toBe(expected);
  });

  it('treats an object without labels as having none', () => {
    expect(labelMatcher('!app')(undefined)).toBe(true);
    expect(labelMatcher('app')(undefined)).toBe(false);
  });
});

describe('labelMatcher: metav1.LabelSelector and matchLabels', () => {
  it.each([
    [{ app: 'web' }, true],
    [{ app: 'db' }, false],
    [{ matchLabels: { app: 'web' } }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    [{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
    [{}, true],
  ] as const)('%j → %s', (selector, expected) => {
    expect(labelMatcher(selector)(labels)).toBe(expected);
  });

  it('prints every form as the server would (labels.Selector.String())', () => {
    expect(
      formatLabelSelector({
        matchLabels: { z: '1' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['b', 'a', 'b'] },
          { key: 'gone', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('!gone,tier in (a,b),z=1');
    expect(formatLabelSelector('tier in (b,a),app')).toBe('app,tier in (a,b)');
    expect(formatLabelSelector({ app: 'web' })).toBe('app=web');
  });

  it('refuses an object form the server would refuse, naming the field', () => {
    expect(() => labelMatcher({ matchExpressions: [{ key: 'a', operator: 'In' }] })).toThrow(
      /selector\.matchExpressions\[0\] is not valid: values: Invalid value: \[\]string\{\}: for 'in', 'notin' operators, values set can't be empty/,
    );
    expect(() =>
      labelMatcher({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    ).toThrow(/values set must be empty for exists and does not exist/);
    expect(() =>
      labelMatcher({ matchExpressions: [{ key: 'a', operator: 'Bad' as 'In', values: ['x'] }] }),
    ).toThrow(
      /selector\.matchExpressions\[0\]\.operator is not valid: "Bad" is not a valid label selector operator/,
    );
    expect(() => labelMatcher({ matchLabels: { 'bad key': 'x' } })).toThrow(InvalidArgumentError);
    expect(() => labelMatcher({ app: 'not a value' })).toThrow(/a valid label must be an empty string/);
  });
});

describe("parseLabelSelector: errors with the position and the server's words", () => {
  it.each([
    // text, position, the apiserver's message
    ['app in (a,b', 11, "unable to parse requirement: found '', expected: ',' or ')'"],
    ['app in (a', 9, "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a=b=c', 3, "found '=', expected: ',' or 'end of string'"],
    ['!app in (a)', 5, "found 'in', expected: ',' or 'end of string'"],
    ['app,', 4, "found '', expected: identifier after ','"],
    ['app ~ b', 4, "unable to parse requirement: found '~', expected: in, notin, =, ==, !=, gt, lt"],
    ['x=(', 2, "unable to parse requirement: found '(', expected: identifier"],
    [',a', 0, "found ',', expected: !, identifier, or 'end of string'"],
  ])('%j fails at %i', (text, position, reason) => {
    let error: unknown;
    try {
      parseLabelSelector(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidSelectorError);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    const e = error as InvalidSelectorError;
    expect(e.position).toBe(position);
    expect(e.reason).toBe(reason);
    expect(e.selectorKind).toBe('label');
    expect(e.message).toContain(`at position ${position} (${text.slice(0, position)}⟨here⟩`);
    expect(e.message).toMatch(/key in \(a,b\)/);
  });

  it('names the option that held the selector', () => {
    expect(() => toLabelSelector('a in (', 'WatchRegistry.watch', 'target.labelSelector')).toThrow(
      /^WatchRegistry\.watch: target\.labelSelector is not a valid label selector: at position 6/,
    );
  });
});

describe('parseFieldSelector: the grammar of fields.ParseSelector', () => {
  it('matches terms and escapes', () => {
    const s = parseFieldSelector('metadata.name=a\\,b,status.phase!=Failed');
    expect(s.matches({ 'metadata.name': 'a,b', 'status.phase': 'Running' })).toBe(true);
    expect(s.matches({ 'metadata.name': 'a,b', 'status.phase': 'Failed' })).toBe(false);
    expect(parseFieldSelector('').empty).toBe(true);
  });

  it.each([
    ['metadata.name', 0, "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
    ['metadata.name=a,x', 16, "invalid selector: 'metadata.name=a,x'; can't understand 'x'"],
    ['a=b=c', 3, 'invalid field selector: unescaped character in value: ='],
    ['a=b\\x', 3, 'invalid field selector: invalid escape sequence: \\x'],
  ])('%j fails at %i', (text, position, reason) => {
    try {
      parseFieldSelector(text);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidSelectorError);
      expect((e as InvalidSelectorError).position).toBe(position);
      expect((e as InvalidSelectorError).reason).toBe(reason);
    }
  });
});

/**
 * The kube matcher and the embedded server's (`@rxkube/testing`, which answers with it) agree: on
 * acceptance, on the message of a refusal, and on what a selector selects. Both wrap
 * `@rxkube/wire`'s parser now; this checks that neither wrapper changes its words. The table mixes valid selectors, each refusal path of the parser, and label sets with
 * missing, empty and integer values.
 */
describe('differential: kube vs @rxkube/testing selectors', () => {
  const selectors = [
    '',
    'app',
    '!app',
    'app=web',
    'app==web',
    'app!=web',
    'app=',
    'app in (web,db)',
    'app in (web, db)',
    'app notin (web)',
    'app in ()',
    'app in (,)',
    'app in (a,,b)',
    'in in (in)',
    'notin notin (notin,in)',
    'example.com/app=x',
    'n>4',
    'n<10',
    'n>x',
    'n>1,n<9',
    '  app = web , tier in ( front ) ',
    'app in (a,b',
    'app in (a',
    'a=b=c',
    '!app in (a)',
    'app,',
    ',a',
    'app ~ b',
    'x=(',
    'bad key=x',
    'app=bad value!',
    '-app=x',
    'a/b/c=x',
    '/a=x',
    'app>>1',
    'app=!',
    '!!app',
    'app=x,!tier,n notin (1,2)',
    'ä=x',
  ];
  const labelSets: (Record<string, string> | undefined)[] = [
    undefined,
    {},
    { app: 'web' },
    { app: '' },
    { app: 'db', tier: 'front' },
    { app: 'web', tier: 'front', n: '5' },
    { n: '12' },
    { n: '-3' },
    { 'example.com/app': 'x', in: 'in', notin: 'x' },
  ];

  it.each(selectors)('%j: same acceptance, message and selection', (text) => {
    let theirs: ReturnType<typeof testingParseLabelSelector> | undefined;
    let theirError: string | undefined;
    try {
      theirs = testingParseLabelSelector(text);
    } catch (e) {
      if (!(e instanceof SelectorError)) throw e;
      theirError = e.message;
    }
    let ours: ReturnType<typeof parseLabelSelector> | undefined;
    let ourError: string | undefined;
    try {
      ours = parseLabelSelector(text);
    } catch (e) {
      if (!(e instanceof InvalidSelectorError)) throw e;
      ourError = e.reason;
    }
    expect(ourError).toBe(theirError);
    if (ours === undefined || theirs === undefined) return;
    for (const set of labelSets) expect([set, ours.matches(set)]).toEqual([set, theirs.matches(set)]);
  });

  it.each([
    'metadata.name=a',
    'metadata.name==a,metadata.namespace!=b',
    'metadata.name=a\\,b',
    'metadata.name',
    'metadata.name=a=b',
    'metadata.name=a\\x',
    '',
  ])('field selector %j: same acceptance and message', (text) => {
    const fields = ['metadata.name', 'metadata.namespace'];
    let theirError: string | undefined;
    try {
      testingParseFieldSelector(text, fields);
    } catch (e) {
      theirError = (e as Error).message;
    }
    let ourError: string | undefined;
    try {
      parseFieldSelector(text);
    } catch (e) {
      ourError = (e as InvalidSelectorError).reason;
    }
    expect(ourError).toBe(theirError);
  });
});
