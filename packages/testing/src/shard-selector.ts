/**
 * KEP-5866 `shardSelector` (sharded list and watch): a list or watch keeps only the objects whose
 * 64-bit FNV-1a hash of `metadata.uid` or `metadata.namespace` falls in one of the selector's
 * `shardRange(field, 'hexStart', 'hexEnd')` ranges (start inclusive, end exclusive, the full space
 * `[0x0, 0x10000000000000000)`), joined by `||`. The list echoes the selector in
 * `metadata.shardInfo.selector`. The facts and their sources are in
 * `packages/testing/fixtures/sharding/README.md`. kube-apiserver v1.24 ignores the parameter.
 *
 * @module
 */
import { fnv1a64InRange } from '@rxkube/wire';

import { SelectorError } from './selectors.js';

const FIELDS = new Set(['object.metadata.uid', 'object.metadata.namespace']);
const SPACE = 1n << 64n;
const RANGE = /^shardRange\(\s*([a-zA-Z.]+)\s*,\s*'(0x[0-9a-fA-F]+)'\s*,\s*'(0x[0-9a-fA-F]+)'\s*\)$/;

/** A parsed shard selector. */
export interface ShardSelector {
  /** The selector as given (echoed in `shardInfo`). */
  readonly text: string;
  readonly matches: (meta: {
    readonly uid?: string | undefined;
    readonly namespace?: string | undefined;
  }) => boolean;
}

/**
 * Parses a `shardSelector`.
 *
 * @throws {SelectorError} for anything but `shardRange(<field>, '<hex>', '<hex>')` terms joined
 *   by `||`, a field other than `object.metadata.uid` / `object.metadata.namespace`, or a range
 *   that is empty or beyond 2^64.
 */
export function parseShardSelector(text: string): ShardSelector {
  const terms = text.split('||').map((t) => t.trim());
  const ranges = terms.map((term) => {
    const m = RANGE.exec(term);
    if (m === null) {
      throw new SelectorError(
        `invalid shardSelector ${JSON.stringify(text)}: expected shardRange(object.metadata.uid, '0x…', '0x…') terms joined by ||`,
      );
    }
    const [, field = '', startText = '', endText = ''] = m;
    if (!FIELDS.has(field)) {
      throw new SelectorError(
        `invalid shardSelector ${JSON.stringify(text)}: field ${field} is not supported (object.metadata.uid, object.metadata.namespace)`,
      );
    }
    const start = BigInt(startText);
    const end = BigInt(endText);
    if (start >= end || end > SPACE) {
      throw new SelectorError(
        `invalid shardSelector ${JSON.stringify(text)}: range [${startText}, ${endText}) must be non-empty and within [0x0, 0x10000000000000000)`,
      );
    }
    return { field, start, end };
  });
  return {
    text,
    matches: (meta) =>
      ranges.some((r) => {
        const value = r.field === 'object.metadata.uid' ? (meta.uid ?? '') : (meta.namespace ?? '');
        return fnv1a64InRange(value, r.start, r.end);
      }),
  };
}
