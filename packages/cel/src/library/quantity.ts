/**
 * Kubernetes' quantity library (`library/quantity.go`): `quantity`, `isQuantity`, `sign`,
 * `isInteger`, `asInteger`, `asApproximateFloat`, `add`, `sub`, `compareTo`, `isGreaterThan`,
 * `isLessThan`. Values are exact rationals, as `resource.Quantity` is exact.
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';
import { parseQuantity } from '@rxkube/wire';

import { evaluationError } from './errors.js';

const LOOSE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const REGEX_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** A Kubernetes `resource.Quantity` as an exact fraction `num / den` (den > 0). */
export class Quantity {
  /** @param num numerator.  @param den denominator (positive).  @param text the source text. */
  constructor(
    readonly num: bigint,
    readonly den: bigint,
    readonly text: string,
  ) {}

  /** Parses Kubernetes' quantity syntax (`@rxkube/wire`'s parser); throws cel-go's error text. */
  static parse(s: string): Quantity {
    const q = parseQuantity(s);
    if (q === undefined) {
      throw evaluationError(LOOSE.test(s) ? "unable to parse quantity's suffix" : REGEX_ERROR);
    }
    return new Quantity(q.num, q.den, s);
  }

  static of(num: bigint, den: bigint, text: string): Quantity {
    const g = gcd(num < 0n ? -num : num, den);
    return new Quantity(num / (g || 1n), den / (g || 1n), text);
  }

  compare(o: Quantity): number {
    const a = this.num * o.den;
    const b = o.num * this.den;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  add(o: Quantity): Quantity {
    return Quantity.of(this.num * o.den + o.num * this.den, this.den * o.den, '');
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);
const isInt64 = (q: Quantity): boolean => q.den === 1n && q.num <= I64_MAX && q.num >= I64_MIN;
const fromInt = (i: bigint): Quantity => new Quantity(i, 1n, String(i));

/** Registers the quantity library. */
export function registerQuantity(env: Environment): Environment {
  return (
    env
      .registerType('kubernetes.Quantity', Quantity)
      .registerFunction('quantity(string): kubernetes.Quantity', (s: string) => Quantity.parse(s))
      // resource.Quantity.Equal: the same amount, whatever the notation
      .registerOperator(
        'kubernetes.Quantity == kubernetes.Quantity',
        (a: Quantity, b: Quantity) => a.compare(b) === 0,
      )
      .registerFunction('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined)
      .registerFunction('kubernetes.Quantity.sign(): int', (q: Quantity) =>
        BigInt(q.num > 0n ? 1 : q.num < 0n ? -1 : 0),
      )
      .registerFunction('kubernetes.Quantity.isInteger(): bool', (q: Quantity) => isInt64(q))
      .registerFunction('kubernetes.Quantity.asInteger(): int', (q: Quantity) => {
        if (!isInt64(q)) throw evaluationError('cannot convert value to integer');
        return q.num;
      })
      .registerFunction(
        'kubernetes.Quantity.asApproximateFloat(): double',
        (q: Quantity) => Number(q.num) / Number(q.den),
      )
      .registerFunction(
        'kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity',
        (a: Quantity, b: Quantity) => a.add(b),
      )
      .registerFunction('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: Quantity, b: bigint) =>
        a.add(fromInt(b)),
      )
      .registerFunction(
        'kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity',
        (a: Quantity, b: Quantity) => a.add(new Quantity(-b.num, b.den, '')),
      )
      .registerFunction('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: Quantity, b: bigint) =>
        a.add(fromInt(-b)),
      )
      .registerFunction(
        'kubernetes.Quantity.compareTo(kubernetes.Quantity): int',
        (a: Quantity, b: Quantity) => BigInt(a.compare(b)),
      )
      .registerFunction(
        'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool',
        (a: Quantity, b: Quantity) => a.compare(b) > 0,
      )
      .registerFunction(
        'kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool',
        (a: Quantity, b: Quantity) => a.compare(b) < 0,
      )
  );
}
