/**
 * cel-go's strings extension as Kubernetes enables it (`ext.Strings`): `charAt`, `replace` — the
 * rest (`indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `split`, `substring`, `trim`,
 * `join`) is the engine's own. Indices count code points, as Go's runes.
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';

import { evaluationError } from './errors.js';

const runes = (s: string): string[] => Array.from(s);

/** Registers the functions of the strings extension the engine lacks. */
export function registerStrings(env: Environment): Environment {
  return env
    .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
      const r = runes(s);
      if (i < 0n || i > BigInt(r.length)) throw evaluationError(`index out of range: ${i}`);
      return r[Number(i)] ?? '';
    })
    .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
      replaceN(s, a, b, -1n),
    )
    .registerFunction(
      'string.replace(string, string, int): string',
      (s: string, a: string, b: string, n: bigint) => replaceN(s, a, b, n),
    );
}

/** Go's `strings.Replace(s, old, new, n)`: n < 0 replaces all. */
function replaceN(s: string, from: string, to: string, n: bigint): string {
  if (n === 0n) return s;
  if (from === '') {
    // Go inserts `to` before each rune and at the end.
    const r = runes(s);
    let out = '';
    let count = 0n;
    for (const c of r) {
      if (n >= 0n && count >= n) {
        out += c;
        continue;
      }
      out += to + c;
      count++;
    }
    return n < 0n || count < n ? out + to : out;
  }
  let out = '';
  let rest = s;
  let count = 0n;
  while (n < 0n || count < n) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    count++;
  }
  return out + rest;
}
