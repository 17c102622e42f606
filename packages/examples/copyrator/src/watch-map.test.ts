// The map functions: which rules an object or namespace event concerns.
import { describe, expect, it } from 'vitest';
import { rulesForNamespace, rulesForObject } from './reconcile.js';

import { cm, existingCopy, place, rule, secret } from './copyrator.test.helper.js';

describe('rulesForObject / rulesForNamespace (watch → rule requests)', () => {
  const rules = [rule({}, 'r'), rule({ ruleType: 'secret' }, 's'), rule({ sourceNamespace: 'other' }, 'o')];

  it('maps a source to the rules of its kind and namespace whose selector matches it', () => {
    expect(rulesForObject(cm('src', 'x', {}), rules)).toEqual([{ name: 'r' }]);
    expect(rulesForObject(secret('src', 'x', {}), rules)).toEqual([{ name: 's' }]);
    expect(rulesForObject(cm('src', 'x', {}, { copy: 'no' }), rules)).toEqual([]);
  });

  it('maps a source that stopped matching to the rules that still have a copy of it', () => {
    const hasCopyOf = (r: string, source: string) => r === 'r' && source === 'src/x';
    expect(rulesForObject(cm('src', 'x', {}, {}), rules, { hasCopyOf })).toEqual([{ name: 'r' }]);
  });

  it('maps a copy to the rule it is labelled with', () => {
    expect(rulesForObject(existingCopy(cm('src', 'x', {}), 'a', 'o'), rules)).toEqual([{ name: 'o' }]);
  });

  it('maps an object elsewhere to the rules with a source of that name (it is, or blocks, their copy)', () => {
    const sources = [cm('src', 'x', {}), cm('other', 'y', {}, { copy: 'no' })];
    const object = (_kind: string, namespace: string, name: string) =>
      sources.find((o) => place(o) === `${namespace}/${name}`);
    expect(rulesForObject(cm('team', 'x', {}, {}), rules, { object })).toEqual([{ name: 'r' }]);
    expect(rulesForObject(cm('team', 'y', {}, {}), rules, { object })).toEqual([]); // o's selector does not match y
    expect(rulesForObject(cm('team', 'z', {}, {}), rules, { object })).toEqual([]);
    // another rule's copy in the way: its own rule and r
    expect(rulesForObject(existingCopy(cm('src', 'x', {}), 'team', 'o'), rules, { object })).toEqual([
      { name: 'o' },
      { name: 'r' },
    ]);
  });

  it('maps a namespace to every rule', () => {
    expect(rulesForNamespace(rules)).toEqual([{ name: 'r' }, { name: 's' }, { name: 'o' }]);
  });
});

// ── status ──────────────────────────────────────────────────────────────────────────────────
