import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { parseQuantity } from './quantity.js';

describe('parseQuantity (resource.ParseQuantity syntax)', () => {
  it.each([
    ['0', 0n, 1n, 'DecimalSI'],
    ['-0', 0n, 1n, 'DecimalSI'],
    ['1', 1n, 1n, 'DecimalSI'],
    ['+1', 1n, 1n, 'DecimalSI'],
    ['1.', 1n, 1n, 'DecimalSI'],
    ['.5', 1n, 2n, 'DecimalSI'],
    ['250m', 1n, 4n, 'DecimalSI'],
    ['-1.5', -3n, 2n, 'DecimalSI'],
    ['1n', 1n, 1_000_000_000n, 'DecimalSI'],
    ['0.1n', 1n, 10_000_000_000n, 'DecimalSI'],
    ['2k', 2000n, 1n, 'DecimalSI'],
    ['1E', 10n ** 18n, 1n, 'DecimalSI'],
    ['1Ki', 1024n, 1n, 'BinarySI'],
    ['1.5Gi', 1610612736n, 1n, 'BinarySI'],
    ['0.5Ki', 512n, 1n, 'BinarySI'],
    ['1e3', 1000n, 1n, 'DecimalExponent'],
    ['1E3', 1000n, 1n, 'DecimalExponent'],
    ['12e-2', 3n, 25n, 'DecimalExponent'],
  ] as const)('%s is %i/%i (%s)', (text, num, den, format) => {
    expect(parseQuantity(text)).toEqual({ num, den, format });
  });

  // the cases of Kubernetes' CEL quantity library test (library/quantity_test.go), and more
  it.each(['20Mo', '10Mm', '', '.', '1 ', ' 1', '1K', '1mi', 'Ki', '1e', '1.2.3', '--1', '0x10', '1Ki1'])(
    '%j is not a quantity',
    (text) => {
      expect(parseQuantity(text)).toBeUndefined();
    },
  );

  it('keeps any decimal exactly, in lowest terms', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.integer({ min: 0, max: 20 }),
        (n, places) => {
          const abs = (n < 0n ? -n : n).toString().padStart(places + 1, '0');
          const text = `${n < 0n ? '-' : ''}${abs.slice(0, abs.length - places)}${places ? '.' : ''}${abs.slice(abs.length - places)}`;
          const q = parseQuantity(text);
          if (q === undefined) throw new Error(`${text} did not parse`);
          expect(q.num * 10n ** BigInt(places)).toBe(n * q.den);
          const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
          expect(gcd(q.num < 0n ? -q.num : q.num, q.den)).toBe(1n);
        },
      ),
    );
  });
});
