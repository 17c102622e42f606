/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return -- response bodies are untyped JSON */
/**
 * A CRD whose `x-kubernetes-validations` rules do not compile is refused when it is written
 * (create and update, 422), with kube-apiserver v1.24's field paths and messages (feature gate
 * CustomResourceValidationExpressions on; facts in packages/cel/fixtures/README.md). The
 * compiler's own text after `compilation failed: ` is cel-go's on the real server and
 * @rxkube/cel's on the embedded one, so only its presence is asserted.
 */
import { expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import { describeEachBackend } from './vitest/describe-each-backend.js';
import { waitFor } from './wait-for.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function crd(plural: string, ...schemas: any[]): any {
  return {
    metadata: { name: `${plural}.celcrd.example.com` },
    spec: {
      group: 'celcrd.example.com',
      scope: 'Cluster',
      names: { plural, kind: `${plural[0]?.toUpperCase() ?? ''}${plural.slice(1, -1)}` },
      versions: schemas.map((spec, i) => ({
        name: `v${String(i + 1)}`,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
      })),
    },
  };
}

const compileFailed = (rule: string, message = ''): RegExp =>
  new RegExp(
    `^${`Invalid value: apiextensions.ValidationRule{Rule:${JSON.stringify(rule)}, Message:${JSON.stringify(message)}}: compilation failed: `.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.+`,
    's',
  );

const sorted = (causes: any[]): any[] => [...causes].sort((a, b) => `${a.field}`.localeCompare(`${b.field}`));

