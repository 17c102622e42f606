import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { exchange, loadTranscript } from '../replay/transcripts.js';
import type { FieldCause } from './names.js';
import {
  applySchemaDefaults,
  pruneUnknownFields,
  validateAgainstSchema,
  type JSONSchemaProps,
} from './schema.js';

const t12 = loadTranscript('12');
const t10 = loadTranscript('10');
interface Crd {
  spec: { versions: { schema: { openAPIV3Schema: JSONSchemaProps } }[] };
}
const widgetSchema = (exchange(t12, 'create the CRD').request.body as Crd).spec.versions[0]?.schema
  .openAPIV3Schema as JSONSchemaProps;
const causesOf = (body: unknown): FieldCause[] =>
  (body as { details: { causes: FieldCause[] } }).details.causes;

describe('validateAgainstSchema against the 12 and 10 transcripts', () => {
  it.each([
    [t12, 'create a Widget that violates the schema'],
    [t12, 'create a Widget without the required spec.size'],
  ])('%#: %s', (t, label) => {
    const ex = exchange(t, label);
    expect(validateAgainstSchema(ex.request.body, widgetSchema)).toEqual(causesOf(ex.response?.body));
  });

  it('a merge patch that sets size 0 is rejected with the same cause (10)', () => {
    const ex = exchange(t10, 'merge patch violating the schema');
    const patched = { spec: { color: 'blue', size: 0 } };
    expect(validateAgainstSchema(patched, widgetSchema)).toEqual(causesOf(ex.response?.body));
  });

  it('every Widget the real server accepted is valid', () => {
    for (const ex of t12.exchanges) {
      const body = ex.response?.body as { kind?: string } | undefined;
      if (ex.response?.status === 201 && body?.kind === 'Widget') {
        expect(validateAgainstSchema(body, widgetSchema)).toEqual([]);
      }
    }
  });
});

describe('validateAgainstSchema', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        required: ['replicas'],
        properties: {
          replicas: { type: 'integer', minimum: 0, maximum: 10, exclusiveMaximum: true },
          mode: { type: 'string', enum: ['a', 'b'] },
          name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
          when: { type: 'string', format: 'date-time' },
          port: { 'x-kubernetes-int-or-string': true },
          tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string' } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          note: { type: 'string', nullable: true },
          ratio: { type: 'number' },
          on: { type: 'boolean' },
        },
      },
    },
  };
  const v = (spec: unknown): FieldCause[] => validateAgainstSchema({ spec }, schema);

  it('reports a wrong type like kube-openapi', () => {
    expect(v({ replicas: 'string' })).toEqual([
      {
        reason: 'FieldValueTypeInvalid',
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        field: 'spec.replicas',
      },
    ]);
    expect(v({ replicas: 1.5 })[0]?.message).toBe(
      'Invalid value: "number": spec.replicas in body must be of type integer: "number"',
    );
    expect(validateAgainstSchema({ spec: 'x' }, schema)[0]?.message).toBe(
      'Invalid value: "string": spec in body must be of type object: "string"',
    );
  });

  it('reports required, bounds, enum, lengths, pattern, format and list sizes', () => {
    expect(v({})).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.replicas' },
    ]);
    expect(v({ replicas: 10 })[0]?.message).toBe(
      'Invalid value: 10: spec.replicas in body should be less than 10',
    );
    expect(v({ replicas: -1 })[0]?.message).toBe(
      'Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    );
    expect(v({ replicas: 1, mode: 'c' })).toEqual([
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "c": supported values: "a", "b"',
        field: 'spec.mode',
      },
    ]);
    expect(v({ replicas: 1, name: 'abcde' })).toEqual([
      { reason: 'FieldValueTooLong', message: 'Too long: may not be longer than 4', field: 'spec.name' },
    ]);
    expect(v({ replicas: 1, name: 'a' })[0]?.message).toBe(
      'Invalid value: "a": spec.name in body should be at least 2 chars long',
    );
    expect(v({ replicas: 1, name: 'AB' })[0]?.message).toBe(
      `Invalid value: "AB": spec.name in body should match '^[a-z]+$'`,
    );
    expect(v({ replicas: 1, when: 'soon' })[0]).toEqual({
      reason: 'FieldValueTypeInvalid',
      message: 'Invalid value: "soon": spec.when in body must be of type date-time: "soon"',
      field: 'spec.when',
    });
    expect(v({ replicas: 1, tags: [] })[0]?.message).toBe(
      'Invalid value: 0: spec.tags in body should have at least 1 items',
    );
    expect(v({ replicas: 1, tags: ['a', 'b', 'c'] })[0]).toEqual({
      reason: 'FieldValueTooMany',
      message: 'Too many: 3: must have at most 2 items',
      field: 'spec.tags',
    });
    expect(v({ replicas: 1, tags: [1] })[0]?.field).toBe('spec.tags[0]');
    expect(v({ replicas: 1, labels: { a: 1 } })[0]?.field).toBe('spec.labels.a');
  });

  it('accepts valid values, int-or-string, nullable and any integer as a number', () => {
    expect(
      v({
        replicas: 3,
        mode: 'a',
        name: 'ab',
        when: '2026-11-22T06:23:23Z',
        port: 'http',
        tags: ['x'],
        labels: { a: 'b' },
        note: null,
        ratio: 2,
        on: false,
        unknown: { anything: true },
      }),
    ).toEqual([]);
    expect(v({ replicas: 1, port: 8080 })).toEqual([]);
    expect(v({ replicas: 1, port: 1.5 })[0]?.message).toBe(
      'Invalid value: "number": spec.port in body must be of type integer,string: "number"',
    );
    expect(v({ replicas: 1, ratio: null })[0]?.message).toBe(
      'Invalid value: "null": spec.ratio in body must be of type number: "null"',
    );
  });
});

