import { describe, expect, it } from 'vitest';

import { labelMatcher } from './label-selector.js';

describe('labelMatcher (k8s.io/apimachinery/pkg/labels grammar)', () => {
  const labels = { app: 'web', tier: 'front' };
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
    ['', true],
  ])('%s → %s', (selector, expected) => {
    expect(labelMatcher(selector)(labels)).toBe(expected);
  });

  it('takes matchLabels, and objects without labels', () => {
    expect(labelMatcher({ app: 'web' })(labels)).toBe(true);
    expect(labelMatcher({ app: 'db' })(labels)).toBe(false);
    expect(labelMatcher('!app')(undefined)).toBe(true);
    expect(labelMatcher('app')(undefined)).toBe(false);
  });

  it('refuses what does not parse, saying what does', () => {
    expect(() => labelMatcher('app in (a')).toThrow(/does not parse at "app in \(a"/);
    expect(() => labelMatcher('!app in (a)')).toThrow(/key in \(a,b\)/);
    expect(() => labelMatcher('a=b=c')).toThrow(/does not parse/);
  });
});
