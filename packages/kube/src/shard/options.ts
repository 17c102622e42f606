/**
 * Sharding settings of a Manager (`sharding: { ring }`), their defaults and their validation, and
 * the typed errors a ring fails with. Defaults are in docs/defaults.md.
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';

import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  LEADER_ELECTION_JITTER_FACTOR,
} from '../leader/leader-elector.js';
import { assertNumber, InvalidArgumentError } from '../internal/invalid-argument.js';

/**
 * Default number of buckets the hash space is cut into (issue 22): enough that N ≤ 16 members
 * each get a share within about ±20 %, few enough that the fence Leases stay a handful of objects.
 *
 * ## Example
 * ```ts
 * new Manager({ client, name: 'widget-operator', sharding: { ring: 'widgets', buckets: 2 * DEFAULT_SHARD_BUCKETS } });
 * ```
 */
export const DEFAULT_SHARD_BUCKETS = 64;
/**
 * Largest bucket count: one fence Lease per bucket must stay cheap to list.
 *
 * ## Example
 * ```ts
 * declare const requested: number;
 * const buckets = Math.min(requested, MAX_SHARD_BUCKETS);
 * ```
 */
export const MAX_SHARD_BUCKETS = 1024;
/**
 * Default bound on a hand-off's drain: the old owner lets a moving bucket's reconciles in flight
 * finish for this long, then cancels them, then releases the fence.
 *
 * ## Example
 * ```ts
 * new Manager({ client, name: 'widget-operator', sharding: { ring: 'widgets', drainTimeoutMs: 2 * DEFAULT_SHARD_DRAIN_TIMEOUT_MS } });
 * ```
 */
export const DEFAULT_SHARD_DRAIN_TIMEOUT_MS = 10_000;

/**
 * The label every Lease of a ring carries (`rxkube.io/shard-ring=<ring>`); members list by it.
 *
 * ## Example
 * ```ts
 * declare const leaseType: ResourceType<Lease>;
 * declare const namespace: string;
 * const leases = await client.list(leaseType, { namespace, labelSelector: `${SHARD_RING_LABEL}=widgets` });
 * ```
 */
export const SHARD_RING_LABEL = 'rxkube.io/shard-ring';
/**
 * The label saying what a ring's Lease is: `member` (one per replica) or `fence` (one per bucket).
 *
 * ## Example
 * ```ts
 * declare const leases: ObjectList<Lease>;
 * const members = leases.items.filter((l) => l.metadata.labels?.[SHARD_ROLE_LABEL] === 'member');
 * ```
 */
export const SHARD_ROLE_LABEL = 'rxkube.io/shard-role';

/**
 * Sharding settings: the ring's name and, optionally, its timings.
 *
 * ## Example
 * ```ts
 * const sharding: ShardingOptions = { ring: 'widgets', key: 'namespace' };
 * new Manager({ client, name: 'widget-operator', sharding });
 * ```
 */
export interface ShardingOptions {
  /** The ring's name, a DNS label: every replica of the operator names the same ring. */
  readonly ring: string;
  /** How many buckets the hash space is cut into (1 to 1024); all members must agree. Default 64. */
  readonly buckets?: number;
  /**
   * What a primary object is hashed by: its `metadata.uid` (KEP-5866's choice, the default) or its
   * namespace (a namespace's objects stay on one member). Children and mapped triggers follow
   * their primary.
   */
  readonly key?: 'uid' | 'namespace';
  /** The Leases' namespace: `POD_NAMESPACE`, else `default`. */
  readonly namespace?: string;
  /** This member's identity; default the Manager's identity. */
  readonly identity?: string;
  /** A member whose Lease was not renewed for this long leaves the ring. Default 15 s. */
  readonly leaseDurationMs?: number;
  /** A member that could not renew for this long stops reconciling at once. Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Time between two renewals (and looks at the ring). Default 2 s. */
  readonly retryPeriodMs?: number;
  /** How long a moving bucket's reconciles in flight may finish before being cancelled. Default 10 s. */
  readonly drainTimeoutMs?: number;
  /** The ring's clock and timers (a virtual-time scheduler in tests). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Who drops the other buckets' objects from the primary watch: `'server'` (KEP-5866
   * `shardSelector`) or `'client'` (the same hash, after parsing). Default: the server where a list
   * echoes `shardInfo`, else the client — set it only to measure or to work around a server.
   */
  readonly filtering?: 'server' | 'client';
}

/**
 * The settings with defaults filled in (what a ring runs with).
 *
 * ## Example
 * ```ts
 * const resolved: ResolvedShardingOptions = resolveShardingOptions({ ring: 'widgets' }, 'op-0_1a2b3c4d');
 * console.log(resolved.buckets, resolved.leaseDurationMs); // 64 15000
 * ```
 */
