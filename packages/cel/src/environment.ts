/**
 * Kubernetes' CEL environment on `@marcbachmann/cel-js`: the base language with optional types,
 * and Kubernetes' libraries (strings, lists, regex, URL, IP/CIDR, quantity, format, semver,
 * authz). Variables are dynamically typed; the schema decides their values' CEL types.
 *
 * @module
 */
import { Environment, EvaluationError, ParseError, TypeError as CelTypeError } from '@marcbachmann/cel-js';

import { registerAuthz } from './library/authz.js';
import { registerFormat } from './library/format.js';
import { registerIP } from './library/ip.js';
import { registerLists } from './library/lists.js';
import { registerQuantity } from './library/quantity.js';
import { re2ToJs, registerRegex } from './library/regex.js';
import { registerSemver } from './library/semver.js';
import { registerStrings } from './library/strings.js';
import { registerUrl } from './library/url.js';

let shared: Environment | undefined;

/** The one environment every expression compiles in (built on first use, then frozen by clone). */
export function kubernetesEnvironment(): Environment {
  if (shared) return shared;
  let env = new Environment({
    unlistedVariablesAreDyn: true,
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
  shared = env;
  return env;
}

/** A compiled expression: evaluate with an activation (variable → value). */
export type Program = (activation: Record<string, unknown>) => unknown;

/** Compiles `source`; returns the program, or the compiler's message. */
export function compileExpression(source: string): Program | string {
  const env = kubernetesEnvironment();
  try {
    const checked = env.check(source);
    if (!checked.valid) return checked.error?.message.split('\n')[0] ?? 'invalid expression';
    // RE2 refuses what JavaScript accepts: check literal patterns now, as Kubernetes compiles them.
    for (const m of source.matchAll(
      /\.(?:matches|find|findAll)\(\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")/g,
    )) {
      const pattern = m[1] ?? m[2];
      if (pattern !== undefined) re2ToJs(JSON.parse(`"${pattern.replace(/"/g, '\\"')}"`) as string);
    }
    const parsed = env.parse(source);
    return (activation) => parsed(activation) as unknown;
  } catch (e) {
    if (e instanceof ParseError || e instanceof CelTypeError || e instanceof EvaluationError)
      return e.message.split('\n')[0] ?? e.message;
    throw e;
  }
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
