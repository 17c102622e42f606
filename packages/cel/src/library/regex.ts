/**
 * Kubernetes' regex library (`library/regex.go`): `find`, `findAll`. Patterns are RE2 in
 * Kubernetes; this engine runs them as JavaScript regular expressions after {@link re2ToJs}
 * refuses what RE2 refuses (lookaround, backreferences) and translates RE2-only syntax.
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';

import { CelUnsupportedError } from '../errors.js';
import { evaluationError } from './errors.js';

const cache = new Map<string, RegExp>();

/**
 * The JavaScript RegExp for an RE2 pattern (global flag for `findAll`). Throws
 * {@link CelUnsupportedError} for syntax RE2 rejects (Kubernetes rejects the rule) and
 * an evaluation error for a pattern neither accepts.
 */
export function re2ToJs(pattern: string): RegExp {
  const hit = cache.get(pattern);
  // a fresh RegExp per use: a global one carries lastIndex from one call to the next
  if (hit) return new RegExp(hit);
  if (/\(\?<?[=!]/.test(pattern))
    throw new CelUnsupportedError('regex lookaround', `RE2 has no lookahead/lookbehind: ${pattern}`);
  if (/(^|[^\\])\\[1-9]/.test(pattern))
    throw new CelUnsupportedError('regex backreference', `RE2 has no backreferences: ${pattern}`);
  let flags = 'gu';
  let source = pattern.replace(/\(\?P</g, '(?<');
  const leading = /^\(\?([imsU]+)\)/.exec(source);
  if (leading) {
    for (const f of leading[1] ?? '') {
      if (f === 'U') throw new CelUnsupportedError('regex flag U', 'ungreedy mode has no JavaScript form');
      flags += f;
    }
    source = source.slice(leading[0].length);
  }
  let re: RegExp;
  try {
    re = new RegExp(source, flags);
  } catch (e) {
    throw evaluationError(`invalid regex: ${(e as Error).message}`);
  }
  if (cache.size > 256) cache.clear();
  cache.set(pattern, re);
  return re;
}

/** Registers the regex library. */
export function registerRegex(env: Environment): Environment {
  const findAll = (s: string, pattern: string, n: bigint): string[] => {
    if (n === 0n) return [];
    const out: string[] = [];
    for (const m of s.matchAll(re2ToJs(pattern))) {
      out.push(m[0]);
      if (n > 0n && BigInt(out.length) >= n) break;
    }
    return out;
  };
  return env
    .registerFunction('string.find(string): string', (s: string, p: string) => {
      const re = re2ToJs(p);
      re.lastIndex = 0;
      return re.exec(s)?.[0] ?? '';
    })
    .registerFunction('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n))
    .registerFunction('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) =>
      findAll(s, p, n),
    );
}
