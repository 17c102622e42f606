// planCopies: desired copies vs existing copies.
import { describe, expect, it } from 'vitest';
import { planCopies } from './plan.js';
import { RULE_LABEL, SOURCE_ANNOTATION } from './rule-types.js';
import { copyOf } from './rule.js';

import { cm, existingCopy, input, place, refPlace, rule, secret } from './copyrator.test.helper.js';

describe('planCopies', () => {
  const settings = cm('src', 'settings', { mode: 'a' });
  const other = cm('src', 'other', { x: '1' }, { copy: 'no' });

  it('copies every selected source into every Active namespace except the source', () => {
    const plan = planCopies(input({ candidates: [settings, other] }));
    expect(plan.sources).toEqual(['src/settings']);
    expect(plan.targets).toEqual(['a', 'b']); // not src, not the Terminating one
    expect(plan.apply.map((a) => [place(a.copy), a.force, a.reason])).toEqual([
      ['a/settings', false, 'missing'],
      ['b/settings', false, 'missing'],
    ]);
    expect(plan.delete).toEqual([]);
    const copy = plan.apply[0]?.copy;
    expect(copy).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'settings',
        namespace: 'a',
        labels: { [RULE_LABEL]: 'r' },
        annotations: { [SOURCE_ANNOTATION]: 'src/settings' },
      },
      data: { mode: 'a' },
    });
  });

  it('limits targets to targetNamespaces that exist and are Active', () => {
    const plan = planCopies(
      input({ rule: rule({ targetNamespaces: ['b', 'gone', 'later', 'src'] }), candidates: [settings] }),
    );
    expect(plan.targets).toEqual(['b']);
    expect(plan.apply.map((a) => place(a.copy))).toEqual(['b/settings']);
  });

  it('plans nothing for copies already in sync, and applies (force) copies whose data changed', () => {
    const existing = [existingCopy(settings, 'a'), existingCopy(cm('src', 'settings', { mode: 'old' }), 'b')];
    const plan = planCopies(input({ candidates: [settings], existing }));
    expect(plan.unchanged).toBe(1);
    expect(plan.apply.map((a) => [place(a.copy), a.force, a.reason])).toEqual([
      ['b/settings', true, 'changed'],
    ]);
    expect(plan.delete).toEqual([]);
  });

  it('deletes copies whose source stopped matching or is gone, with the uid as precondition', () => {
    const unlabelled = cm('src', 'settings', { mode: 'a' }, {});
    const existing = [existingCopy(settings, 'a'), existingCopy(settings, 'b')];
    const plan = planCopies(input({ candidates: [unlabelled], existing }));
    expect(plan.sources).toEqual([]);
    expect(plan.apply).toEqual([]);
    expect(plan.delete).toEqual([
      {
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'settings' },
        uid: 'uid-a-settings',
        reason: 'stale',
      },
      {
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'settings' },
        uid: 'uid-b-settings',
        reason: 'stale',
      },
    ]);
  });

  it('leaves copies in Terminating namespaces to the namespace controller, and ignores copies being deleted', () => {
    const existing = [
      existingCopy(settings, 'gone'),
      {
        ...existingCopy(settings, 'a'),
        metadata: { ...existingCopy(settings, 'a').metadata, deletionTimestamp: 'now' },
      },
    ];
    const plan = planCopies(input({ candidates: [], existing }));
    expect(plan.delete).toEqual([]);
    const stillWanted = planCopies(input({ candidates: [settings], existing }));
    expect(stillWanted.apply.map((a) => place(a.copy))).toEqual(['b/settings']); // a/ re-created after its delete
  });

  it('deletes the other kind of copies when the rule type changed', () => {
    const key = secret('src', 'key', { k: 'c2VjcmV0' });
    const plan = planCopies(
      input({
        rule: rule({ ruleType: 'secret' }),
        candidates: [key],
        existing: [existingCopy(settings, 'a')],
      }),
    );
    expect(plan.apply.map((a) => `${a.copy.kind ?? ''} ${place(a.copy)}`)).toEqual([
      'Secret a/key',
      'Secret b/key',
    ]);
    expect(plan.delete.map((d) => `${d.ref.kind} ${refPlace(d.ref)} ${d.reason}`)).toEqual([
      'ConfigMap a/settings stale',
    ]);
  });

  it('replaces a Secret copy whose type changed (type is immutable): delete, then apply', () => {
    const tls = secret('src', 'cert', { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' }, 'kubernetes.io/tls');
    const old = existingCopy(secret('src', 'cert', { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' }), 'a');
    const plan = planCopies(
      input({
        rule: rule({ ruleType: 'secret', targetNamespaces: ['a'] }),
        candidates: [tls],
        existing: [old],
      }),
    );
    expect(plan.delete.map((d) => [refPlace(d.ref), d.reason])).toEqual([['a/cert', 'replace']]);
    expect(plan.apply.map((a) => [place(a.copy), a.copy.type, a.force])).toEqual([
      ['a/cert', 'kubernetes.io/tls', true],
    ]);
  });

  it('never overwrites an object it did not make, nor another rule’s copy: conflicts', () => {
    const foreign = cm('a', 'settings', { mine: 'yes' }, {});
    const theirs = existingCopy(cm('elsewhere', 'settings', {}), 'b', 'other-rule');
    const occupant = (_kind: string, namespace: string, name: string) =>
      [foreign, theirs].find((o) => place(o) === `${namespace}/${name}`);
    const plan = planCopies(input({ candidates: [settings], occupant }));
    expect(plan.apply).toEqual([]);
    expect(plan.conflicts).toEqual([
      { ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: 'settings' }, heldBy: 'unmanaged' },
      {
        ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'b', name: 'settings' },
        heldBy: 'rule other-rule',
      },
    ]);
  });

  it('treats its own copy seen only through the occupant lookup as existing (the copy list lags)', () => {
    const ours = existingCopy(settings, 'a');
    const plan = planCopies(
      input({
        candidates: [settings],
        occupant: (_k, n, name) => (`${n}/${name}` === 'a/settings' ? ours : undefined),
      }),
    );
    expect(plan.unchanged).toBe(1);
    expect(plan.apply.map((a) => place(a.copy))).toEqual(['b/settings']);
  });

  it('never copies copies, service-account tokens, or sources being deleted', () => {
    const aCopy = existingCopy(settings, 'src', 'other-rule'); // a copy that lives in our source namespace
    const token = secret('src', 'sa-token', { token: 'dG9rZW4=' }, 'kubernetes.io/service-account-token');
    const deleting = cm('src', 'dying', { a: '1' }, { copy: 'yes' }, { deletionTimestamp: 'now' });
    expect(planCopies(input({ candidates: [aCopy, deleting] })).sources).toEqual([]);
    expect(planCopies(input({ rule: rule({ ruleType: 'secret' }), candidates: [token] })).sources).toEqual(
      [],
    );
  });

  it('copies Secret type and data, ConfigMap binaryData; never the source’s labels or annotations', () => {
    const s = { ...secret('src', 's', { k: 'dg==' }, 'kubernetes.io/dockerconfigjson') };
    s.metadata = { ...s.metadata, annotations: { note: 'x' } };
    expect(copyOf(s, 'r', 'a')).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        namespace: 'a',
        labels: { [RULE_LABEL]: 'r' },
        annotations: { [SOURCE_ANNOTATION]: 'src/s' },
      },
      type: 'kubernetes.io/dockerconfigjson',
      data: { k: 'dg==' },
    });
    const bin = { ...cm('src', 'b', {}), binaryData: { blob: 'AAE=' } };
    expect(copyOf(bin, 'r', 'a')).toMatchObject({ binaryData: { blob: 'AAE=' } });
    expect(copyOf(bin, 'r', 'a')).not.toHaveProperty('data');
  });
});
