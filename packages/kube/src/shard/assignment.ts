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
import { fnv1a64 } from '@rxkube/wire';

// The hash and the buckets are @rxkube/wire's, shared with the embedded API server's shardSelector.
export { bucketOf, bucketRange, fnv1a64 } from '@rxkube/wire';

const MASK = 0xffffffffffffffffn;

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
