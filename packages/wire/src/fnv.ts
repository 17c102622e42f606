/**
 * The 64-bit FNV-1a hash KEP-5866 specifies for `shardSelector`, and the buckets it cuts the hash
 * space into: one definition for the two sides that must agree on it — the sharded controllers of
 * `@rxkube/kube/shard` (which bucket a key is in) and the embedded API server of `@rxkube/testing`
 * (which objects a `shardRange()` selects). The facts and their sources are in
 * `packages/testing/fixtures/sharding/README.md`.
 *
 * @module
 */
const TWO_32 = 4294967296;
const SPACE = 1n << 64n;
const encoder = new TextEncoder();

let hashHi = 0;
let hashLo = 0;

/**
 * FNV-1a 64 of `text`'s UTF-8 bytes into `hashHi`, `hashLo` (two 32-bit halves), computed on four
 * 16-bit limbs in small integers (no BigInt, no float modulo, no allocation: this runs once per
 * key of every reconcile, and once per object of every sharded list and watch event). The prime
 * 0x100000001b3 is 2^40 + 0x1b3: limb 0 × 0x1b3, plus limb 2 × 0x100. ASCII (every uid and
 * namespace) is hashed from its char codes; other text from its UTF-8 encoding.
 */
function fnvHalves(text: string): void {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) {
      fnvBytes(encoder.encode(text));
      return;
    }
    h0 ^= c;
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (t1 >>> 16) + h0 * 0x100;
    const t3 = h3 * 0x1b3 + (t2 >>> 16) + h1 * 0x100;
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  hashHi = h3 * 0x10000 + h2;
  hashLo = h1 * 0x10000 + h0;
}

/** {@link fnvHalves} of bytes. */
function fnvBytes(bytes: Uint8Array): void {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (const byte of bytes) {
    h0 ^= byte;
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (t1 >>> 16) + h0 * 0x100;
    const t3 = h3 * 0x1b3 + (t2 >>> 16) + h1 * 0x100;
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  hashHi = h3 * 0x10000 + h2;
  hashLo = h1 * 0x10000 + h0;
}

/**
 * 64-bit FNV-1a of a string's UTF-8 bytes (the hash KEP-5866 specifies for `shardSelector`).
 *
 * ## Example
 * ```ts
 * fnv1a64('') === 0xcbf29ce484222325n; // the offset basis
 * fnv1a64('a') === 0xaf63dc4c8601ec8cn;
 * ```
 */
export function fnv1a64(text: string): bigint {
  fnvHalves(text);
  return (BigInt(hashHi) << 32n) | BigInt(hashLo);
}

/**
 * Whether a string's 64-bit FNV-1a hash is in `[start, end)` (`end` at most `2^64`): what
 * KEP-5866's `shardRange(field, 'start', 'end')` selects. The hash is compared as two 32-bit
 * halves, never built as a BigInt.
 *
 * ## Example
 * ```ts
 * const firstHalf = fnv1a64InRange('0b0a5c2e-7d5e-4c1b-9a8f-0c3c1c1f3a11', 0n, 1n << 63n);
 * ```
 */
export function fnv1a64InRange(text: string, start: bigint, end: bigint): boolean {
  fnvHalves(text);
  const hi = hashHi;
  const lo = hashLo;
  const atLeast = (n: bigint): boolean => {
    const bhi = Number(n >> 32n);
    return hi > bhi || (hi === bhi && lo >= Number(n & 0xffffffffn));
  };
  return atLeast(start) && !atLeast(end);
}

/**
 * The bucket of a key: the hash space `[0, 2^64)` cut into `buckets` contiguous ranges, so a
 * set of buckets is a set of hash ranges — what KEP-5866's `shardRange()` selects server-side.
 * Bucket `b` holds the hashes `h` with `floor(h × buckets / 2^64) = b`.
 *
 * ## Example
 * ```ts
 * declare const widget: { metadata: { uid?: string } };
 * const bucket = bucketOf(widget.metadata.uid ?? '', 64); // 0..63
 * ```
 */
export function bucketOf(key: string, buckets: number): number {
  fnvHalves(key);
  const hi = hashHi;
  const lo = hashLo;
  // floor((hi·2^32 + lo)·B / 2^64), exact in doubles for B ≤ 2^20.
  if (buckets <= 1 << 20) return Math.floor((hi * buckets + Math.floor((lo * buckets) / TWO_32)) / TWO_32);
  return Number((fnv1a64(key) * BigInt(buckets)) >> 64n);
}

/**
 * The hash range `[start, end)` of a bucket (`end` of the last bucket is `2^64`).
 *
 * ## Example
 * ```ts
 * bucketRange(0, 2); // { start: 0n, end: 0x8000000000000000n }
 * ```
 */
export function bucketRange(bucket: number, buckets: number): { start: bigint; end: bigint } {
  const edge = (b: number): bigint => (BigInt(b) * SPACE + BigInt(buckets) - 1n) / BigInt(buckets);
  return { start: edge(bucket), end: edge(bucket + 1) };
}
