/**
 * Structural OpenAPI v3 schemas of CustomResourceDefinitions: validation with the causes and
 * messages kube-apiserver v1.24 produces (kube-openapi's `SchemaValidator` as reported by
 * `apiextensions-apiserver`), pruning of unknown fields and defaulting.
 *
 * CEL rules (`x-kubernetes-validations`) run beside this, in `../cel-validation.ts`.
 * Not emulated: `allOf`/`anyOf`/`oneOf`/`not`,
 * `uniqueItems`, `minProperties`/`maxProperties`, list-map key uniqueness.
 *
 * @module
 */
import type { JSONSchemaProps } from '@rxkube/wire';

import { clone, isObject, jsonTypeName, type JsonObject } from '../apply/json-value.js';
import { goQuote, goValue, invalidCause, requiredCause, type FieldCause } from './names.js';

export type { FieldCause } from './names.js';

// The schema is @rxkube/wire's, shared with the client (@rxkube/kube/crd).
export type { JSONSchemaProps } from '@rxkube/wire';

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Go `%v` of a float64/int64 limit as kube-openapi prints it. */
function goNumber(n: number): string {
  return String(n);
}

/** `strconv.Quote` per value, as `field.NotSupported` lists them. */
function supportedValues(values: readonly unknown[]): string {
  return values.map((v) => goQuote(typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
}

const uuid = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const dateTime =
  /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$|^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2})?(\.\d+)?$/;
