import { describe, expect, it } from 'vitest';

import { shardSelector } from './selector.js';

describe('shardSelector (KEP-5866)', () => {
  it('names the halves of a 2-way split as the KEP does', () => {
    expect(shardSelector([0], 2, 'uid')).toBe("shardRange(object.metadata.uid, '0x0', '0x8000000000000000')");
    expect(shardSelector([1], 2, 'uid')).toBe(
      "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
    );
  });

  it('merges consecutive buckets into one range and joins ranges with ||', () => {
    expect(shardSelector([3, 0, 1], 4, 'namespace')).toBe(
      "shardRange(object.metadata.namespace, '0x0', '0x8000000000000000') || " +
        "shardRange(object.metadata.namespace, '0xc000000000000000', '0x10000000000000000')",
    );
  });

  it('selects nothing for no bucket', () => {
    expect(shardSelector([], 64, 'uid')).toBeUndefined();
  });
});
