/**
 * `resource.Quantity` (k8s.io/apimachinery/pkg/api/resource) as much as quota needs: parse,
 * add, compare, and print in the canonical form the real server writes (`0.5` → `500m`,
 * `0.5Gi` → `512Mi`, `1000m` → `1`, `200Mi + 0.5Gi` → `712Mi`).
 *
 * Values are kept exactly as integers of nano-units (Kubernetes rounds anything finer up to 1n).
 * The format of a sum is its first non-zero operand's (`Quantity.Add`); a binary quantity below
 * 1024 or not whole prints as decimal (`CanonicalizeBytes`). The `DecimalExponent` format
 * (`1e3`) is parsed but printed as decimal SI (`1k`): not checked against the real server.
 *
 * The syntax is `@rxkube/wire`'s `parseQuantity`, shared with `@rxkube/cel`'s quantity library.
 *
 * @module
 */
import { parseQuantity as parseExact } from '@rxkube/wire';

/** A parsed quantity. */
export interface Quantity {
  /** The value in nano-units (10⁻⁹). */
  readonly nanos: bigint;
  readonly format: 'DecimalSI' | 'BinarySI';
}

const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const DECIMAL_SUFFIX = new Map(Object.entries(DECIMAL).map(([s, e]) => [e, s]));
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** `ParseQuantity`; `undefined` for text that is not a quantity. */
export function parseQuantity(text: unknown): Quantity | undefined {
  if (typeof text === 'number') return parseQuantity(String(text));
  if (typeof text !== 'string') return undefined;
  const q = parseExact(text.trim());
  if (q === undefined) return undefined;
  // rounded up to a whole nano-unit, as the real server does
  const negative = q.num < 0n;
  const scaled = (negative ? -q.num : q.num) * 10n ** 9n;
  const nanos = scaled / q.den + (scaled % q.den === 0n ? 0n : 1n);
  return { nanos: negative ? -nanos : nanos, format: q.format === 'BinarySI' ? 'BinarySI' : 'DecimalSI' };
}

/** `Quantity.String()`: the canonical text. */
export function formatQuantity(q: Quantity): string {
  const { nanos } = q;
  if (nanos === 0n) return '0';
  const negative = nanos < 0n;
  const abs = negative ? -nanos : nanos;
  const sign = negative ? '-' : '';
  const whole = abs % 10n ** 9n === 0n;
  if (q.format === 'BinarySI' && whole && abs >= 1024n * 10n ** 9n) {
    let value = abs / 10n ** 9n;
    let power = 0;
    while (power < 6 && value % 1024n === 0n) {
      value /= 1024n;
      power++;
    }
    return `${sign}${value.toString()}${BINARY_SUFFIX[power] ?? ''}`;
  }
  // decimal: the largest exponent (a multiple of 3) that leaves a whole mantissa
  let exponent = -9;
  let value = abs;
  while (exponent < 18 && value % 1000n === 0n) {
    value /= 1000n;
    exponent += 3;
  }
  return `${sign}${value.toString()}${DECIMAL_SUFFIX.get(exponent) ?? ''}`;
}

/** `a + b` in the first non-zero operand's format. */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

/** The canonical text of `text` (unchanged when it is not a quantity). */
export function canonicalQuantity(text: unknown): unknown {
  const q = parseQuantity(text);
  return q === undefined ? text : formatQuantity(q);
}
