import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { fnv1a64 } from '@rxkube/wire';

import { parseShardSelector } from './shard-selector.js';

/** FNV-1a 64 in BigInt, byte by byte: the reference. */
function reference(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

const hex = (n: bigint): string => `0x${n.toString(16)}`;

describe('shardSelector (KEP-5866) in the embedded server', () => {
  it('hashes like the FNV reference vectors and a BigInt reference, ASCII or not', () => {
    expect(fnv1a64('')).toBe(0xcbf29ce484222325n);
    expect(fnv1a64('a')).toBe(0xaf63dc4c8601ec8cn);
    expect(fnv1a64('foobar')).toBe(0x85944171f73967e8n);
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => fnv1a64(text) === reference(text)));
  });

  it('matches a uid exactly when its hash is in [start, end), bounds included and excluded', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.bigInt({ min: 1n, max: 1n << 64n }),
        (uid, a, b) => {
          const [start, end] = a < b ? [a, b] : [b - 1n, a + 1n];
          const h = reference(uid);
          const selector = parseShardSelector(
            `shardRange(object.metadata.uid, '${hex(start)}', '${hex(end)}')`,
          );
          expect(selector.matches({ uid })).toBe(h >= start && h < end);
          const exact = parseShardSelector(`shardRange(object.metadata.uid, '${hex(h)}', '${hex(h + 1n)}')`);
          expect(exact.matches({ uid })).toBe(true);
          if (h > 0n) {
            const before = parseShardSelector(`shardRange(object.metadata.uid, '0x0', '${hex(h)}')`);
            expect(before.matches({ uid })).toBe(false);
          }
        },
      ),
    );
  });
});
