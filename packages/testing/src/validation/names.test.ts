import { describe, expect, it } from 'vitest';

import { exchange, loadTranscript } from '../replay/transcripts.js';
import { goQuote, validateDataKeys, validateLabels, validateObjectName, type FieldCause } from './names.js';

interface StatusBody {
  details: { causes: FieldCause[] };
}

const t03 = loadTranscript('03');
const causesOf = (label: string): FieldCause[] =>
  (exchange(t03, label).response?.body as StatusBody).details.causes;

describe('validateObjectName', () => {
  it('reproduces the 422 cause for an invalid subdomain name (03)', () => {
    expect(validateObjectName('Bad_Name!', 'subdomain')).toEqual(causesOf('invalid metadata.name'));
  });

  it('reproduces the 422 cause for a missing name (03)', () => {
    expect(validateObjectName(undefined, 'subdomain')).toEqual(causesOf('no name and no generateName'));
    expect(validateObjectName('', 'subdomain')).toEqual(causesOf('no name and no generateName'));
  });

  it('accepts valid names for each rule', () => {
    expect(validateObjectName('s02-cm', 'subdomain')).toEqual([]);
    expect(validateObjectName('a.b-c', 'subdomain')).toEqual([]);
    expect(validateObjectName('wire', 'label')).toEqual([]);
    expect(validateObjectName('Any Thing', 'path-segment')).toEqual([]);
  });

  it('rejects dots in DNS labels (namespaces) with the RFC 1123 label message', () => {
    const [cause, ...rest] = validateObjectName('a.b', 'label');
    expect(rest).toEqual([]);
    expect(cause?.message).toBe(
      `Invalid value: "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    );
  });

  it('reports length and pattern as two causes', () => {
    const causes = validateObjectName(`${'a'.repeat(64)}-`, 'label');
    expect(causes.map((c) => c.message.split(': ')[2]?.slice(0, 20))).toEqual([
      'must be no more than',
      'a lowercase RFC 1123',
    ]);
  });

  it('path-segment names may not be . or .. nor contain / or %', () => {
    expect(validateObjectName('..', 'path-segment').map((c) => c.message)).toEqual([
      `Invalid value: "..": may not be '..'`,
    ]);
    expect(validateObjectName('a/b%c', 'path-segment').map((c) => c.message)).toEqual([
      `Invalid value: "a/b%c": may not contain '/'`,
      `Invalid value: "a/b%c": may not contain '%'`,
    ]);
  });

  it('validates generateName as a prefix (a trailing dash is fine) and still requires a name', () => {
    expect(validateObjectName(undefined, 'subdomain', 's02-gen-')).toEqual([
      {
        reason: 'FieldValueRequired',
        message: 'Required value: name or generateName is required',
        field: 'metadata.name',
      },
    ]);
    expect(validateObjectName('x', 'subdomain', 'Bad-')[0]?.field).toBe('metadata.generateName');
  });
});

describe('data keys and labels', () => {
  it('reproduces the 422 cause for a bad ConfigMap data key (03)', () => {
    expect(validateDataKeys({ 'bad key!': 'x' }, 'data')).toEqual(causesOf('invalid data key'));
  });

  it('validates label keys and values', () => {
    expect(validateLabels({ app: 'wire', 'example.com/x': '' })).toEqual([]);
    expect(validateLabels({ 'a/b/c': 'x' })[0]?.message).toContain('a qualified name must consist of');
    expect(validateLabels({ ok: 'bad value' })[0]?.message).toMatch(
      /^Invalid value: "bad value": a valid label/,
    );
  });
});

describe('goQuote', () => {
  it('quotes like Go %q', () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote('\n\x01')).toBe('"\\n\\x01"');
    expect(goQuote('ünï')).toBe('"ünï"');
  });
});
