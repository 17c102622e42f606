/**
 * The part of a CRD's structural schema CEL needs, and the conversion of JSON values to CEL values
 * by their schema (`apiextensions-apiserver/pkg/apiserver/schema/cel/model`): `integer` → int,
 * `number` → double, `date-time` strings → timestamp, `byte` strings → bytes, property names
 * escaped (`__dash__`, `__dot__`, `__slash__`, `__underscores__`, `__<keyword>__`); at a resource
 * root only `apiVersion`, `kind`, `metadata.name` and `metadata.generateName`.
 *
 * @module
 */

/**
 * A CRD validation rule (`x-kubernetes-validations` item).
 *
 * ## Example
 * ```ts
 * import type { ValidationRule } from '@rxkube/cel';
 *
 * const rule: ValidationRule = { rule: 'self.minReplicas <= self.replicas', message: 'replicas must be at least minReplicas' };
 * ```
 */
export interface ValidationRule {
  /** The CEL expression; `self` is the value at this node, `oldSelf` the old one (a transition rule). */
  rule: string;
  /** The message when the rule is false (default `failed rule: <rule>`). */
  message?: string;
  /** A CEL expression for the message (Kubernetes 1.27+). */
  messageExpression?: string;
  /** `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate` (1.28+). */
  reason?: string;
  /** A path relative to this node the error is reported at, e.g. `.spec.replicas` (1.28+). */
  fieldPath?: string;
  /** Evaluate the transition rule also when there is no old value (1.30+; not emulated: refused). */
  optionalOldSelf?: boolean;
}

/**
 * The structural OpenAPI v3 schema of a CRD version, as far as CEL reads it.
 *
 * ## Example
 * ```ts
 * import type { CelSchema } from '@rxkube/cel';
 *
 * const schema: CelSchema = {
 *   type: 'object',
 *   properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.min <= self.max' }], properties: { min: { type: 'integer' }, max: { type: 'integer' } } } },
 * };
 * ```
 */
export interface CelSchema {
  type?: string;
  format?: string;
  properties?: Record<string, CelSchema>;
  additionalProperties?: boolean | CelSchema;
  items?: CelSchema;
  allOf?: CelSchema[];
  'x-kubernetes-validations'?: ValidationRule[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  [key: string]: unknown;
}

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** Kubernetes' `cel.Escape` of a property name; `undefined` when it cannot be accessed from CEL. */
export function escapeProperty(name: string): string | undefined {
  if (name.length === 0 || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (/[^a-zA-Z0-9_./-]/.test(name)) return undefined;
  return name.replace(/__|[-./]/g, (s) =>
    s === '__' ? '__underscores__' : s === '.' ? '__dot__' : s === '-' ? '__dash__' : '__slash__',
  );
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An untyped JSON value as CEL sees `dyn`: integral numbers are ints. */
function untyped(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(untyped);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = untyped(x);
    return out;
  }
  return v;
}

/** The CEL value of a JSON value by its schema (`root`: a resource root or embedded resource). */
export function toCel(value: unknown, schema: CelSchema | undefined, root = false): unknown {
  if (value === null || value === undefined) return null;
  if (!schema) return untyped(value);
  if (schema['x-kubernetes-int-or-string'] === true) return untyped(value);
  switch (schema.type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : untyped(value);
    case 'number':
      return typeof value === 'number' ? value : untyped(value);
    case 'string':
      if (typeof value !== 'string') return untyped(value);
      if (schema.format === 'date-time') {
        const d = new Date(value);
        return Number.isNaN(d.getTime()) ? value : d;
      }
      if (schema.format === 'byte') return Uint8Array.from(Buffer.from(value, 'base64'));
      return value;
    case 'array':
      return Array.isArray(value) ? value.map((x) => toCel(x, schema.items)) : untyped(value);
    case 'object':
    default:
      if (!isObject(value)) return untyped(value);
      return objectToCel(value, schema, root || schema['x-kubernetes-embedded-resource'] === true);
  }
}

function objectToCel(
  value: Record<string, unknown>,
  schema: CelSchema,
  root: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (schema.properties) {
    for (const [k, s] of Object.entries(schema.properties)) {
      if (!(k in value)) continue;
      const name = escapeProperty(k);
      if (name !== undefined) out[name] = toCel(value[k], s);
    }
  } else if (isObject(schema.additionalProperties)) {
    for (const [k, x] of Object.entries(value)) out[k] = toCel(x, schema.additionalProperties);
  } else if (schema['x-kubernetes-preserve-unknown-fields'] === true && schema.type === undefined) {
    return untyped(value) as Record<string, unknown>;
  }
  if (root) {
    if (typeof value['apiVersion'] === 'string') out['apiVersion'] = value['apiVersion'];
    if (typeof value['kind'] === 'string') out['kind'] = value['kind'];
    const meta = value['metadata'];
    if (isObject(meta)) {
      const m: Record<string, unknown> = {};
      if (typeof meta['name'] === 'string') m['name'] = meta['name'];
      if (typeof meta['generateName'] === 'string') m['generateName'] = meta['generateName'];
      out['metadata'] = m;
    }
  }
  return out;
}

/** `toCel` for an object with no schema (admission policies): integral numbers are ints. */
export function toCelUntyped(value: unknown): unknown {
  return value === undefined ? null : untyped(value);
}
