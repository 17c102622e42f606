import { describe, expect, it } from 'vitest';

import { compareResourceVersions } from './resource-version.js';

describe('compareResourceVersions (KEP-5504)', () => {
  it('orders decimal integers by value, whatever their length', () => {
    expect(compareResourceVersions('9', '10')).toBe(-1);
    expect(compareResourceVersions('100', '99')).toBe(1);
    expect(compareResourceVersions('123', '123')).toBe(0);
    expect(compareResourceVersions('0', '1')).toBe(-1);
    expect(compareResourceVersions('18446744073709551616', '18446744073709551615')).toBe(1);
  });

  it('knows no order for anything else', () => {
    for (const [a, b] of [
      ['01', '2'],
      ['1', ''],
      ['a1', '2'],
      ['1.5', '2'],
      ['-1', '2'],
      [undefined, '2'],
    ] as const) {
      expect(compareResourceVersions(a, b)).toBeUndefined();
      expect(compareResourceVersions(b, a)).toBeUndefined();
    }
  });
});
