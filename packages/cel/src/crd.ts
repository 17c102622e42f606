/**
 * CRD `x-kubernetes-validations` as kube-apiserver runs them
 * (`apiextensions-apiserver/pkg/apiserver/schema/cel/validation.go`): each schema node's rules with
 * `self` bound to the value there, transition rules (those naming `oldSelf`) only when an old value
 * correlates (object properties, map values, `x-kubernetes-list-type: map` items by key), children
 * after their parent, and kube-apiserver's messages.
 *
 * The runtime cost budget is kube-apiserver v1.24's: each rule's evaluation stops past
 * `PerCallLimit` (1,000,000), an object's rules together may spend `RuntimeCELCostBudget`
 * (10,000,000), and either ends the validation with kube-apiserver's message; the cost is
 * counted as cel-go counts it (`cost.ts`).
 *
 * Rules are type-checked against their schema node when compiled, as kube-apiserver compiles
 * them (`type-check.ts`). `optionalOldSelf` is refused.
 *
 * @module
 */
import type { CostMeter } from './cost.js';
import { celGoMessage, compileExpression, type Program } from './environment.js';
import { CelCompileError, CelUnsupportedError } from './errors.js';
import { fieldError, type FieldError } from './field-error.js';
import { type CelSchema, toCel, type ValidationRule } from './schema.js';
import { typeCheckRule } from './type-check.js';

/**
 * A CustomResourceDefinition as far as its validation rules go (`apiextensions.k8s.io/v1`).
 *
 * ## Example
 * ```ts
 * import type { CustomResourceDefinitionLike } from '@rxkube/cel';
 *
 * const crd: CustomResourceDefinitionLike = {
 *   spec: {
 *     group: 'example.com',
 *     names: { kind: 'Widget', plural: 'widgets' },
 *     versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object' } } }],
 *   },
 * };
 * ```
 */
export interface CustomResourceDefinitionLike {
  spec: {
    group: string;
    names: { kind: string; plural: string };
    versions: readonly { name: string; schema?: { openAPIV3Schema?: CelSchema } }[];
  };
}

/**
 * Options of {@link compileValidations}.
 *
 * ## Example
 * ```ts
 * import type { CompileOptions } from '@rxkube/cel';
 *
 * const options: CompileOptions = { compileErrors: 'report' };
 * ```
 */
export interface CompileOptions {
  /**
   * `throw` (default): a rule that does not compile throws {@link CelCompileError}, as
   * kube-apiserver refuses the CRD. `report`: the object fails with `rule compile error: …` at
   * the rule's node, as kube-apiserver reports a stored CRD's broken rule.
   */
  compileErrors?: 'throw' | 'report';
  /** The cost one rule's evaluation may reach (kube-apiserver's `PerCallLimit`, 1,000,000). */
  perCallLimit?: number;
  /** The cost all rules may spend on one object (`RuntimeCELCostBudget`, 10,000,000). */
  costBudget?: number;
}

/** kube-apiserver's `PerCallLimit` (`apiextensions-apiserver/pkg/apiserver/schema/cel`, v1.24). */
const PER_CALL_LIMIT = 1_000_000;
/** kube-apiserver's `RuntimeCELCostBudget`, per object. */
const RUNTIME_COST_BUDGET = 10_000_000;

/** What is left of an object's cost budget; `stopped` once a limit ended the validation. */
interface Budget {
  remaining: number;
  stopped: boolean;
  readonly perCall: number;
}

const OUT_OF_BUDGET =
  'validation failed due to running out of cost budget, no further validation rules will be run';

interface CompiledRule {
  readonly rule: ValidationRule;
  readonly program?: Program;
  readonly message?: Program;
  readonly error?: string;
  readonly transition: boolean;
}

interface Node {
  readonly schema: CelSchema;
  readonly root: boolean;
  readonly rules: readonly CompiledRule[];
  readonly properties: ReadonlyMap<string, Node>;
  readonly items: Node | undefined;
  readonly additional: Node | undefined;
  readonly allOf: readonly Node[];
}

