import { describe, expect, it } from 'vitest';

import {
  formatLabelRequirements,
  LabelSelectorFieldError,
  LabelSelectorSyntaxError,
  labelRequirementError,
  labelRequirementMatches,
  labelSelectorRequirements,
  parseLabelRequirements,
  type LabelRequirement,
} from './label-requirements.js';

const matchesAll = (requirements: readonly LabelRequirement[], labels?: Record<string, string>): boolean =>
  requirements.every((r) => labelRequirementMatches(r, labels));

describe('parseLabelRequirements', () => {
  it('parses every operator, sorts and de-duplicates set values, prints canonically', () => {
    const requirements = parseLabelRequirements('tier in (b,a,b),!gone,app,n>4,m<2,x!=y,in in (in)');
    expect(requirements).toContainEqual({ key: 'tier', operator: 'in', values: ['a', 'b'] });
    expect(formatLabelRequirements(requirements)).toBe('app,!gone,in in (in),m<2,n>4,tier in (a,b),x!=y');
    expect(parseLabelRequirements('')).toEqual([]);
    expect(parseLabelRequirements('a in ()')).toEqual([{ key: 'a', operator: 'in', values: [''] }]);
  });

  it.each([
    // text, position, the apiserver's message
    ['app in (a,b', 11, "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a=b=c', 3, "found '=', expected: ',' or 'end of string'"],
    ['!app in (a)', 5, "found 'in', expected: ',' or 'end of string'"],
    ['app,', 4, "found '', expected: identifier after ','"],
    ['app ~ b', 4, "unable to parse requirement: found '~', expected: in, notin, =, ==, !=, gt, lt"],
    ['x=(', 2, "unable to parse requirement: found '(', expected: identifier"],
    [',a', 0, "found ',', expected: !, identifier, or 'end of string'"],
    [
      'n>x',
      2,
      `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'n>9223372036854775808',
      2,
      `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
  ])('%j fails at %i with the server message', (text, position, message) => {
    let error: unknown;
    try {
      parseLabelRequirements(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LabelSelectorSyntaxError);
    expect((error as LabelSelectorSyntaxError).message).toBe(message);
    expect((error as LabelSelectorSyntaxError).position).toBe(position);
  });

  it('takes Gt/Lt values as Go int64, beyond the doubles', () => {
    const [gt] = parseLabelRequirements('n>9007199254740992');
    expect(gt && labelRequirementMatches(gt, { n: '9007199254740993' })).toBe(true);
  });
});

describe('labelRequirementMatches', () => {
  it('has the server semantics for absent keys, empty values and integers', () => {
    expect(matchesAll(parseLabelRequirements('a!=b,c notin (d),!e'))).toBe(true);
    expect(matchesAll(parseLabelRequirements('a in (b)'))).toBe(false);
    expect(matchesAll(parseLabelRequirements('a='), { a: '' })).toBe(true);
    expect(matchesAll(parseLabelRequirements('a'), { a: '' })).toBe(true);
    expect(matchesAll(parseLabelRequirements('n>4'), { n: 'x' })).toBe(false);
    expect(matchesAll(parseLabelRequirements('n<4'), { n: '-3' })).toBe(true);
    expect(matchesAll(parseLabelRequirements('n<4'))).toBe(false);
  });
});

describe('labelSelectorRequirements', () => {
  it('converts matchLabels and matchExpressions', () => {
    const requirements = labelSelectorRequirements({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['b', 'a', 'a'] }],
    });
    expect(requirements).toEqual([
      { key: 'app', operator: '=', values: ['web'] },
      { key: 'tier', operator: 'notin', values: ['a', 'b'] },
    ]);
    expect(formatLabelRequirements(requirements)).toBe('app=web,tier notin (a,b)');
  });

  it('names the refused field, with the server message', () => {
    const refused = (selector: unknown): LabelSelectorFieldError => {
      try {
        labelSelectorRequirements(selector as never);
      } catch (e) {
        if (e instanceof LabelSelectorFieldError) return e;
        throw e;
      }
      throw new Error('accepted');
    };
    expect(refused({ matchExpressions: [{ key: 'a', operator: 'In' }] })).toMatchObject({
      path: '.matchExpressions[0]',
      message: `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`,
    });
    expect(refused({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }).message).toBe(
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
    );
    expect(refused({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toMatchObject({
      path: '.matchExpressions[0].operator',
      value: 'Gt',
    });
    expect(refused({ matchLabels: { app: 7 } })).toMatchObject({ path: '.matchLabels[app]', value: 7 });
  });
});

describe('labelRequirementError', () => {
  it('is NewRequirement: undefined when valid, the aggregate of every failure otherwise', () => {
    expect(labelRequirementError('app', '=', ['web'])).toBeUndefined();
    expect(labelRequirementError('a', '=', ['x', 'y'])).toBe(
      'values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value',
    );
    expect(labelRequirementError('bad key', '=', ['bad value'])).toMatch(
      /^\[key: Invalid value: "bad key": .*, values\[0\]\[bad key\]: /,
    );
  });
});