export interface ResolvedShardingOptions {
  readonly ring: string;
  readonly buckets: number;
  readonly key: 'uid' | 'namespace';
  readonly namespace: string;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly drainTimeoutMs: number;
  /** Unset: asked of the server. */
  readonly filtering?: 'server' | 'client';
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const OPERATOR = 'Manager';

/**
 * Checks sharding settings and fills in the defaults.
 *
 * ## Example
 * ```ts
 * const resolved = resolveShardingOptions({ ring: 'widgets' }, 'widget-operator-0_1a2b3c4d');
 * resolved.buckets; // 64
 * ```
 *
 * @throws {InvalidArgumentError} naming the bad setting and the fix: a ring that is not a DNS
 *   label of at most 40 characters (it prefixes Lease names), a bucket count out of 1..1024,
 *   an unknown key, timings that break `leaseDuration > renewDeadline > 1.2 × retryPeriod`.
 */
export function resolveShardingOptions(options: ShardingOptions, identity: string): ResolvedShardingOptions {
  const fail = (field: string, value: unknown, expected: string): never => {
    throw new InvalidArgumentError(OPERATOR, `options.sharding.${field}`, value, expected);
  };
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.sharding',
      options,
      'must be an object like { ring: "widgets" }',
    );
  }
  if (typeof options.ring !== 'string' || options.ring.length > 40 || !DNS_LABEL.test(options.ring)) {
    fail(
      'ring',
      options.ring,
      'must be a DNS label of at most 40 characters such as "widgets" (lower-case letters, digits, "-"; it prefixes the ring\'s Lease names)',
    );
  }
  const buckets = options.buckets ?? DEFAULT_SHARD_BUCKETS;
  assertNumber(OPERATOR, 'options.sharding.buckets', buckets, 1, true);
  if (buckets > MAX_SHARD_BUCKETS) {
    fail(
      'buckets',
      buckets,
      `must be at most ${MAX_SHARD_BUCKETS} (one fence Lease per bucket); the default is ${DEFAULT_SHARD_BUCKETS}`,
    );
  }
  const key = options.key ?? 'uid';
  if (key !== 'uid' && key !== 'namespace') fail('key', key, 'must be "uid" or "namespace"');
  const leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
  const renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
  const retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
  const drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_SHARD_DRAIN_TIMEOUT_MS;
  assertNumber(OPERATOR, 'options.sharding.leaseDurationMs', leaseDurationMs, 1_000, false);
  assertNumber(OPERATOR, 'options.sharding.renewDeadlineMs', renewDeadlineMs, 1, false);
  assertNumber(OPERATOR, 'options.sharding.retryPeriodMs', retryPeriodMs, 1, false);
  assertNumber(OPERATOR, 'options.sharding.drainTimeoutMs', drainTimeoutMs, 0, false);
  if (leaseDurationMs <= renewDeadlineMs + retryPeriodMs) {
    fail(
      'leaseDurationMs',
      leaseDurationMs,
      `must be greater than renewDeadlineMs + retryPeriodMs (${renewDeadlineMs + retryPeriodMs}): a member stops before the others take its buckets`,
    );
  }
  if (renewDeadlineMs <= LEADER_ELECTION_JITTER_FACTOR * retryPeriodMs) {
    fail('renewDeadlineMs', renewDeadlineMs, `must be greater than 1.2 × retryPeriodMs (${retryPeriodMs})`);
  }
  const id = options.identity ?? identity;
  if (typeof id !== 'string' || id === '') fail('identity', id, 'must be a non-empty string');
  const filtering = options.filtering;
  if (filtering !== undefined && filtering !== 'server' && filtering !== 'client') {
    fail('filtering', filtering, 'must be "server", "client" or left out (asked of the server)');
  }
  const namespace = options.namespace ?? process.env['POD_NAMESPACE'] ?? 'default';
  if (typeof namespace !== 'string' || !DNS_LABEL.test(namespace))
    fail('namespace', namespace, 'must be a namespace name');
  return {
    ring: options.ring,
    buckets,
    key,
    namespace,
    identity: id,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    drainTimeoutMs,
    ...(filtering !== undefined ? { filtering } : {}),
  };
}

/**
 * Another live replica already holds this member's identity in the ring: two replicas with one
 * identity would both believe they own the same buckets. Raised by `ShardRing.join()` when the
 * member Lease of the identity was renewed by someone else while this replica watched it.
 *
 * ## Example
 * ```ts
 * try {
 *   await mgr.start();
 * } catch (e) {
 *   if (e instanceof DuplicateShardIdentityError) console.error(e.message); // give each replica its own POD_NAME
 *   throw e;
 * }
 * ```
 */
export class DuplicateShardIdentityError extends Error {
  readonly _tag = 'DuplicateShardIdentityError' as const;
  override readonly name = 'DuplicateShardIdentityError';
  constructor(
    readonly ring: string,
    readonly identity: string,
    readonly lease: string,
  ) {
    super(
      `shard ring ${ring}: identity ${JSON.stringify(identity)} is in use by another live replica ` +
        `(its member Lease ${lease} is being renewed); give each replica its own identity ` +
        '(the default, POD_NAME plus a random suffix, is unique) and start again',
    );
  }
}