describe('pruneUnknownFields', () => {
  it('drops spec.extra like the real server did (12)', () => {
    const ex = exchange(t12, 'create a Widget with an unknown field');
    const pruned = pruneUnknownFields(ex.request.body, widgetSchema) as Record<string, unknown>;
    const stored = ex.response?.body as Record<string, unknown>;
    expect(pruned.spec).toEqual(stored.spec);
    expect(pruned.metadata).toEqual(ex.request.body && (ex.request.body as { metadata: unknown }).metadata);
    expect(pruned.apiVersion).toBe('example.com/v1');
    expect(pruned.kind).toBe('Widget');
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields but still prunes known properties', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'object', properties: { a: { type: 'string' } } } },
        },
        status: { type: 'object' },
      },
    };
    const out = pruneUnknownFields(
      { spec: { free: { x: 1 }, known: { a: 'x', b: 'dropped' } }, status: { gone: 1 }, top: 1 },
      schema,
    );
    expect(out).toEqual({ spec: { free: { x: 1 }, known: { a: 'x' } }, status: {} });
  });

  it('keeps apiVersion/kind/metadata of embedded resources and prunes list items and map values', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } },
            },
            items: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
            byName: {
              type: 'object',
              additionalProperties: { type: 'object', properties: { a: { type: 'string' } } },
            },
          },
        },
      },
    };
    const out = pruneUnknownFields(
      {
        spec: {
          template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { n: 1, m: 2 }, x: 1 },
          items: [{ a: 'a', b: 'b' }],
          byName: { one: { a: 'a', b: 'b' } },
        },
      },
      schema,
    );
    expect(out).toEqual({
      spec: {
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { n: 1 } },
        items: [{ a: 'a' }],
        byName: { one: { a: 'a' } },
      },
    });
  });

  it('is idempotent and never adds fields (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('spec', 'status', 'other', 'kind'), fc.jsonValue()),
        (obj) => {
          const once = pruneUnknownFields(obj, widgetSchema);
          expect(pruneUnknownFields(once, widgetSchema)).toEqual(once);
          for (const key of Object.keys(once as object)) expect(Object.keys(obj)).toContain(key);
        },
      ),
    );
  });
});

describe('applySchemaDefaults', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          replicas: { type: 'integer', default: 1 },
          mode: { type: 'string', default: 'auto', nullable: true },
          ports: {
            type: 'array',
            items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } },
          },
        },
      },
    },
  };

  it('fills absent fields recursively, including inside defaults, lists and null non-nullables', () => {
    expect(applySchemaDefaults({}, schema)).toEqual({ spec: { replicas: 1, mode: 'auto' } });
    expect(applySchemaDefaults({ spec: { replicas: null, mode: null, ports: [{}] } }, schema)).toEqual({
      spec: { replicas: 1, mode: null, ports: [{ protocol: 'TCP' }] },
    });
    expect(applySchemaDefaults({ spec: { replicas: 3 } }, schema)).toEqual({
      spec: { replicas: 3, mode: 'auto' },
    });
  });

  it('does not mutate its input or share the default object', () => {
    const input = { spec: { ports: [{}] } };
    const a = applySchemaDefaults(input, schema) as { spec: object };
    const b = applySchemaDefaults({}, schema) as { spec: object };
    expect(input).toEqual({ spec: { ports: [{}] } });
    expect(a.spec).not.toBe(b.spec);
    expect(schema.properties?.spec?.default).toEqual({});
  });
});
