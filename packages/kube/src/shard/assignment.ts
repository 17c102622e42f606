/**
 * Assignment of keys to ring members, as pure functions every member computes alike: a key's
 * bucket is the range of the 64-bit FNV-1a hash space its hash falls in (the space cut into a
 * fixed number of equal ranges); a bucket's owner is the live member
 * with the highest rendezvous (HRW) weight for it. A membership change moves only the buckets the
 * joining member wins or the leaving member held: about 1/N of them (property-tested).
 *
 * What it does not do: read Leases or decide liveness (`ShardRing` does).
 *
 * @module
 */
const MASK = 0xffffffffffffffffn;
const TWO_32 = 4294967296;
const encoder = new TextEncoder();

/**
 * FNV-1a 64 as two 32-bit halves, computed on four 16-bit limbs in small integers (no BigInt, no
 * float modulo: this runs once per key of every reconcile). The prime 0x100000001b3 is
 * 2^40 + 0x1b3: limb 0 × 0x1b3, plus limb 2 × 0x100.
 */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function fnvHalves(text: string): [hi: number, lo: number] {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  const ascii = isAscii(text);
  const bytes: ArrayLike<number> | undefined = ascii ? undefined : encoder.encode(text);
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
  const [hi, lo] = fnvHalves(text);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

const SPACE = 1n << 64n;

/**
 * The bucket of a key: the hash space `[0, 2^64)` cut into `buckets` contiguous ranges, so a
 * set of buckets is a set of hash ranges — what KEP-5866's `shardRange()` selects server-side.
 * Bucket `b` holds the hashes `h` with `floor(h × buckets / 2^64) = b`.
 *
 * ## Example
 * ```ts
 * const bucket = bucketOf(widget.metadata.uid ?? '', 64); // 0..63
 * ```
 */
export function bucketOf(key: string, buckets: number): number {
  const [hi, lo] = fnvHalves(key);
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

/** splitmix64's finalizer: spreads FNV's weak low bits so HRW weights are uniform. */
function mix(value: bigint): bigint {
  let z = value & MASK;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}

/**
 * The rendezvous weight of `member` for `bucket`.
 *
 * ## Example
 * ```ts
 * const winner = ['a', 'b'].reduce((x, y) => (hrwWeight(y, 7) > hrwWeight(x, 7) ? y : x));
 * ```
 */
export function hrwWeight(member: string, bucket: number): bigint {
  return mix(fnv1a64(`${member}\u0000${bucket}`));
}

/**
 * The owner of every bucket (index = bucket) among `members`, by rendezvous hashing; ties (never
 * in practice) go to the smaller identity. Order of `members` does not matter. No members: every
 * owner is `undefined`.
 *
 * ## Example
 * ```ts
 * const identity = 'op-0_1a2b'; // this replica's
 * const owners = assignBuckets(64, [identity, 'op-1_3c4d']);
 * const mine = owners.flatMap((owner, bucket) => (owner === identity ? [bucket] : []));
 * ```
 */
export function assignBuckets(buckets: number, members: Iterable<string>): (string | undefined)[] {
  const list = [...new Set(members)].sort();
  const owners: (string | undefined)[] = [];
  for (let bucket = 0; bucket < buckets; bucket++) {
    let best: string | undefined;
    let bestWeight = -1n;
    for (const member of list) {
      const weight = hrwWeight(member, bucket);
      if (weight > bestWeight) {
        best = member;
        bestWeight = weight;
      }
    }
    owners.push(best);
  }
  return owners;
}