const date = /^\d{4}-\d{2}-\d{2}$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const ipv4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const hostname =
  /^(?=.{1,255}$)[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*\.?$/;

/** The string formats kube-openapi checks; unknown formats pass (as in the real server). */
function formatOk(format: string, value: string): boolean {
  switch (format) {
    case 'date-time':
      return dateTime.test(value) && !Number.isNaN(Date.parse(value.replace(' ', 'T')));
    case 'date':
      return date.test(value) && !Number.isNaN(Date.parse(value));
    case 'uuid':
      return uuid.test(value);
    case 'byte':
      return base64.test(value);
    case 'ipv4':
      return ipv4.test(value);
    case 'ipv6':
      return value.includes(':') && /^[0-9a-fA-F:.]+$/.test(value);
    case 'hostname':
      return hostname.test(value);
    case 'email':
      return /^[^@\s]+@[^@\s]+$/.test(value);
    default:
      return true;
  }
}

function typeMatches(schema: JSONSchemaProps, value: unknown): boolean {
  if (schema['x-kubernetes-int-or-string'] === true) {
    return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  }
  switch (schema.type) {
    case undefined:
    case '':
      return true;
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

function join(path: string, child: string): string {
  return path === '' ? child : `${path}.${child}`;
}

class Validator {
  readonly causes: FieldCause[] = [];

  validate(value: unknown, schema: JSONSchemaProps, name: string): void {
    if (value === null && schema.nullable === true) return;
    if (value === null || !typeMatches(schema, value)) {
      const expected = schema['x-kubernetes-int-or-string'] === true ? 'integer,string' : (schema.type ?? '');
      const actual = jsonTypeName(value);
      this.causes.push({
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: ${goQuote(actual)}: ${name} in body must be of type ${expected}: ${goQuote(actual)}`,
        field: name,
      });
      return;
    }
    if (schema.enum !== undefined && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
      this.causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${goValue(value)}: supported values: ${supportedValues(schema.enum)}`,
        field: name,
      });
    }
    if (typeof value === 'number') this.number(value, schema, name);
    else if (typeof value === 'string') this.string(value, schema, name);
    else if (Array.isArray(value)) this.array(value, schema, name);
    else if (isObject(value)) this.object(value, schema, name);
  }

  // go-openapi's numberValidator: multipleOf, maximum, minimum, each reported
  private number(value: number, schema: JSONSchemaProps, name: string): void {
    if (schema.multipleOf !== undefined && schema.multipleOf > 0) {
      const q = value / schema.multipleOf;
      if (Math.abs(q - Math.round(q)) > 1e-9) {
        this.causes.push(
          invalidCause(name, value, `${name} in body should be a multiple of ${goNumber(schema.multipleOf)}`),
        );
      }
    }
    if (schema.maximum !== undefined) {
      const exclusive = schema.exclusiveMaximum === true;
      if (exclusive ? value >= schema.maximum : value > schema.maximum) {
        const rel = exclusive ? 'less than' : 'less than or equal to';
        this.causes.push(
          invalidCause(name, value, `${name} in body should be ${rel} ${goNumber(schema.maximum)}`),
        );
      }
    }
    if (schema.minimum !== undefined) {
      const exclusive = schema.exclusiveMinimum === true;
      if (exclusive ? value <= schema.minimum : value < schema.minimum) {
        const rel = exclusive ? 'greater than' : 'greater than or equal to';
        this.causes.push(
          invalidCause(name, value, `${name} in body should be ${rel} ${goNumber(schema.minimum)}`),
        );
      }
    }
  }

  // go-openapi's stringValidator stops at its first failure: maxLength, minLength, pattern
  private string(value: string, schema: JSONSchemaProps, name: string): void {
    const length = [...value].length;
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      this.causes.push({
        reason: 'FieldValueTooLong',
        message: `Too long: may not be longer than ${schema.maxLength}`,
        field: name,
      });
    } else if (schema.minLength !== undefined && length < schema.minLength) {
      this.causes.push(
        invalidCause(name, value, `${name} in body should be at least ${schema.minLength} chars long`),
      );
    } else if (schema.pattern !== undefined && !safeRegExp(schema.pattern).test(value)) {
      this.causes.push(invalidCause(name, value, `${name} in body should match '${schema.pattern}'`));
    }
    if (schema.format !== undefined && !formatOk(schema.format, value)) {
      this.causes.push({
        reason: 'FieldValueTypeInvalid',
        message: `Invalid value: ${goQuote(value)}: ${name} in body must be of type ${schema.format}: ${goQuote(value)}`,
        field: name,
      });
    }
  }

  private array(value: unknown[], schema: JSONSchemaProps, name: string): void {
    const items = schema.items;
    if (items !== undefined) value.forEach((item, i) => this.validate(item, items, `${name}[${i}]`));
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      this.causes.push(
        invalidCause(name, value.length, `${name} in body should have at least ${schema.minItems} items`),
      );
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      this.causes.push({
        reason: 'FieldValueTooMany',
        message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
        field: name,
      });
    }
  }

  private object(value: JsonObject, schema: JSONSchemaProps, name: string): void {
    for (const key of schema.required ?? []) {
      if (!own(value, key)) this.causes.push(requiredCause(join(name, key)));
    }
    const properties = schema.properties ?? {};
    for (const [key, sub] of Object.entries(properties)) {
      if (own(value, key)) this.validate(value[key], sub, join(name, key));
    }
    const additional = schema.additionalProperties;
    if (isObject(additional)) {
      for (const [key, v] of Object.entries(value)) {
        if (!own(properties, key)) this.validate(v, additional, join(name, key));
      }
    }
  }
}

const regexCache = new Map<string, RegExp>();

/** Compiles an ECMA-262 pattern once; an invalid pattern matches nothing rather than crashing. */
function safeRegExp(pattern: string): RegExp {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = /(?!)/;
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(pattern, re);
  }
  return re;
}

/**
 * Validates a (pruned, defaulted) custom resource against its CRD schema.
 *
 * ## Example
 * ```ts
 * import type { JSONSchemaProps } from '@rxkube/testing/validation';
 * const widgetSchema: JSONSchemaProps = {
 *   type: 'object',
 *   properties: {
 *     spec: { type: 'object', required: ['size'], properties: { size: { type: 'integer', minimum: 1 }, color: { type: 'string' } } },
 *   },
 * };
 * validateAgainstSchema({ spec: { size: 0 } }, widgetSchema);
 * // [{ reason: 'FieldValueInvalid', field: 'spec.size',
 * //    message: 'Invalid value: 0: spec.size in body should be greater than or equal to 1' }]
 * validateAgainstSchema({ spec: { color: 'red' } }, widgetSchema);
 * // [{ reason: 'FieldValueRequired', field: 'spec.size', message: 'Required value' }]
 * ```
 *
 * ## Semantics
 * Per node: type first (`Invalid value: "string": spec.replicas in body must be of type integer:
 * "string"`, reason `FieldValueTypeInvalid`; a wrong type stops the checks below that node),
 * then `enum` (`FieldValueNotSupported`), then the checks of the value's kind: `multipleOf`,
 * `maximum`/`minimum` (with `exclusive*`), the first failing of `maxLength` (`FieldValueTooLong`),
 * `minLength` and `pattern`,
 * `format`, `items` (`spec.list[0]`), `minItems`, `maxItems` (`FieldValueTooMany`), `required`
 * (`FieldValueRequired`), `properties`, `additionalProperties`. `null` is allowed only where
 * `nullable: true`. Unknown fields are not errors (they are pruned, see {@link pruneUnknownFields}).
 *
 * @param value the object (usually the whole custom resource).
 * @param schema the version's `openAPIV3Schema`.
 * @param path the field path of `value` (`''` for the root, the default).
 * @returns the causes in order; empty when valid.
 */
