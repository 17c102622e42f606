/**
 * Kubernetes' CEL environment on `@marcbachmann/cel-js`: the base language with optional types,
 * and Kubernetes' libraries (strings, lists, regex, URL, IP/CIDR, quantity, format, semver,
 * authz). Variables are dynamically typed; the schema decides their values' CEL types.
 *
 * @module
 */
import {
  Environment,
  EvaluationError,
  Optional,
  ParseError,
  TypeError as CelTypeError,
} from '@marcbachmann/cel-js';

import { type CostMeter, instrument, metered } from './cost.js';
import { registerAuthz } from './library/authz.js';
import { registerFormat } from './library/format.js';
import { registerIP } from './library/ip.js';
import { registerLists } from './library/lists.js';
import { registerQuantity } from './library/quantity.js';
import { re2ToJs, registerRegex } from './library/regex.js';
import { registerSemver } from './library/semver.js';
import { registerStrings } from './library/strings.js';
import { registerUrl } from './library/url.js';

/** Which variables an expression may name: a CRD rule's, or an admission policy's. */
export type Scope = 'crd' | 'policy';

const SCOPES: Record<Scope, Record<string, string>> = {
  crd: { self: 'dyn', oldSelf: 'dyn' },
  policy: {
    object: 'dyn',
    oldObject: 'dyn',
    request: 'dyn',
    params: 'dyn',
    namespaceObject: 'dyn',
    variables: 'dyn',
    authorizer: 'kubernetes.authorization.Authorizer',
  },
};

let base: Environment | undefined;
const scoped = new Map<Scope, Environment>();

/** CEL equality of two values (`==` on optionals compares their values). */
function celEqual(a: unknown, b: unknown): boolean {
  if (a instanceof Optional || b instanceof Optional) {
    if (!(a instanceof Optional && b instanceof Optional)) return false;
    return a.hasValue() === b.hasValue() && (!a.hasValue() || celEqual(a.value(), b.value()));
  }
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number'))
    return Number(a) === Number(b) && (typeof a !== 'bigint' || typeof b !== 'bigint' || a === b);
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => celEqual(x, b[i]));
  if (a instanceof Map && b instanceof Map)
    return a.size === b.size && [...a].every(([k, v]) => b.has(k) && celEqual(v, b.get(k)));
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (
    typeof a === 'object' &&
    a !== null &&
    typeof b === 'object' &&
    b !== null &&
    a.constructor === Object &&
    b.constructor === Object
  ) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every(
        (k) => k in b && celEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return a === b;
}

/** The environment expressions of one scope compile in (built on first use). */
export function kubernetesEnvironment(scope: Scope = 'crd'): Environment {
  const hit = scoped.get(scope);
  if (hit) return hit;
  base ??= buildBase();
  let env = base.clone();
  for (const [name, type] of Object.entries(SCOPES[scope])) env = env.registerVariable(name, type);
  scoped.set(scope, env);
  return env;
}

function buildBase(): Environment {
  let env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
  });
  for (const register of [
    registerStrings,
    registerLists,
    registerRegex,
    registerUrl,
    registerIP,
    registerQuantity,
    registerFormat,
    registerSemver,
    registerAuthz,
  ])
    env = register(env);
  // cel-go compares optionals by value; `!=` follows from `==`
  return env.registerOperator('optional<dyn> == optional<dyn>', (a: Optional, b: Optional) => celEqual(a, b));
}

/**
 * A checker of expressions with `self` and `oldSelf` of the type `selfType`, after declaring
 * `types` (name → fields, in an order where a type's fields name only types declared before it).
 * It returns the checked type, or the checker's message.
 */
export function typedChecker(
  types: readonly (readonly [string, Record<string, string>])[],
  selfType: string,
): (source: string) => { type: string } | { error: string } {
  base ??= buildBase();
  const env = base.clone();
  for (const [name, fields] of types) env.registerType(name, { fields });
  env.registerVariable('self', selfType).registerVariable('oldSelf', selfType);
  return (source) => {
    const checked = env.check(source);
    if (checked.valid) return { type: checked.type ?? 'dyn' };
    return { error: checked.error?.message.split('\n')[0] ?? 'invalid expression' };
  };
}

/**
 * A compiled expression: evaluate with an activation (variable → value); with a meter, its cost
 * is counted as cel-go counts it and the evaluation stops past the meter's limit (`cost.ts`).
 */
export type Program = (activation: Record<string, unknown>, meter?: CostMeter) => unknown;

/** Compiles `source`; returns the program, or the compiler's message. */
export function compileExpression(source: string, scope: Scope = 'crd'): Program | string {
  const env = kubernetesEnvironment(scope);
  try {
    const checked = env.check(source);
    if (!checked.valid) return compilerMessage(checked.error?.message.split('\n')[0] ?? 'invalid expression');
    // RE2 refuses what JavaScript accepts: check literal patterns now, as Kubernetes compiles them.
    for (const m of source.matchAll(
      /\.(?:matches|find|findAll)\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g,
    )) {
      const pattern = m[1] ?? m[2];
      if (pattern === undefined) continue;
      let literal: string | undefined;
      try {
        literal = JSON.parse(`"${pattern.replace(/"/g, '\\"')}"`) as string;
      } catch {
        // a CEL escape JSON does not know (\x41, \101, \'): left to the evaluation
      }
      if (literal !== undefined) re2ToJs(literal);
    }
    const parsed = env.parse(source);
    instrument(parsed.ast);
    return (activation, meter) => metered(meter, () => parsed(activation) as unknown);
  } catch (e) {
    if (e instanceof ParseError || e instanceof CelTypeError || e instanceof EvaluationError)
      return compilerMessage(e.message.split('\n')[0] ?? e.message);
    throw e;
  }
}

/** cel-go's wording of a compiler message where it differs. */
function compilerMessage(m: string): string {
  const unknown = /^Unknown variable: (\S+)/.exec(m);
  return unknown ? `undeclared reference to '${unknown[1]}'` : m;
}

/** cel-go's wording of an engine's runtime error (`no such key: x`, `integer overflow`, ...). */
export function celGoMessage(e: unknown): string | undefined {
  if (!(e instanceof EvaluationError || e instanceof CelTypeError)) return undefined;
  const m = e.message.split('\n')[0] ?? '';
  let r: RegExpExecArray | null;
  if ((r = /^No such key: index out of bounds, index (-?\d+)/.exec(m))) return `index out of bounds: ${r[1]}`;
  if ((r = /^No such key: (.*)$/.exec(m))) return `no such key: ${r[1]}`;
  if (/^integer overflow/.test(m)) return 'integer overflow';
  if (/^no such overload/.test(m) || /^found no matching overload/.test(m)) return 'no such overload';
  return m;
}
