/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- the fixture is untyped JSON */
/**
 * Without a server: the 60 writes of fixtures/crd-cases.json (answered by kube-apiserver v1.24,
 * see fixtures/README.md) through `validateCustomResource`, which must give the CEL causes the
 * server gave. The server's own steps are applied as it does: status is dropped on create, a
 * status update keeps the old spec; cases the structural schema refuses first (its blocking
 * errors skip every rule) are the server's, not CEL's, and are left to the server test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { compileValidations, validateCustomResource } from './crd.js';
import { formatFieldError } from './field-error.js';

const fixture: { crd: any; cases: any[] } = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/crd-cases.json'), 'utf8'),
);
const SCHEMA_REASONS = new Set([
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);
const blocked = (c: any): boolean => (c.expect.causes ?? []).some((x: any) => SCHEMA_REASONS.has(x.reason));

describe('validateCustomResource gives what kube-apiserver v1.24 gave (fixtures/crd-cases.json)', () => {
  const compiled = compileValidations(fixture.crd);

  it.each(fixture.cases.filter((c) => !blocked(c)).map((c) => [c.name, c]))('%s', (_name, c: any) => {
    const { status: _dropped, ...created } = c.object;
    const obj =
      c.op === 'create' ? created : c.op === 'status' ? { ...c.object, spec: c.old.spec } : c.object;
    const old = c.op === 'create' ? undefined : c.old;
    const errs = compiled
      .validate(obj, old)
      .map((e) => ({ reason: e.reason, field: e.field, message: e.message }))
      .sort((a, b) => `${a.field}: ${a.message}`.localeCompare(`${b.field}: ${b.message}`));
    expect(errs).toEqual(c.expect.causes ?? []);
  });

  it('covers 50+ writes, most of them refused', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(50);
    expect(fixture.cases.filter((c) => c.expect.code === 422).length).toBeGreaterThan(30);
  });

  it('validateCustomResource compiles and validates in one call, as a unit test would', () => {
    const widget = {
      apiVersion: 'cel.example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g-a' },
      spec: { replicas: 3, minReplicas: 5 },
    };
    expect(validateCustomResource(fixture.crd, widget).map(formatFieldError)).toEqual([
      'spec: Invalid value: "object": replicas must be at least minReplicas',
    ]);
    // another group or version has no rules here
    expect(validateCustomResource(fixture.crd, { ...widget, apiVersion: 'other.example.com/v1' })).toEqual(
      [],
    );
  });
});