/**
 * A CRD's rules compiled once: {@link CompiledValidations.validate} an object against them.
 *
 * ## Example
 * ```ts
 * import { compileValidations, type CompiledValidations } from '@rxkube/cel';
 *
 * declare const crd: Parameters<typeof compileValidations>[0];
 * const compiled: CompiledValidations = compileValidations(crd);
 * compiled.validate({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { min: 2, max: 1 } });
 * ```
 */
export interface CompiledValidations {
  /** The versions that have at least one rule. */
  readonly versions: readonly string[];
  /**
   * The errors of `obj` (and `oldObj` for an update), in kube-apiserver's order for one node;
   * `[]` when all rules hold or the version has none. The version is `obj.apiVersion`'s.
   * Throws {@link CelUnsupportedError} for what cannot be evaluated as Kubernetes does.
   */
  validate(obj: unknown, oldObj?: unknown): FieldError[];
}

const TRANSITION = /\boldSelf\b/;
const stripStrings = (s: string): string => s.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, '""');

function compileRule(
  rule: ValidationRule,
  where: string,
  mode: 'throw' | 'report',
  schema: CelSchema | undefined,
  root: boolean,
): CompiledRule {
  const transition = TRANSITION.test(stripStrings(rule.rule));
  if (rule.optionalOldSelf === true)
    throw new CelUnsupportedError('optionalOldSelf', `${where}: evaluate the rule with an old value only`);
  const fail = (source: string, reason: string): CompiledRule => {
    if (mode === 'throw') throw new CelCompileError(source, where, reason);
    return { rule, error: reason, transition };
  };
  const program = compileExpression(rule.rule);
  if (typeof program === 'string') return fail(rule.rule, program);
  // kube-apiserver compiles with self typed by the schema: an undefined field, a wrong type
  const typed = schema && typeCheckRule(rule.rule, schema, root);
  if (typed !== undefined) return fail(rule.rule, typed);
  let message: Program | undefined;
  if (rule.messageExpression !== undefined) {
    const m = compileExpression(rule.messageExpression);
    if (typeof m === 'string') return fail(rule.messageExpression, m);
    message = m;
  }
  return { rule, program, transition, ...(message ? { message } : {}) };
}

function compileNode(
  schema: CelSchema,
  root: boolean,
  where: string,
  mode: 'throw' | 'report',
  typed = true,
): Node | undefined {
  // under allOf the schema gives no types (structural schemas declare them outside): not checked
  const rules = (schema['x-kubernetes-validations'] ?? []).map((r, i) =>
    compileRule(r, `${where}.x-kubernetes-validations[${i}]`, mode, typed ? schema : undefined, root),
  );
  const properties = new Map<string, Node>();
  for (const [k, s] of Object.entries(schema.properties ?? {})) {
    const n = compileNode(
      s,
      s['x-kubernetes-embedded-resource'] === true,
      `${where}.properties[${k}]`,
      mode,
      typed,
    );
    if (n) properties.set(k, n);
  }
  const items = schema.items
    ? compileNode(
        schema.items,
        schema.items['x-kubernetes-embedded-resource'] === true,
        `${where}.items`,
        mode,
        typed,
      )
    : undefined;
  const ap = schema.additionalProperties;
  const additional =
    typeof ap === 'object'
      ? compileNode(
          ap,
          ap['x-kubernetes-embedded-resource'] === true,
          `${where}.additionalProperties`,
          mode,
          typed,
        )
      : undefined;
  const allOf = (schema.allOf ?? []).flatMap((s, i) => {
    const n = compileNode(
      { ...schema, ...s, properties: s.properties ?? {}, allOf: [] },
      root,
      `${where}.allOf[${i}]`,
      mode,
      false,
    );
    return n ? [n] : [];
  });
  if (rules.length === 0 && properties.size === 0 && !items && !additional && allOf.length === 0)
    return undefined;
  return { schema, root, rules, properties, items, additional, allOf };
}

