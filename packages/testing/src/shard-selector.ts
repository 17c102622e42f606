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

/** 64-bit FNV-1a of a string's UTF-8 bytes. */
export function fnv1a64(text: string): bigint {
  const [hi, lo] = fnvHalves(text);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

const encoder = new TextEncoder();

/**
 * FNV-1a 64 as two 32-bit halves, on four 16-bit limbs in small integers: the server hashes every
 * object of every sharded list and watch event, so no BigInt per byte. The prime 0x100000001b3 is
 * 2^40 + 0x1b3: limb 0 × 0x1b3, plus limb 2 × 0x100.
 */
function fnvHalves(text: string): [hi: number, lo: number] {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  let ascii = true;
  for (let i = 0; i < text.length && ascii; i++) if (text.charCodeAt(i) > 0x7f) ascii = false;
  const bytes = ascii ? undefined : encoder.encode(text);
  const length = bytes === undefined ? text.length : bytes.length;
  for (let i = 0; i < length; i++) {
    h0 ^= bytes === undefined ? text.charCodeAt(i) : (bytes[i] ?? 0);
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (t1 >>> 16) + h0 * 0x100;
    const t3 = h3 * 0x1b3 + (t2 >>> 16) + h1 * 0x100;
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  return [h3 * 0x10000 + h2, h1 * 0x10000 + h0];
}

/** `[hi, lo]` of a bound in `[0, 2^64]` (2^64 as `[2^32, 0]`), compared lexicographically. */
function halvesOf(n: bigint): [number, number] {
  return [Number(n >> 32n), Number(n & 0xffffffffn)];
}

function below(h: readonly [number, number], bound: readonly [number, number]): boolean {
  return h[0] < bound[0] || (h[0] === bound[0] && h[1] < bound[1]);
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
    return { field, start: halvesOf(start), end: halvesOf(end) };
  });
  return {
    text,
    matches: (meta) =>
      ranges.some((r) => {
        const value = r.field === 'object.metadata.uid' ? (meta.uid ?? '') : (meta.namespace ?? '');
        const h = fnvHalves(value);
        return !below(h, r.start) && below(h, r.end);
      }),
  };
}
