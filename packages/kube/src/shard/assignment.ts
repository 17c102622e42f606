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
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;
const encoder = new TextEncoder();

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
  let hash = FNV_OFFSET;
  for (const byte of encoder.encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK;
  }
  return hash;
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
 * const owners = assignBuckets(64, ['op-0_1a2b', 'op-1_3c4d']);
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
