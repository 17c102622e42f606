/**
 * Kubernetes' quantity syntax (`resource.Quantity`, k8s.io/apimachinery/pkg/api/resource
 * `ParseQuantity`): `<sign><digits>[.<digits>]<suffix>`, the suffix binary SI (`Ki` … `Ei`),
 * decimal SI (`n`, `u`, `m`, `''`, `k`, `M`, `G`, `T`, `P`, `E`) or a decimal exponent (`e3`,
 * `E-2`). The value is kept exact, as a fraction: how a reader rounds it (the API server rounds to
 * nano-units; CEL's quantity library compares exactly) is the reader's business.
 *
 * What it does not do: print a quantity (the embedded server's quota controller prints the
 * canonical form it needs) or do arithmetic.
 *
 * @module
 */

/**
 * How a quantity was written; `Quantity.String()` prints it back in the same kind of suffix.
 *
 * ## Example
 * ```ts
 * const format: QuantityFormat | undefined = parseQuantity('64Mi')?.format; // 'BinarySI'
 * ```
 */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/**
 * A parsed quantity: exactly `num / den`, in lowest terms (`den > 0`).
 *
 * ## Example
 * ```ts
 * const half: Quantity = { num: 1n, den: 2n, format: 'DecimalSI' }; // 500m
 * ```
 */
export interface Quantity {
  readonly num: bigint;
  readonly den: bigint;
  readonly format: QuantityFormat;
}

const QUANTITY = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;
const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 2n ** 10n,
  Mi: 2n ** 20n,
  Gi: 2n ** 30n,
  Ti: 2n ** 40n,
  Pi: 2n ** 50n,
  Ei: 2n ** 60n,
};
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/**
 * Parses a quantity (`ParseQuantity`'s syntax, no surrounding spaces); `undefined` for text that
 * is not one.
 *
 * ## Example
 * ```ts
 * parseQuantity('1.5Gi'); // { num: 1610612736n, den: 1n, format: 'BinarySI' }
 * parseQuantity('250m'); // { num: 1n, den: 4n, format: 'DecimalSI' }
 * parseQuantity('20Mo'); // undefined
 * ```
 */
export function parseQuantity(text: string): Quantity | undefined {
  const m = QUANTITY.exec(text);
  if (m === null) return undefined;
  const [, sign = '', digits = '', suffix = ''] = m;
  const [whole = '', fraction = ''] = digits.split('.');
  let num = BigInt(`${whole}${fraction}` || '0');
  let den = 10n ** BigInt(fraction.length);
  let format: QuantityFormat = 'DecimalSI';
  const binary = BINARY[suffix];
  if (binary !== undefined) {
    num *= binary;
    format = 'BinarySI';
  } else {
    const exponent = DECIMAL[suffix] ?? (suffix === '' ? 0 : Number(suffix.slice(1)));
    if (suffix !== '' && DECIMAL[suffix] === undefined) format = 'DecimalExponent';
    if (exponent >= 0) num *= 10n ** BigInt(exponent);
    else den *= 10n ** BigInt(-exponent);
  }
  const g = gcd(num, den);
  return { num: (sign === '-' ? -num : num) / g, den: den / g, format };
}
