import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { bucketOf, bucketRange, fnv1a64, fnv1a64InRange } from './fnv.js';

/** The textbook FNV-1a 64 in BigInt, byte by byte: the reference the fast implementation must equal. */
function reference(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

describe('fnv1a64', () => {
  it('matches the published FNV-1a 64 test vectors', () => {
    // http://www.isthe.com/chongo/src/fnv/test_fnv.c (FNV1A_64 vectors)
    expect(fnv1a64('')).toBe(0xcbf29ce484222325n);
    expect(fnv1a64('a')).toBe(0xaf63dc4c8601ec8cn);
    expect(fnv1a64('foobar')).toBe(0x85944171f73967e8n);
  });

  it('hashes UTF-8 bytes', () => {
    expect(fnv1a64('é')).toBe(fnv1a64('\u00e9'));
    expect(fnv1a64('é')).not.toBe(fnv1a64('e'));
    // ASCII first, then not: hashed from the UTF-8 bytes of the whole text
    expect(fnv1a64('uid-\u00e9')).toBe(reference('uid-\u00e9'));
    expect(fnv1a64('uid-\u{1f600}')).toBe(reference('uid-\u{1f600}'));
  });

  it('equals the BigInt reference on any string, ASCII or not, and any bucket count', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.uuid()),
        fc.integer({ min: 1, max: 1 << 22 }),
        (key, buckets) => {
          expect(fnv1a64(key)).toBe(reference(key));
          expect(bucketOf(key, buckets)).toBe(Number((reference(key) * BigInt(buckets)) >> 64n));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('fnv1a64InRange', () => {
  it('is true exactly when the hash is in [start, end), bounds included and excluded', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.bigInt({ min: 1n, max: 1n << 64n }),
        (uid, a, b) => {
          const [start, end] = a < b ? [a, b] : [b - 1n, a + 1n];
          const h = reference(uid);
          expect(fnv1a64InRange(uid, start, end)).toBe(h >= start && h < end);
          expect(fnv1a64InRange(uid, h, h + 1n)).toBe(true);
          expect(fnv1a64InRange(uid, 0n, h)).toBe(false);
          expect(fnv1a64InRange(uid, h + 1n, 1n << 64n)).toBe(false);
        },
      ),
    );
  });
});

describe('bucketOf and bucketRange', () => {
  it('puts a key in the bucket whose hash range holds its hash', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 4096 }), (key, buckets) => {
        const b = bucketOf(key, buckets);
        expect(b).toBeGreaterThanOrEqual(0);
        expect(b).toBeLessThan(buckets);
        const { start, end } = bucketRange(b, buckets);
        expect(fnv1a64InRange(key, start, end)).toBe(true);
      }),
    );
  });

  it('cuts [0, 2^64) into contiguous ranges: 2 buckets are the halves of KEP-5866', () => {
    expect(bucketRange(0, 2)).toEqual({ start: 0n, end: 0x8000000000000000n });
    expect(bucketRange(1, 2)).toEqual({ start: 0x8000000000000000n, end: 0x10000000000000000n });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4096 }), (buckets) => {
        expect(bucketRange(0, buckets).start).toBe(0n);
        expect(bucketRange(buckets - 1, buckets).end).toBe(1n << 64n);
        for (let b = 1; b < Math.min(buckets, 50); b++) {
          expect(bucketRange(b, buckets).start).toBe(bucketRange(b - 1, buckets).end);
        }
      }),
    );
  });

  it('spreads uids evenly: every one of 64 buckets within ±35% of 10,000/64', () => {
    const counts = new Array<number>(64).fill(0);
    for (let i = 0; i < 10_000; i++)
      counts[bucketOf(`0b8f${i.toString(16).padStart(4, '0')}-uid-${i}`, 64)]! += 1;
    for (const c of counts) expect(Math.abs(c - 10_000 / 64)).toBeLessThan(0.35 * (10_000 / 64));
  });
});
