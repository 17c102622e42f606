// One rule's meaning: its selector and its problems.
import { describe, expect, it } from 'vitest';
import { ruleProblems, selectorMatches } from './rule.js';

import { rule } from './copyrator.test.helper.js';

describe('selectorMatches', () => {
  it('needs every matchLabels entry', () => {
    expect(selectorMatches({ matchLabels: { a: '1', b: '2' } }, { a: '1', b: '2', c: '3' })).toBe(true);
    expect(selectorMatches({ matchLabels: { a: '1', b: '2' } }, { a: '1' })).toBe(false);
    expect(selectorMatches({ matchLabels: { a: '1' } }, undefined)).toBe(false);
  });

  it('evaluates In, NotIn, Exists and DoesNotExist like metav1.LabelSelector', () => {
    const labels = { tier: 'web', env: 'prod' };
    expect(
      selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'db'] }] }, labels),
    ).toBe(true);
    expect(
      selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] }, labels),
    ).toBe(false);
    expect(
      selectorMatches({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] }, labels),
    ).toBe(true);
    // NotIn matches objects without the key (Kubernetes semantics)
    expect(
      selectorMatches({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }] }, labels),
    ).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'env', operator: 'Exists' }] }, labels)).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, labels)).toBe(
      false,
    );
  });
});

describe('ruleProblems', () => {
  it('accepts a usable rule', () => {
    expect(ruleProblems(rule())).toEqual([]);
  });

  it('refuses an empty selector, a name too long for a label value, In without values', () => {
    expect(ruleProblems(rule({ selector: {} })).join()).toMatch(/at least one matchLabels entry/);
    expect(ruleProblems(rule({}, 'x'.repeat(64))).join()).toMatch(/64 characters.*at most 63/);
    expect(
      ruleProblems(rule({ selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } })).join(),
    ).toMatch(/matchExpressions\[0\] \(In\) needs at least one value/);
  });

  it('refuses label keys and values no label can have, and names that are no namespace', () => {
    expect(ruleProblems(rule({ selector: { matchLabels: { 'bad key': 'yes' } } }))).toEqual([
      expect.stringMatching(
        /^spec\.selector\.matchLabels key "bad key" is not a label key .*no label can match it$/,
      ),
    ]);
    expect(ruleProblems(rule({ selector: { matchLabels: { 'Example.com/app': 'yes' } } })).join()).toMatch(
      /prefix that is not a DNS subdomain/,
    );
    expect(ruleProblems(rule({ selector: { matchLabels: { app: 'a b' } } })).join()).toMatch(
      /matchLabels\["app"\] value "a b" is not a label value/,
    );
    expect(
      ruleProblems(rule({ selector: { matchExpressions: [{ key: '-tier', operator: 'Exists' }] } })).join(),
    ).toMatch(/matchExpressions\[0\]\.key "-tier" is not a label key/);
    expect(ruleProblems(rule({ sourceNamespace: 'Platform', targetNamespaces: ['team_a'] }))).toEqual([
      expect.stringContaining('spec.sourceNamespace "Platform" is not a namespace name'),
      expect.stringContaining('spec.targetNamespaces "team_a" is not a namespace name'),
    ]);
    // valid keys, prefixed and not, and an empty value
    expect(
      ruleProblems(
        rule({ selector: { matchLabels: { 'example.com/app': '', 'app.kubernetes.io_x': 'v-1' } } }),
      ),
    ).toEqual([]);
  });
});

// ── planning: desired vs existing → apply / delete ──────────────────────────────────────────
