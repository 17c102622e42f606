/**
 * CRD `x-kubernetes-validations` on every write of a custom resource, as kube-apiserver's
 * customresource strategy runs them (create, update, patch, the status subresource): after the
 * schema's own checks, skipped with one cause when those found a blocking error
 * (`hasBlockingErr`), evaluated by `@rxkube/cel`, compiled once per schema; and, when a CRD is
 * written, the causes of its rules that do not compile ({@link celCrdCauses}).
 *
 * The runtime cost budget (per rule and per object) is `@rxkube/cel`'s, as kube-apiserver's; the
 * estimated cost checked when a CRD is written is `@rxkube/cel/estimate`'s (cel-go v0.10.1's
 * estimator, kube-apiserver v1.24's limits and messages).
 *
 * @module
 */
import {
  CelCompileError,
  CelUnsupportedError,
  compileValidations,
  type CompiledValidations,
} from '@rxkube/cel';
import { estimatedCostCauses } from '@rxkube/cel/estimate';

import type { ResourceType } from './registry/types.js';
import type { StatusCause } from './status.js';
import { deepEqual, isObject, type KObj } from './store/object.js';

const compiled = new WeakMap<object, CompiledValidations | null>();

/** kube-apiserver's reason for a rule that is not a bool: not prefixed `compilation failed: `. */
const NOT_BOOL = 'cel expression must evaluate to a bool';

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

/** Go's `strconv.Quote` (what `%#v` prints for a string). */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** `schema` without the rules of its own and of its descendants (deep copy). */
function withoutRules(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutRules);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) if (k !== 'x-kubernetes-validations') out[k] = withoutRules(v);
  return out;
}

/**
 * The compiler's reason when `rule` does not compile at its schema node (typed by the node, as
 * kube-apiserver compiles it; `root`: the resource root); `undefined` when it does.
 */
function compileFailure(rule: string, schema: Record<string, unknown>, root: boolean): string | undefined {
  const node = {
    ...(withoutRules(schema) as Record<string, unknown>),
    'x-kubernetes-validations': [{ rule }],
  };
  // a nested node is compiled as a property of a root, so `self` is not given a resource's fields
  const openAPIV3Schema = root ? node : { type: 'object', properties: { node } };
  try {
    compileValidations({
      spec: {
        group: 'cel.check',
        names: { kind: 'Check', plural: 'checks' },
        versions: [{ name: 'v1', schema: { openAPIV3Schema } }],
      },
    });
    return undefined;
  } catch (e) {
    if (e instanceof CelCompileError) return e.reason;
    // what @rxkube/cel cannot evaluate (an RE2-only pattern) fails closed on each write instead
    if (e instanceof CelUnsupportedError) return undefined;
    throw e;
  }
}

const embedded = (s: unknown): boolean => isObject(s) && s['x-kubernetes-embedded-resource'] === true;

/** The rules of each schema node that did not compile (found by `schemaCauses`). */
type Failed = WeakMap<object, Set<string>>;

function schemaCauses(
  schema: unknown,
  path: string,
  causes: StatusCause[],
  failed: Failed,
  root = false,
): void {
  if (!isObject(schema)) return;
  // children first, as kube-apiserver v1.24 lists them (fixtures README)
  const props = schema['properties'];
  if (isObject(props))
    for (const [k, s] of Object.entries(props))
      schemaCauses(s, `${path}.properties[${k}]`, causes, failed, embedded(s));
  schemaCauses(schema['items'], `${path}.items`, causes, failed, embedded(schema['items']));
  const ap = schema['additionalProperties'];
  schemaCauses(ap, `${path}.additionalProperties`, causes, failed, embedded(ap));
  const rules = schema['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return;
  rules.forEach((r: unknown, i) => {
    const field = `${path}.x-kubernetes-validations[${String(i)}].rule`;
    const rule = isObject(r) && typeof r['rule'] === 'string' ? r['rule'] : '';
    const message = isObject(r) && typeof r['message'] === 'string' ? r['message'] : '';
    if (rule === '') {
      causes.push({ reason: 'FieldValueRequired', message: 'Required value: rule is not specified', field });
      return;
    }
    const failure = compileFailure(rule, schema, root);
    if (failure === undefined) return;
    let rulesOfNode = failed.get(schema);
    if (rulesOfNode === undefined) failed.set(schema, (rulesOfNode = new Set()));
    rulesOfNode.add(rule);
    const detail = failure === NOT_BOOL ? failure : `compilation failed: ${failure}`;
    causes.push({
      reason: 'FieldValueInvalid',
      // the value is Go's %#v of apiextensions.ValidationRule (1.24: Rule and Message)
      message: `Invalid value: apiextensions.ValidationRule{Rule:${goQuote(rule)}, Message:${goQuote(message)}}: ${detail}`,
      field,
    });
  });
}

/**
 * The causes of a CRD's `x-kubernetes-validations` rules that do not compile, as kube-apiserver
 * v1.24 refuses the CRD on create and update (422): `Required value: rule is not specified`, or
 * `Invalid value: apiextensions.ValidationRule{…}: compilation failed: <compiler's message>` at
 * `….x-kubernetes-validations[i].rule`. The schema is under `spec.validation.openAPIV3Schema`
 * when every version has the same one (the internal version hoists it), else under
 * `spec.versions[i].schema.openAPIV3Schema`. Each rule is type-checked against its schema node
 * (`cel expression must evaluate to a bool` for another result type). The compiler's message is
 * `@rxkube/cel`'s, not cel-go's (fixtures README, "Not emulated"). The rules that compile are
 * then estimated: `Forbidden: estimated rule cost exceeds budget by factor of …` for a rule, and
 * for a schema whose rules add up to too much, its dearest rules and the schema itself.
 */
export function celCrdCauses(crd: KObj): StatusCause[] {
  const spec = isObject(crd['spec']) ? crd['spec'] : {};
  const versions = (Array.isArray(spec['versions']) ? spec['versions'] : []).filter(isObject);
  const schemaOf = (v: Record<string, unknown>): unknown =>
    isObject(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
  const causes: StatusCause[] = [];
  const first = versions[0];
  if (first === undefined) return causes;
  const check = (schema: unknown, path: string): void => {
    const failed: Failed = new WeakMap();
    schemaCauses(schema, path, causes, failed, true);
    if (!isObject(schema)) return;
    // the estimated cost of the rules that compile (kube-apiserver v1.24, StaticEstimatedCostLimit),
    // as the walk above found them: each rule is compiled once
    const compiles = (rule: string, node: object): boolean => failed.get(node)?.has(rule) !== true;
    for (const c of estimatedCostCauses(schema, path, compiles))
      causes.push({ reason: 'FieldValueForbidden', field: c.field, message: `Forbidden: ${c.message}` });
  };
  if (versions.every((v) => deepEqual(schemaOf(v), schemaOf(first))))
    check(schemaOf(first), 'spec.validation.openAPIV3Schema');
  else versions.forEach((v, i) => check(schemaOf(v), `spec.versions[${String(i)}].schema.openAPIV3Schema`));
  return causes;
}