export function validateAgainstSchema(value: unknown, schema: JSONSchemaProps, path = ''): FieldCause[] {
  const validator = new Validator();
  validator.validate(value, schema, path);
  return validator.causes;
}

const ROOT_FIELDS = ['apiVersion', 'kind', 'metadata'];

function prune(value: unknown, schema: JSONSchemaProps | undefined, keepTypeMeta: boolean): unknown {
  if (schema === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => prune(item, schema.items, false));
  if (!isObject(value)) return value;
  const preserve =
    schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  const keepMeta = keepTypeMeta || schema['x-kubernetes-embedded-resource'] === true;
  const properties = schema.properties;
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = properties?.[key];
    if (sub !== undefined && properties !== undefined && own(properties, key)) {
      out[key] = keepMeta && key === 'metadata' ? clone(v) : prune(v, sub, false);
    } else if (keepMeta && ROOT_FIELDS.includes(key)) {
      out[key] = clone(v);
    } else if (additional !== undefined) {
      out[key] = prune(v, additional, false);
    } else if (preserve) {
      out[key] = clone(v);
    }
  }
  return out;
}

/**
 * Structural pruning: drops every field the schema does not specify, like the apiserver does for
 * custom resources on create, update and patch.
 *
 * ## Example
 * ```ts
 * import type { JSONSchemaProps } from '@rxkube/testing/validation';
 * const widgetSchema: JSONSchemaProps = {
 *   type: 'object',
 *   properties: {
 *     spec: { type: 'object', required: ['size'], properties: { size: { type: 'integer', minimum: 1 }, color: { type: 'string' } } },
 *   },
 * };
 * pruneUnknownFields({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' },
 *   spec: { size: 1, extra: 'dropped' } }, widgetSchema);
 * // { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } }
 * ```
 *
 * ## Semantics
 * `apiVersion`, `kind` and `metadata` are kept at the root and in
 * `x-kubernetes-embedded-resource` objects; `x-kubernetes-preserve-unknown-fields: true` keeps
 * unknown fields of that object (its known properties are still pruned); `additionalProperties`
 * schemas prune map values; `items` prune list elements. Returns a new value.
 *
 * @param value the object to prune (not mutated).
 * @param schema the version's `openAPIV3Schema`.
 */
export function pruneUnknownFields(value: unknown, schema: JSONSchemaProps): unknown {
  return prune(value, schema, true);
}

function defaults(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (schema === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => defaults(item, schema.items));
  if (!isObject(value)) return value;
  const out: JsonObject = { ...value };
  const properties = schema.properties ?? {};
  for (const [key, sub] of Object.entries(properties)) {
    const missing = !own(out, key) || (out[key] === null && sub.nullable !== true);
    if (missing && own(sub, 'default')) out[key] = clone(sub.default);
    if (own(out, key)) out[key] = defaults(out[key], sub);
  }
  const additional = schema.additionalProperties;
  if (isObject(additional)) {
    for (const key of Object.keys(out)) if (!own(properties, key)) out[key] = defaults(out[key], additional);
  }
  return out;
}

/**
 * Applies the schema's `default`s: a property that is absent (or `null` where not nullable) gets
 * its default, then defaulting continues inside it, down lists and maps.
 *
 * ## Example
 * ```ts
 * applySchemaDefaults({ spec: {} }, { type: 'object', properties: { spec: { type: 'object',
 *   properties: { replicas: { type: 'integer', default: 1 } } } } }); // { spec: { replicas: 1 } }
 * ```
 *
 * @param value the object (not mutated; a new value is returned).
 * @param schema the version's `openAPIV3Schema`.
 */
export function applySchemaDefaults(value: unknown, schema: JSONSchemaProps): unknown {
  return clone(defaults(value, schema));
}
