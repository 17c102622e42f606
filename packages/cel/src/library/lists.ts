/**
 * Kubernetes' list library (`k8s.io/apiserver/pkg/cel/library/lists.go`): `isSorted`, `sum`,
 * `min`, `max`, `indexOf`, `lastIndexOf` on lists of comparable values.
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';

import { evaluationError } from './errors.js';

type Comparable = bigint | number | string | boolean;

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  throw evaluationError('no such overload');
}

function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) => equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);

/** Registers the list library. */
export function registerLists(env: Environment): Environment {
  return env
    .registerFunction('list.isSorted(): bool', (l: readonly unknown[]) =>
      l.every((x, i) => i === 0 || compare(l[i - 1], x) <= 0),
    )
    .registerFunction('list.sum(): dyn', (l: readonly Comparable[]) => {
      if (l.length === 0) return 0n;
      if (l.every((x) => typeof x === 'bigint')) {
        const s = (l as bigint[]).reduce((a, b) => a + b, 0n);
        if (s > I64_MAX || s < I64_MIN) throw evaluationError('integer overflow');
        return s;
      }
      if (l.every((x) => typeof x === 'number')) return (l as number[]).reduce((a, b) => a + b, 0);
      throw evaluationError('no such overload');
    })
    .registerFunction('list.min(): dyn', (l: readonly unknown[]) => {
      if (l.length === 0) throw evaluationError('min called on empty list');
      return l.reduce((a, b) => (compare(b, a) < 0 ? b : a));
    })
    .registerFunction('list.max(): dyn', (l: readonly unknown[]) => {
      if (l.length === 0) throw evaluationError('max called on empty list');
      return l.reduce((a, b) => (compare(b, a) > 0 ? b : a));
    })
    .registerFunction('list.indexOf(dyn): int', (l: readonly unknown[], x: unknown) =>
      BigInt(l.findIndex((y) => equal(x, y))),
    )
    .registerFunction('list.lastIndexOf(dyn): int', (l: readonly unknown[], x: unknown) =>
      BigInt(l.findLastIndex((y) => equal(x, y))),
    );
}