/**
 * Compiles every version's `x-kubernetes-validations` of a CRD, for reuse across objects.
 *
 * ## Example
 * ```ts
 * import { compileValidations } from '@rxkube/cel';
 *
 * const compiled = compileValidations({
 *   spec: {
 *     group: 'example.com',
 *     names: { kind: 'Widget', plural: 'widgets' },
 *     versions: [{ name: 'v1', schema: { openAPIV3Schema: {
 *       type: 'object',
 *       properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.min <= self.max' }],
 *         properties: { min: { type: 'integer' }, max: { type: 'integer' } } } },
 *     } } }],
 *   },
 * });
 * compiled.validate({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { min: 2, max: 1 } });
 * // [{ field: 'spec', reason: 'FieldValueInvalid', message: 'Invalid value: "object": failed rule: self.min <= self.max', ... }]
 * ```
 *
 * @throws CelCompileError when a rule does not compile (unless `compileErrors: 'report'`).
 */
export function compileValidations(
  crd: CustomResourceDefinitionLike,
  options: CompileOptions = {},
): CompiledValidations {
  const mode = options.compileErrors ?? 'throw';
  const nodes = new Map<string, Node>();
  crd.spec.versions.forEach((v, i) => {
    const schema = v.schema?.openAPIV3Schema;
    if (!schema) return;
    const n = compileNode(schema, true, `spec.versions[${i}].schema.openAPIV3Schema`, mode);
    if (n) nodes.set(v.name, n);
  });
  const group = crd.spec.group;
  const perCall = options.perCallLimit ?? PER_CALL_LIMIT;
  const costBudget = options.costBudget ?? RUNTIME_COST_BUDGET;
  return {
    versions: [...nodes.keys()],
    validate(obj, oldObj) {
      const apiVersion = isObject(obj) ? obj['apiVersion'] : undefined;
      if (typeof apiVersion !== 'string' || !apiVersion.startsWith(`${group}/`)) return [];
      const node = nodes.get(apiVersion.slice(group.length + 1));
      if (!node) return [];
      const errs: FieldError[] = [];
      validateNode(node, '', obj, oldObj, errs, { remaining: costBudget, stopped: false, perCall });
      return errs;
    },
  };
}

/**
 * Validates a custom resource against its CRD's `x-kubernetes-validations` (CEL only: the
 * structural schema's own checks are the API server's). `oldObj` makes it an update, so
 * transition rules run. Compiles on each call: keep {@link compileValidations}' result to reuse.
 *
 * ## Example
 * ```ts
 * import { validateCustomResource, formatFieldError } from '@rxkube/cel';
 *
 * declare const crd: Parameters<typeof validateCustomResource>[0];
 * const errors = validateCustomResource(crd, { apiVersion: 'example.com/v1', kind: 'Widget', spec: { min: 2, max: 1 } });
 * console.log(errors.map(formatFieldError)); // ['spec: Invalid value: "object": failed rule: self.min <= self.max']
 * ```
 *
 * @throws CelCompileError when a rule does not compile; CelUnsupportedError for what is not emulated.
 */
export function validateCustomResource(
  crd: CustomResourceDefinitionLike,
  obj: unknown,
  oldObj?: unknown,
): FieldError[] {
  return compileValidations(crd).validate(obj, oldObj);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const child = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);
const shown = (path: string): string => (path === '' ? '<nil>' : path);

/** Appends a rule's `fieldPath` (`.a.b`, `['a.b']`) to `path`. */
function withFieldPath(path: string, fieldPath: string): string {
  let p = path;
  for (const m of fieldPath.matchAll(/\.([^.[\]]+)|\['((?:[^'\\]|\\.)*)'\]/g)) {
    if (m[1] !== undefined) p = child(p, m[1]);
    else p = `${p}[${(m[2] ?? '').replace(/\\(.)/g, '$1')}]`;
  }
  return p;
}