describeEachBackend('CRD x-kubernetes-validations rules are compiled when the CRD is written', (b) => {
  const opts = (body?: unknown) => ({
    headers: { Authorization: `Bearer ${b.cluster.token}` },
    ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
    ...(body === undefined ? {} : { body }),
  });
  const post = (body: unknown) => call(b.cluster.url, 'POST', CRDS, opts(body));

  it('refuses a rule that does not parse, at spec.validation.openAPIV3Schema…rule', async () => {
    const r = await post(
      crd('syntaxes', {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.' }],
        properties: { s: { type: 'string' } },
      }),
    );
    expect(r.status, r.text).toBe(422);
    const field = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule';
    expect(r.body.reason).toBe('Invalid');
    expect(r.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field, message: expect.stringMatching(compileFailed('self.')) },
    ]);
    expect(r.body.message).toBe(
      `CustomResourceDefinition.apiextensions.k8s.io "syntaxes.celcrd.example.com" is invalid: ${field}: ${r.body.details.causes[0].message}`,
    );
  });

  it('refuses an empty rule: Required value: rule is not specified', async () => {
    const r = await post(crd('empties', { type: 'object', 'x-kubernetes-validations': [{ rule: '' }] }));
    expect(r.status, r.text).toBe(422);
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        field: 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
        message: 'Required value: rule is not specified',
      },
    ]);
  });

  it('lists every broken rule, nested ones too, with the rule and message Go-quoted', async () => {
    const r = await post(
      crd('twos', {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'true' }, { rule: 'self.', message: 'say "hi"' }],
        properties: { s: { type: 'string', 'x-kubernetes-validations': [{ rule: "self == 'a' +" }] } },
      }),
    );
    expect(r.status, r.text).toBe(422);
    expect(sorted(r.body.details.causes)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field:
          'spec.validation.openAPIV3Schema.properties[spec].properties[s].x-kubernetes-validations[0].rule',
        message: expect.stringMatching(compileFailed("self == 'a' +")),
      },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].rule',
        message: expect.stringMatching(compileFailed('self.', 'say "hi"')),
      },
    ]);
  });

  it('versions with different schemas: the path names the version', async () => {
    const r = await post(
      crd(
        'versioneds',
        { type: 'object', 'x-kubernetes-validations': [{ rule: 'true' }] },
        { type: 'object', 'x-kubernetes-validations': [{ rule: '1 +' }] },
      ),
    );
    expect(r.status, r.text).toBe(422);
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
        message: expect.stringMatching(compileFailed('1 +')),
      },
    ]);
  });

  it('refuses an update that breaks a rule, and keeps the CRD as it was', async () => {
    const good = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.n >= 0' }],
      properties: { n: { type: 'integer' } },
    };
    const made = await post(crd('updates', good));
    expect(made.status, made.text).toBe(201);
    const name = made.body.metadata.name;
    // the CRD controller writes status until Established: update the established one
    const established = await waitFor(`${String(name)} Established`, async () => {
      const g = await call(b.cluster.url, 'GET', `${CRDS}/${name}`, opts());
      const conditions: any[] = g.body.status?.conditions ?? [];
      return conditions.some((c) => c.type === 'Established' && c.status === 'True') ? g.body : undefined;
    });
    const broken = structuredClone(established);
    broken.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [
      { rule: 'self.n >=' },
    ];
    const r = await call(b.cluster.url, 'PUT', `${CRDS}/${name}`, opts(broken));
    expect(r.status, r.text).toBe(422);
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
        message: expect.stringMatching(compileFailed('self.n >=')),
      },
    ]);
    const now = await call(b.cluster.url, 'GET', `${CRDS}/${name}`, opts());
    expect(
      now.body.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'],
    ).toEqual([{ rule: 'self.n >= 0' }]);
  });

  it('type-checks rules against the schema: an undefined field, wrong operand types, not a bool', async () => {
    const r = await post(
      crd('typeds', {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.nope == 1' }, { rule: 'self.s == 1' }, { rule: 'self.s' }],
        properties: { s: { type: 'string' }, o: { type: 'object', properties: { n: { type: 'integer' } } } },
      }),
    );
    expect(r.status, r.text).toBe(422);
    const at = (i: number) =>
      `spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[${String(i)}].rule`;
    expect(sorted(r.body.details.causes)).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: at(0),
        message: expect.stringMatching(compileFailed('self.nope == 1')),
      },
      {
        reason: 'FieldValueInvalid',
        field: at(1),
        message: expect.stringMatching(compileFailed('self.s == 1')),
      },
      {
        reason: 'FieldValueInvalid',
        field: at(2),
        message:
          'Invalid value: apiextensions.ValidationRule{Rule:"self.s", Message:""}: cel expression must evaluate to a bool',
      },
    ]);
    // cel-go's words, on both servers (the real one adds position and caret)
    expect(sorted(r.body.details.causes)[0].message).toContain("undefined field 'nope'");
    expect(sorted(r.body.details.causes)[1].message).toContain(
      "found no matching overload for '_==_' applied to '(string, int)'",
    );
  });

  it('accepts well-typed rules: nested objects, lists, maps, int-or-string, a resource root', async () => {
    const r = await post({
      ...crd('welltypeds', {
        type: 'object',
        'x-kubernetes-validations': [
          { rule: 'self.o.n >= 0 && self.l.all(x, x.startsWith("a")) && self.m.all(k, self.m[k] > 0)' },
          { rule: "type(self.ios) == string ? self.ios.endsWith('%') : self.ios >= 0" },
          { rule: 'has(self.o) && self.o.n == oldSelf.o.n' },
          { rule: "self.t > timestamp('2000-01-01T00:00:00Z') && size(self.b) < 10" },
        ],
        properties: {
          o: { type: 'object', properties: { n: { type: 'integer' } } },
          l: { type: 'array', items: { type: 'string' } },
          m: { type: 'object', additionalProperties: { type: 'integer' } },
          ios: { 'x-kubernetes-int-or-string': true },
          t: { type: 'string', format: 'date-time' },
          b: { type: 'string', format: 'byte' },
        },
      }),
    });
    expect(r.status, r.text).toBe(201);
    const name = r.body.metadata.name;
    const root = structuredClone(r.body);
    root.metadata = { name, resourceVersion: r.body.metadata.resourceVersion };
    root.spec.versions[0].schema.openAPIV3Schema['x-kubernetes-validations'] = [
      { rule: "self.metadata.name.startsWith('w') && self.kind == 'Welltyped' && self.apiVersion != ''" },
      { rule: 'self.spec.o.n == 1' },
    ];
    delete root.status;
    const u = await waitFor('the CRD updated with root rules', async () => {
      const g = await call(b.cluster.url, 'GET', `${CRDS}/${name}`, opts());
      const next = structuredClone(root);
      next.metadata.resourceVersion = g.body.metadata.resourceVersion;
      const put = await call(b.cluster.url, 'PUT', `${CRDS}/${name}`, opts(next));
      return put.status === 409 ? undefined : put;
    });
    expect(u.status, u.text).toBe(200);
  });
});
