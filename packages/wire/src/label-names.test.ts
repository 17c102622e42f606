import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  labelValueErrors,
  qualifiedNameErrors,
} from './label-names.js';

// The messages are kube-apiserver v1.24's to the byte: the embedded server of @rxkube/testing puts
// them in its 422 answers, and its transcript tests (validation/names.test.ts) compare those.
describe('name checks', () => {
  it('qualified names: prefix must be a subdomain, name part non-empty', () => {
    expect(qualifiedNameErrors('/x')).toEqual(['prefix part must be non-empty']);
    expect(qualifiedNameErrors('Example.com/x')[0]).toMatch(/^prefix part a lowercase RFC 1123 subdomain/);
    expect(qualifiedNameErrors('x/')[0]).toBe('name part must be non-empty');
    expect(qualifiedNameErrors('a/b/c')[0]).toBe(
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
  });

  it('label values: empty is valid, 63 bytes max', () => {
    expect(labelValueErrors('')).toEqual([]);
    expect(labelValueErrors('a'.repeat(63))).toEqual([]);
    expect(labelValueErrors('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(labelValueErrors('é'.repeat(32))).toEqual([
      'must be no more than 63 characters',
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
  });

  it('subdomains: 253 bytes max, dots between labels', () => {
    expect(dns1123SubdomainErrors('a.b-c')).toEqual([]);
    expect(dns1123SubdomainErrors('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });

  it('labels: no dots, 63 bytes max', () => {
    expect(dns1123LabelErrors('a.b')).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });

  it('every generated DNS label that matches the regex is accepted (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/), (s) => {
        expect(dns1123LabelErrors(s)).toEqual([]);
      }),
    );
  });
});