function validateNode(
  node: Node,
  path: string,
  obj: unknown,
  oldObj: unknown,
  errs: FieldError[],
  budget: Budget,
): void {
  if (obj === null || obj === undefined || budget.stopped) return;
  const old = oldObj === null ? undefined : oldObj;
  runRules(node, path, obj, old, errs, budget);
  for (const a of node.allOf) runRules(a, path, obj, old, errs, budget);
  if (budget.stopped) return;
  if (Array.isArray(obj)) {
    if (!node.items) return;
    const oldItems: readonly unknown[] = Array.isArray(old) ? old : [];
    const keys =
      node.schema['x-kubernetes-list-type'] === 'map'
        ? (node.schema['x-kubernetes-list-map-keys'] ?? [])
        : undefined;
    (obj as unknown[]).forEach((item, i) => {
      const oldItem =
        keys === undefined || !isObject(item)
          ? undefined
          : oldItems.find(
              (o) => isObject(o) && keys.every((k) => JSON.stringify(o[k]) === JSON.stringify(item[k])),
            );
      validateNode(node.items as Node, `${path}[${i}]`, item, oldItem, errs, budget);
    });
    return;
  }
  if (!isObject(obj)) return;
  // MapIsCorrelatable: granular (the default) and atomic maps correlate
  const mapType = node.schema['x-kubernetes-map-type'];
  const correlatable = mapType === undefined || mapType === 'granular' || mapType === 'atomic';
  const oldMap = correlatable && isObject(old) ? old : undefined;
  if (node.additional)
    for (const [k, v] of Object.entries(obj))
      validateNode(node.additional, `${path}[${k}]`, v, oldMap?.[k], errs, budget);
  for (const [k, v] of Object.entries(obj)) {
    const sub = node.properties.get(k);
    if (sub) validateNode(sub, child(path, k), v, oldMap?.[k], errs, budget);
  }
}

function runRules(
  node: Node,
  path: string,
  obj: unknown,
  old: unknown,
  errs: FieldError[],
  budget: Budget,
): void {
  if (node.rules.length === 0 || budget.stopped) return;
  const type = node.schema.type ?? '';
  if (budget.remaining <= 0) {
    errs.push(fieldError(shown(path), type, OUT_OF_BUDGET));
    budget.stopped = true;
    return;
  }
  const self = toCel(obj, node.schema, node.root);
  let oldSelf: unknown;
  const activation = (): Record<string, unknown> => {
    oldSelf ??= toCel(old, node.schema, node.root);
    return { self, oldSelf };
  };
  for (const c of node.rules) {
    const ruleText = (c.rule.message ?? '').trim() || c.rule.rule.trim();
    if (c.error !== undefined) {
      errs.push(fieldError(shown(path), type, `rule compile error: ${c.error}`));
      continue;
    }
    if (!c.program) continue;
    if (c.transition && old === undefined) continue;
    let result: unknown;
    let error: unknown;
    const meter: CostMeter = { cost: 0, limit: budget.perCall, exceeded: false };
    try {
      result = c.program(c.transition ? activation() : { self }, meter);
    } catch (e) {
      // what is not a CEL error (nor the meter's stop) is a bug or fails closed: thrown as is
      if (!meter.exceeded && (e instanceof CelUnsupportedError || celGoMessage(e) === undefined)) throw e;
      error = e;
    }
    // kube-apiserver v1.24 (validation.go): the rule's cost first, then its error
    if (meter.cost > budget.remaining) {
      errs.push(fieldError(shown(path), type, OUT_OF_BUDGET));
      budget.stopped = true;
      return;
    }
    budget.remaining -= meter.cost;
    if (meter.exceeded) {
      errs.push(
        fieldError(
          shown(path),
          type,
          `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText}`,
        ),
      );
      budget.stopped = true;
      return;
    }
    if (error !== undefined) {
      const m = celGoMessage(error) ?? '';
      if (m === 'no such overload')
        errs.push(
          fieldError(
            shown(path),
            type,
            `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleText}`,
          ),
        );
      else errs.push(fieldError(shown(path), type, `${m} evaluating rule: ${ruleText}`));
      continue;
    }
    if (result === true) continue;
    let detail: string | undefined;
    if (c.message) {
      try {
        const m = c.message(c.transition ? activation() : { self });
        if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) detail = m;
      } catch (e) {
        if (e instanceof CelUnsupportedError) throw e;
        // kube-apiserver logs a failed messageExpression and falls back to the message
      }
    }
    detail ??= c.rule.message ?? `failed rule: ${c.rule.rule.trim()}`;
    const at = c.rule.fieldPath ? withFieldPath(path, c.rule.fieldPath) : path;
    errs.push(fieldError(shown(at), type, detail, c.rule.reason));
  }
}
