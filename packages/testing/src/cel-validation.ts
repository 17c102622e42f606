/**
 * CRD `x-kubernetes-validations` on every write of a custom resource, as kube-apiserver's
 * customresource strategy runs them (create, update, patch, the status subresource): after the
 * schema's own checks, skipped with one cause when those found a blocking error
 * (`hasBlockingErr`), evaluated by `@rxkube/cel`, compiled once per schema.
 *
 * @module
 */
import { CelUnsupportedError, compileValidations, type CompiledValidations } from '@rxkube/cel';

import type { ResourceType } from './registry/types.js';
import type { StatusCause } from './status.js';
import type { KObj } from './store/object.js';

const compiled = new WeakMap<object, CompiledValidations | null>();

const BLOCKING = new Set([
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

function validationsOf(type: ResourceType): CompiledValidations | null {
  const schema = type.schema;
  if (!schema) return null;
  let c = compiled.get(schema);
  if (c !== undefined) return c;
  c = JSON.stringify(schema).includes('"x-kubernetes-validations"')
    ? compileValidations(
        {
          spec: {
            group: type.group,
            names: { kind: type.kind, plural: type.resource },
            versions: [{ name: type.version, schema: { openAPIV3Schema: schema } }],
          },
        },
        { compileErrors: 'report' },
      )
    : null;
  compiled.set(schema, c);
  return c;
}

/**
 * The causes of a custom resource's CEL rules for a write (`old` for an update), given the causes
 * found so far; `[]` for a type without rules.
 */
export function celCauses(
  type: ResourceType,
  obj: KObj,
  old: KObj | undefined,
  prior: readonly StatusCause[],
): StatusCause[] {
  if (type.builtin) return [];
  try {
    return causesOf(type, obj, old, prior);
  } catch (e) {
    if (!(e instanceof CelUnsupportedError)) throw e;
    // fail closed: the write is refused, naming what is not emulated
    return [{ reason: 'InternalError', field: '<nil>', message: `Internal error: ${e.message}` }];
  }
}

function causesOf(
  type: ResourceType,
  obj: KObj,
  old: KObj | undefined,
  prior: readonly StatusCause[],
): StatusCause[] {
  const v = validationsOf(type);
  if (!v) return [];
  if (prior.some((c) => BLOCKING.has(c.reason ?? '')))
    return [
      {
        reason: 'FieldValueInvalid',
        field: '<nil>',
        message:
          'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      },
    ];
  const withVersion = { ...obj, apiVersion: `${type.group}/${type.version}` };
  return v
    .validate(withVersion, old && { ...old, apiVersion: withVersion.apiVersion })
    .map((e) => ({ reason: e.reason, message: e.message, field: e.field }));
}
