/**
 * `@rxkube/kube/shard`: scaling an operator out across replicas. Keys are split into buckets of
 * the 64-bit FNV-1a hash space, assigned to live replicas by rendezvous hashing; each replica
 * holds a membership Lease and, per bucket it reconciles, a fence Lease; hand-offs drain before
 * they release. Turn it on with `new Manager({ …, sharding: { ring: 'widgets' } })`.
 *
 * @module @rxkube/kube/shard
 */
export { assignBuckets, bucketOf, bucketRange, fnv1a64, hrwWeight } from './assignment.js';
export { BucketGate } from './bucket-gate.js';
export type { ReleaseStep, ReleaseSteps } from './hand-off.js';
export { acquireBucket, releaseBucket } from './hand-off.js';
export type { ResolvedShardingOptions, ShardingOptions } from './options.js';
export {
  DEFAULT_SHARD_BUCKETS,
  DEFAULT_SHARD_DRAIN_TIMEOUT_MS,
  DuplicateShardIdentityError,
  MAX_SHARD_BUCKETS,
  resolveShardingOptions,
  SHARD_RING_LABEL,
  SHARD_ROLE_LABEL,
} from './options.js';
export type { ShardHandOff, ShardTick } from './shard-ring.js';
export { fenceLeaseName, memberLeaseName, ShardRing } from './shard-ring.js';
export { shardSelector } from './selector.js';
export { ManagerSharding } from './manager-sharding.js';
export { supportsShardSelector } from './server-support.js';
export type { ShardedWatch, ShardedWatchOptions, ShardFiltering } from './sharded-watch.js';
export { shardedWatch } from './sharded-watch.js';
