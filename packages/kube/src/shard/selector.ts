/**
 * KEP-5866 `shardSelector` strings for a set of buckets: consecutive buckets merge into one
 * `shardRange(field, start, end)`, ranges joined by `||`. The server filters lists and watches by
 * it where it supports the parameter, and echoes it in the list's `metadata.shardInfo.selector`.
 *
 * @module
 */
import { bucketRange } from './assignment.js';

const hex = (n: bigint): string => `0x${n.toString(16)}`;

/**
 * The `shardSelector` of `owned` buckets out of `buckets`, on `object.metadata.uid` or
 * `object.metadata.namespace`; `undefined` when no bucket is owned (select nothing: do not watch).
 *
 * ## Example
 * ```ts
 * shardSelector([0, 1], 4, 'uid'); // "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')"
 * ```
 */
export function shardSelector(
  owned: Iterable<number>,
  buckets: number,
  key: 'uid' | 'namespace',
): string | undefined {
  const sorted = [...new Set(owned)].filter((b) => b >= 0 && b < buckets).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const field = key === 'uid' ? 'object.metadata.uid' : 'object.metadata.namespace';
  const ranges: { start: number; end: number }[] = [];
  for (const b of sorted) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last.end === b) last.end = b + 1;
    else ranges.push({ start: b, end: b + 1 });
  }
  return ranges
    .map(
      (r) =>
        `shardRange(${field}, '${hex(bucketRange(r.start, buckets).start)}', '${hex(bucketRange(r.end - 1, buckets).end)}')`,
    )
    .join(' || ');
}
