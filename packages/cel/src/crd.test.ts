/**
 * What `compileValidations` refuses or reports, beyond Kubernetes' tables: fail-closed cases of
 * this engine, and kube-apiserver's placement of errors (`fieldPath`, `reason`, messageExpression
 * of newer servers).
 */
import { describe, expect, it } from 'vitest';

import { compileValidations } from './crd.js';
import { CelCompileError, CelUnsupportedError } from './errors.js';
import type { CelSchema, ValidationRule } from './schema.js';

const crd = (schema: CelSchema) => ({
  spec: {
    group: 'g',
    names: { kind: 'T', plural: 'ts' },
    versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }],
  },
});
const spec = (
  rules: ValidationRule[],
  properties: Record<string, CelSchema> = { s: { type: 'string' }, n: { type: 'integer' } },
) =>
  crd({
    type: 'object',
    properties: { spec: { type: 'object', 'x-kubernetes-validations': rules, properties } },
  });

describe('compileValidations', () => {
  it('a regex RE2 refuses (lookaround, backreference) throws CelUnsupportedError, even when reported', () => {
    for (const rule of ["self.s.matches('a(?=b)')", "self.s.find('(a)\\\\1') == ''"]) {
      expect(() => compileValidations(spec([{ rule }]))).toThrow(CelUnsupportedError);
      expect(() => compileValidations(spec([{ rule }]), { compileErrors: 'report' })).toThrow(
        CelUnsupportedError,
      );
    }
  });

  it("a pattern with an escape JSON does not know (\\') compiles and runs", () => {
    const v = compileValidations(spec([{ rule: "self.s.matches('^it\\'s$')" }]));
    expect(v.validate({ apiVersion: 'g/v1', spec: { s: "it's" } })).toEqual([]);
    expect(v.validate({ apiVersion: 'g/v1', spec: { s: 'its' } })).toHaveLength(1);
  });

  it('fieldPath, reason and messageExpression place and word the error as newer kube-apiservers do', () => {
    const v = compileValidations(
      spec([
        {
          rule: 'self.n > 0',
          fieldPath: '.n',
          reason: 'FieldValueForbidden',
          messageExpression: "'n is ' + string(self.n)",
        },
        { rule: "self.s != ''", reason: 'FieldValueRequired', message: 's must be set', fieldPath: '.s' },
      ]),
    );
    expect(v.validate({ apiVersion: 'g/v1', spec: { n: 0, s: '' } })).toEqual([
      { reason: 'FieldValueForbidden', field: 'spec.n', message: 'Forbidden: n is 0', detail: 'n is 0' },
      {
        reason: 'FieldValueRequired',
        field: 'spec.s',
        message: 'Required value: s must be set',
        detail: 's must be set',
      },
    ]);
  });

  it('a runtime type mismatch (int-or-string) is a no-such-overload error naming the rule', () => {
    const v = compileValidations(
      spec([{ rule: 'self.v > 1' }], { v: { 'x-kubernetes-int-or-string': true } }),
    );
    expect(v.validate({ apiVersion: 'g/v1', spec: { v: 'x' } })).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message:
          'Invalid value: "object": \'no such overload\': call arguments did not match a supported operator, function or macro signature for rule: self.v > 1',
        detail:
          "'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.v > 1",
      },
    ]);
    expect(v.validate({ apiVersion: 'g/v1', spec: { v: 2 } })).toEqual([]);
  });

  it('type-checks each rule against its schema node, as kube-apiserver compiles it', () => {
    const reason = (rule: string, properties?: Record<string, CelSchema>): string | undefined => {
      try {
        compileValidations(spec([{ rule }], properties));
        return undefined;
      } catch (e) {
        return e instanceof CelCompileError ? e.reason : String(e);
      }
    };
    expect(reason('self.nope == 1')).toBe("undefined field 'nope'");
    expect(reason('self.s == 1')).toBe("found no matching overload for '_==_' applied to '(string, int)'");
    expect(reason('self.s')).toBe('cel expression must evaluate to a bool');
    // well typed: nested objects, lists, maps, int-or-string (dyn), formats
    const properties: Record<string, CelSchema> = {
      o: { type: 'object', properties: { n: { type: 'integer' } } },
      l: { type: 'array', items: { type: 'string' } },
      m: { type: 'object', additionalProperties: { type: 'integer' } },
      ios: { 'x-kubernetes-int-or-string': true },
      t: { type: 'string', format: 'date-time' },
    };
    for (const rule of [
      'self.o.n >= 0 && self.l.all(x, x.startsWith("a")) && self.m.all(k, self.m[k] > 0)',
      "type(self.ios) == string ? self.ios.endsWith('%') : self.ios >= 0",
      "self.t > timestamp('2000-01-01T00:00:00Z')",
    ])
      expect(reason(rule, properties), rule).toBeUndefined();
    expect(reason('self.o.x == 1', properties)).toBe("undefined field 'x'");
    // the root of a resource has apiVersion, kind and metadata.name/generateName, not the rest
    const root = (rule: string) => () =>
      compileValidations(crd({ type: 'object', 'x-kubernetes-validations': [{ rule }] }));
    expect(root("self.metadata.name.startsWith('a') && self.kind != ''")).not.toThrow();
    expect(root("self.metadata.namespace == 'a'")).toThrow(/undefined field 'namespace'/);
    // reported on each object instead when compile errors are reported (a stored CRD)
    expect(
      compileValidations(spec([{ rule: 'self.nope == 1' }]), { compileErrors: 'report' }).validate({
        apiVersion: 'g/v1',
        spec: {},
      }),
    ).toEqual([
      expect.objectContaining({ field: 'spec', detail: "rule compile error: undefined field 'nope'" }),
    ]);
  });
});
