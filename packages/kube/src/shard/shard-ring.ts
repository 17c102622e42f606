/**
 * `ShardRing`: one replica's membership in a ring of replicas that share a controller's keys,
 * coordinated through `coordination.k8s.io/v1` Leases and nothing else.
 *
 * - Membership: each member holds a Lease of its own (`<ring>-member-<hash of identity>`,
 *   labelled `rxkube.io/shard-ring=<ring>`, `rxkube.io/shard-role=member`), renewed every
 *   `retryPeriod` like the leader Lease (a PUT carrying the resourceVersion it read). A member
 *   whose Lease did not change for `leaseDuration` on the observer's own clock (client-go's
 *   observedTime: never the writer's timestamps) or names no holder has left the ring.
 * - Assignment: every member lists the ring's Leases each `retryPeriod` and computes the same
 *   owner of every bucket from the live members (`assignBuckets`, rendezvous hashing).
 * - Fencing: each bucket has a fence Lease (`<ring>-fence-<bucket>`). A member takes a bucket's
 *   keys only while its fence names it. A fence is taken (PUT with the read resourceVersion, so two
 *   members never both win) only when free, or when its holder has left the ring. Fences are not
 *   renewed: they are valid while their holder's membership is — one renewal per member, not one per
 *   bucket. A member that could not renew its membership for `retryPeriod + renewDeadline` (12 s
 *   with the defaults, shorter than the 15 s others wait) closes every bucket at once and cancels
 *   its reconciles in flight, so a frozen or partitioned member has stopped before anyone takes
 *   its buckets.
 * - Hand-off: when a bucket's owner changes, the old owner stops taking its keys, lets its
 *   reconciles in flight finish (at most `drainTimeout`, then cancels them), and releases the
 *   fence; the new owner acquires it at its next look and only then takes the keys
 *   (`releaseBucket`, `acquireBucket`). A dead member's buckets are taken once its membership
 *   expired: between `leaseDuration` and `leaseDuration + retryPeriod` (plus request latency)
 *   after its last renewal, as observed by the others (`deadMemberBoundMs`).
 * - Duplicate identity: `join()` first looks at the member Lease of its identity; one that is held
 *   and renewed twice while this member watches it (each change restarts a `leaseDuration` wait)
 *   belongs to another live replica: `DuplicateShardIdentityError`. A single change is allowed: it
 *   may be the last renewal of a killed replica of this identity, applied by the server after the
 *   kill. After joining, each renewal reads the Lease first: one whose
 *   resourceVersion is not the one this member wrote last was renewed by another replica of the
 *   same identity (one that joined while this member was frozen): this member stops at once and
 *   emits the error on `fatal$` (the Manager logs it and stops).
 *
 * What it does not do: fence writes at the API server (a member frozen past its lease may finish
 * one request after the others moved on — the renew deadline bounds that window, as for leader
 * election), or decide which controller keys map to which bucket (`bucketOf` on the key the
 * Manager gives it).
 *
 * @module
 */
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { asyncScheduler, BehaviorSubject, firstValueFrom, lastValueFrom, of, Subject } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import { isAlreadyExists, isConflict, isNotFound } from '../errors.js';
import type { Lease, LeaseSpec } from '../leader/leader-elector.js';
import { microTime } from '../leader/leader-elector.js';
import type { KubeObject } from '../types.js';
import { assignBuckets, bucketOf, fnv1a64 } from './assignment.js';
import { BucketGate } from './bucket-gate.js';
import type { ReleaseStep } from './hand-off.js';
import { acquireBucket, releaseBucket } from './hand-off.js';
import type { ResolvedShardingOptions } from './options.js';
import { DuplicateShardIdentityError, SHARD_RING_LABEL, SHARD_ROLE_LABEL } from './options.js';

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' } as const;

/**
 * A change of a bucket's owner as this member saw it (one per hand-off; logged and counted).
 *
 * ## Example
 * ```ts
 * declare const ring: ShardRing;
 * ring.handoffs$.subscribe((h: ShardHandOff) => log.info(h, `bucket ${h.bucket} ${h.direction}`));
 * ```
 */
export interface ShardHandOff {
  readonly bucket: number;
  /**
   * `acquired`: this member took the bucket; `released`: it handed it back after draining;
   * `lost`: it stopped at once (its membership could not be renewed, or another holds the fence).
   */
  readonly direction: 'acquired' | 'released' | 'lost';
  /** Scheduler time from the decision to the end of the step (drain + release, or acquisition). */
  readonly durationMs: number;
  /** For `released`: whether reconciles were cancelled at the drain deadline. */
  readonly cancelled?: boolean;
  /** For `acquired`: the previous holder (`''` when free or new). */
  readonly from?: string;
}

/**
 * One look at the ring (a tick), as reported on {@link ShardRing.ticks$}.
 *
 * ## Example
 * ```ts
 * declare const ring: ShardRing;
 * ring.ticks$.subscribe((t: ShardTick) => t.error && log.warn({ err: t.error }, 'shard ring look failed'));
 * ```
 */
export interface ShardTick {
  readonly at: number;
  /** Live members (identities), sorted. */
  readonly members: readonly string[];
  /** Buckets this member takes keys of after the tick. */
  readonly owned: readonly number[];
  /** Buckets the assignment gives this member. */
  readonly desired: readonly number[];
  readonly error?: unknown;
}

type BucketState = 'open' | 'draining' | 'releasing';

/**
 * The member Lease name of an identity in a ring: identities may hold characters a name may not.
 *
 * ## Example
 * ```ts
 * memberLeaseName('widgets', 'op-0_1a2b3c4d'); // "widgets-member-…" (16 hex digits)
 * ```
 */
export function memberLeaseName(ring: string, identity: string): string {
  return `${ring}-member-${fnv1a64(identity).toString(16).padStart(16, '0')}`;
}

/**
 * The fence Lease name of a bucket.
 *
 * ## Example
 * ```ts
 * fenceLeaseName('widgets', 7); // "widgets-fence-7"
 * ```
 */
export function fenceLeaseName(ring: string, bucket: number): string {
  return `${ring}-fence-${bucket}`;
}

/**
 * A replica's membership in a shard ring: membership Lease, assignment, fences, hand-offs.
 *
 * ## Example
 * ```ts
 * declare const reconcile$: Observable<Action>; // one key's reconcile
 * const ring = new ShardRing(client, resolveShardingOptions({ ring: 'widgets' }, mgr.identity));
 * await ring.join(); // DuplicateShardIdentityError if the identity is in use
 * const run$ = ring.gate.run(ring.bucketOfObject(widget), reconcile$); // undefined: not ours now
 * await ring.leave(); // graceful: drain, release fences, release membership
 * ```
 *
 * ## Semantics
 * - `join()` resolves once the membership Lease is written (first look at the ring scheduled at
 *   once); rejects with `DuplicateShardIdentityError`.
 * - `owned$` replays the buckets taking keys now; `acquired$` emits a bucket when it was just
 *   acquired (the Manager then requests every key of it); `handoffs$` one value per hand-off.
 * - `stop()` stops looking and renewing without releasing anything (a crash, for tests: the
 *   others take the buckets once the membership expired); `leave()` is the graceful exit.
 * - Failures of a look (network, 5xx, 403) are reported on `ticks$` and retried next period.
 *
 * ## Memory
 * The last observed record of each Lease of the ring (1 + buckets + members); per bucket a state.
 *
 * @param scheduler clock (observed times, written MicroTimes) and timers.
 */
export class ShardRing {
  /** Intake and in-flight reconciles per bucket. */
  readonly gate = new BucketGate();
  /** The resolved settings. */
  readonly options: ResolvedShardingOptions;
  private readonly owned = new BehaviorSubject<readonly number[]>([]);
  private readonly watched = new BehaviorSubject<readonly number[]>([]);
  private readonly fatal = new Subject<DuplicateShardIdentityError>();
  private desiredNow: readonly number[] = [];
  private readonly membersSubject = new BehaviorSubject<readonly string[]>([]);
  private readonly acquired = new Subject<number>();
  private readonly handoffs = new Subject<ShardHandOff>();
  private readonly ticks = new Subject<ShardTick>();
  private readonly states = new Map<number, BucketState>();
  private readonly observed = new Map<string, { key: string; at: number }>();
  private readonly drains = new Map<number, { sub: Subscription; done: Promise<void>; end: () => void }>();
  private memberLease: Lease | undefined;
  /** `renewTime` of the last membership write sent (its answer may be lost). */
  private attemptedRenewTime: string | undefined;
  private lastRenewAt = 0;
  private running = false;
  private inFlight: Promise<void> | undefined;
  private tick: Subscription | undefined;
  private deadline: Subscription | undefined;
  private syncedOnce = false;
  private joined = false;
  private joining:
    | {
        readonly promise: Promise<void>;
        readonly resolve: () => void;
        readonly reject: (e: unknown) => void;
        watched: { readonly key: string; readonly until: number; readonly changes: number } | undefined;
      }
    | undefined;

  /** Buckets taking keys now (replays). */
  readonly owned$: Observable<readonly number[]>;
  /**
   * Buckets whose objects this member needs in its cache (replays): those the assignment gives it
   * and those it still holds (open, draining or releasing). A bucket leaves only once released.
   */
  readonly watched$: Observable<readonly number[]>;
  /**
   * After joining, the identity's member Lease was renewed by someone else: another replica runs
   * with this identity. The ring has stopped (every reconcile cancelled) when this emits.
   */
  readonly fatal$: Observable<DuplicateShardIdentityError>;
  /** Live members (replays). */
  readonly members$: Observable<readonly string[]>;
  /** A bucket just acquired (its keys should be requested). */
  readonly acquired$: Observable<number>;
  /** One value per hand-off. */
  readonly handoffs$: Observable<ShardHandOff>;
  /** One value per look at the ring. */
  readonly ticks$: Observable<ShardTick>;

  constructor(
    private readonly client: KubeClient,
    options: ResolvedShardingOptions,
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    this.options = options;
    this.owned$ = this.owned.asObservable();
    this.watched$ = this.watched.asObservable();
    this.fatal$ = this.fatal.asObservable();
    this.members$ = this.membersSubject.asObservable();
    this.acquired$ = this.acquired.asObservable();
    this.handoffs$ = this.handoffs.asObservable();
    this.ticks$ = this.ticks.asObservable();
  }

  /** This member's identity. */
  get identity(): string {
    return this.options.identity;
  }

  /**
   * Worst time from a member's death (its last renewal) to another member holding its buckets:
   * its membership must look unchanged for `leaseDuration`, seen at a look every `retryPeriod`,
   * plus one look to acquire — `leaseDuration + 2 × retryPeriod` (plus request latency).
   */
  get deadMemberBoundMs(): number {
    return this.options.leaseDurationMs + 2 * this.options.retryPeriodMs;
  }

  /** Whether every bucket the assignment gave this member was held at least once (readiness). */
  get synced(): boolean {
    return this.syncedOnce;
  }

  /** The bucket of a primary object (by `metadata.uid` or namespace, per `options.key`). */
  bucketOfObject(object: KubeObject): number {
    return bucketOf(this.keyOf(object), this.options.buckets);
  }

  /** The hashed key of a primary object. */
  keyOf(object: KubeObject): string {
    return this.options.key === 'namespace' ? (object.metadata.namespace ?? '') : (object.metadata.uid ?? '');
  }

  /**
   * Starts looking at the ring (the first look at once) and resolves once this member's Lease is
   * written. A Lease of this identity that is held and renewed twice while this member only looks
   * (each change restarts a `leaseDuration` wait) is another live replica: the ring stops and
   * `join` rejects.
   *
   * @throws {DuplicateShardIdentityError} then.
   */
  join(): Promise<void> {
    if (this.joining !== undefined) return this.joining.promise;
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    this.joining = { promise, resolve, reject, watched: undefined };
    this.running = true;
    this.schedule(0);
    return promise;
  }

  /** While joining: whether the identity's Lease is someone else's (wait), or free to write. */
  private async checkIdentity(): Promise<'wait' | 'write'> {
    const joining = this.joining;
    if (joining === undefined || this.joined) return 'write';
    const name = memberLeaseName(this.options.ring, this.identity);
    const lease = await this.getLease(name);
    const now = this.scheduler.now();
    if (lease === undefined || lease.spec?.holderIdentity !== this.identity) return 'write';
    const key = JSON.stringify(lease.spec);
    const watched = joining.watched;
    if (watched === undefined) {
      joining.watched = { key, until: now + this.options.leaseDurationMs, changes: 0 };
      return 'wait';
    }
    if (watched.key === key) return now >= watched.until ? 'write' : 'wait';
    // One change may be the last renewal of a replica that was killed with its request in flight
    // (the server applies a request its sender no longer waits for): watch one more lease duration.
    // A live replica renews every retryPeriod, so it changes the Lease again within it.
    if (watched.changes === 0) {
      joining.watched = { key, until: now + this.options.leaseDurationMs, changes: 1 };
      return 'wait';
    }
    this.stop();
    joining.reject(new DuplicateShardIdentityError(this.options.ring, this.identity, name));
    return 'wait';
  }

  /** Stops looking and renewing without releasing anything: the others take over on expiry. */
  stop(): void {
    this.running = false;
    this.tick?.unsubscribe();
    this.deadline?.unsubscribe();
    for (const bucket of [...this.drains.keys()]) this.dropDrain(bucket);
    for (const bucket of [...this.states.keys()]) this.gate.cancel(bucket);
    this.states.clear();
    this.desiredNow = [];
    this.publishOwned();
  }

  /**
   * Graceful exit: stop taking keys, drain every bucket (each bounded by `drainTimeout`), release
   * every fence, then the membership; the others take the buckets at their next look. Never
   * throws: what could not be released expires.
   */
  async leave(): Promise<void> {
    this.running = false;
    this.tick?.unsubscribe();
    await this.inFlight;
    this.desiredNow = [];
    const held = [...this.states.keys()];
    await Promise.all(
      held.map((bucket) =>
        lastValueFrom(this.release(bucket), { defaultValue: undefined }).catch(() => undefined),
      ),
    );
    this.deadline?.unsubscribe();
    this.states.clear();
    this.publishOwned();
    const lease = this.memberLease;
    if (lease !== undefined) {
      const now = microTime(this.scheduler.now());
      await this.client
        .replace<Lease>({
          ...LEASE,
          metadata: { ...metaOf(lease), resourceVersion: lease.metadata.resourceVersion ?? '' },
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now },
        })
        .catch(() => undefined);
    }
  }

  private schedule(delay: number): void {
    this.tick?.unsubscribe();
    if (!this.running) return;
    this.tick = this.scheduler.schedule(() => {
      this.inFlight = this.look()
        .catch((error: unknown) => this.report(error, [], []))
        .then((t) => {
          this.ticks.next(t);
          this.schedule(this.options.retryPeriodMs);
        });
    }, delay);
  }

  /** One look: renew, list, assign, then open, drain or release buckets. */
  private async look(): Promise<ShardTick> {
    let error: unknown;
    try {
      if ((await this.checkIdentity()) === 'wait') return this.report(undefined, [], []);
      // Stopped (or killed) while a request of this look was in flight: write nothing more.
      if (!this.running) return this.report(undefined, [], []);
      await this.renewMembership();
      if (!this.running) return this.report(undefined, [], []);
      this.armDeadline();
      if (!this.joined) {
        this.joined = true;
        this.joining?.resolve();
      }
    } catch (e) {
      error = e;
      // Not a member yet: nothing else to do until the membership is written.
      if (!this.joined) return this.report(e, [], []);
    }
    let leases: Lease[];
    try {
      leases = (
        await this.client.list<Lease>(LEASE, {
          namespace: this.options.namespace,
          labelSelector: `${SHARD_RING_LABEL}=${this.options.ring}`,
        })
      ).items;
    } catch (e) {
      return this.report(e, [], []);
    }
    if (!this.running) return this.report(error, [], []);
    const at = this.scheduler.now();
    const live = this.liveMembers(leases, at);
    this.membersSubject.next(live);
    const owners = assignBuckets(this.options.buckets, live);
    const desired = owners.flatMap((o, b) => (o === this.identity ? [b] : []));
    this.desiredNow = desired;
    this.publishWatched();
    const fences = new Map<number, Lease>();
    for (const l of leases) {
      if (l.metadata.labels?.[SHARD_ROLE_LABEL] !== 'fence') continue;
      const bucket = Number(l.metadata.name?.slice(`${this.options.ring}-fence-`.length));
      if (Number.isInteger(bucket)) fences.set(bucket, l);
    }
    const liveSet = new Set(live);
    const work: Promise<unknown>[] = [];
    for (let bucket = 0; bucket < this.options.buckets; bucket++) {
      const state = this.states.get(bucket);
      const fence = fences.get(bucket);
      const holder = fence?.spec?.holderIdentity ?? '';
      const mine = owners[bucket] === this.identity;
      if (state === 'open') {
        if (fence !== undefined && holder !== this.identity) this.lose(bucket);
        else if (!mine) this.startRelease(bucket);
      } else if (state === 'releasing') {
        if (!this.drains.has(bucket)) {
          work.push(lastValueFrom(this.release(bucket), { defaultValue: undefined }).catch(() => undefined));
        }
      } else if (state === undefined && mine && this.memberValid()) {
        if (fence === undefined || holder === '' || holder === this.identity || !liveSet.has(holder)) {
          work.push(this.take(bucket, fence));
        }
      } else if (state === undefined && !mine && holder === this.identity) {
        // A fence still naming us that we do not use (lost at the renew deadline, or left by an
        // earlier incarnation of this identity): hand it back, or its new owner waits forever.
        this.states.set(bucket, 'releasing');
        work.push(lastValueFrom(this.release(bucket), { defaultValue: undefined }).catch(() => undefined));
      }
    }
    await Promise.all(work);
    if (!this.syncedOnce && desired.every((b) => this.states.get(b) === 'open')) this.syncedOnce = true;
    return this.report(error, live, desired);
  }

  private report(error: unknown, members: readonly string[], desired: readonly number[]): ShardTick {
    return {
      at: this.scheduler.now(),
      members,
      owned: [...this.gate.opened].sort((a, b) => a - b),
      desired,
      ...(error !== undefined ? { error } : {}),
    };
  }

  /** Members whose Lease names a holder and changed within `leaseDuration` (on our clock). */
  private liveMembers(leases: readonly Lease[], at: number): string[] {
    const seen = new Set<string>();
    const live: string[] = [];
    for (const l of leases) {
      const name = l.metadata.name ?? '';
      seen.add(name);
      const key = JSON.stringify(l.spec ?? {});
      const previous = this.observed.get(name);
      if (previous?.key !== key) this.observed.set(name, { key, at });
      if (l.metadata.labels?.[SHARD_ROLE_LABEL] !== 'member') continue;
      const holder = l.spec?.holderIdentity ?? '';
      if (holder === '') continue;
      if (holder === this.identity) {
        if (this.memberValid()) live.push(holder);
        continue;
      }
      const since = this.observed.get(name)?.at ?? at;
      if (since + (l.spec?.leaseDurationSeconds ?? 0) * 1000 > at) live.push(holder);
    }
    for (const name of [...this.observed.keys()]) if (!seen.has(name)) this.observed.delete(name);
    return [...new Set(live)].sort();
  }

  /** Our membership was renewed within the deadline. */
  private memberValid(): boolean {
    return (
      this.running &&
      this.scheduler.now() - this.lastRenewAt < this.options.retryPeriodMs + this.options.renewDeadlineMs
    );
  }

  /** No renewal for `retryPeriod + renewDeadline`: every bucket is lost at once. */
  private armDeadline(): void {
    this.deadline?.unsubscribe();
    const due =
      this.lastRenewAt + this.options.retryPeriodMs + this.options.renewDeadlineMs - this.scheduler.now();
    this.deadline = this.scheduler.schedule(
      () => {
        for (const bucket of [...this.states.keys()]) this.lose(bucket);
      },
      Math.max(0, due),
    );
  }

  private lose(bucket: number): void {
    const started = this.scheduler.now();
    this.dropDrain(bucket);
    this.gate.cancel(bucket);
    this.states.delete(bucket);
    this.publishOwned();
    this.handoffs.next({ bucket, direction: 'lost', durationMs: this.scheduler.now() - started });
  }

  private async take(bucket: number, fence: Lease | undefined): Promise<void> {
    const started = this.scheduler.now();
    const from = fence?.spec?.holderIdentity ?? '';
    await firstValueFrom(
      acquireBucket(
        () => this.acquireFence(bucket, fence),
        () => {
          this.states.set(bucket, 'open');
          this.gate.open(bucket);
        },
      ),
      { defaultValue: false },
    ).then(
      (held) => {
        if (!held) return;
        this.publishOwned();
        this.handoffs.next({
          bucket,
          direction: 'acquired',
          durationMs: this.scheduler.now() - started,
          from,
        });
        this.acquired.next(bucket);
      },
      () => undefined,
    );
  }

  /** Starts the old owner's side of a hand-off in the background; the tick goes on. */
  private startRelease(bucket: number): void {
    let end!: () => void;
    const done = new Promise<void>((resolve) => (end = resolve));
    const finish = (): void => {
      if (this.drains.get(bucket)?.done === done) this.drains.delete(bucket);
      end();
    };
    // A failed release stays 'releasing': the next look tries again.
    const sub = this.release(bucket).subscribe({ error: finish, complete: finish });
    if (!sub.closed) this.drains.set(bucket, { sub, done, end });
  }

  /** Unsubscribes a background hand-off (its `done` resolves). */
  private dropDrain(bucket: number): void {
    const drain = this.drains.get(bucket);
    if (drain === undefined) return;
    this.drains.delete(bucket);
    drain.sub.unsubscribe();
    drain.end();
  }

  /**
   * Resolves once the look in flight and every hand-off started so far have ended (for tests and
   * shutdown: what the ring is doing now is done).
   */
  async settled(): Promise<void> {
    await this.inFlight;
    await Promise.all([...this.drains.values()].map((d) => d.done));
  }

  /**
   * The old owner's side of a hand-off (`releaseBucket`): close, drain (bounded), release the
   * fence; a bucket already drained ('releasing') only retries the release.
   */
  private release(bucket: number): Observable<ReleaseStep> {
    this.dropDrain(bucket);
    const started = this.scheduler.now();
    let cancelled = false;
    const alreadyDrained = this.states.get(bucket) === 'releasing';
    this.states.set(bucket, alreadyDrained ? 'releasing' : 'draining');
    return releaseBucket(
      {
        stopIntake: () => {
          this.gate.close(bucket);
          this.publishOwned();
        },
        drained$: alreadyDrained ? of(undefined) : this.gate.drained$(bucket),
        cancel: () => {
          cancelled = true;
          this.gate.cancel(bucket);
        },
        release: async () => {
          this.states.set(bucket, 'releasing');
          await this.releaseFence(bucket);
          this.states.delete(bucket);
          this.publishWatched();
          this.handoffs.next({
            bucket,
            direction: 'released',
            durationMs: this.scheduler.now() - started,
            cancelled,
          });
        },
      },
      this.options.drainTimeoutMs,
      this.scheduler,
    );
  }

  private publishOwned(): void {
    this.owned.next([...this.gate.opened].sort((a, b) => a - b));
    this.publishWatched();
  }

  private publishWatched(): void {
    const next = [...new Set([...this.desiredNow, ...this.states.keys()])].sort((a, b) => a - b);
    const last = this.watched.value;
    if (next.length !== last.length || next.some((b, i) => b !== last[i])) this.watched.next(next);
  }

  private async getLease(name: string): Promise<Lease | undefined> {
    try {
      return await this.client.get<Lease>({ ...LEASE, namespace: this.options.namespace, name });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private labels(role: 'member' | 'fence'): Record<string, string> {
    return { [SHARD_RING_LABEL]: this.options.ring, [SHARD_ROLE_LABEL]: role };
  }

  private spec(previous: LeaseSpec | undefined, durationSeconds: number): LeaseSpec {
    const now = microTime(this.scheduler.now());
    const renewing = previous?.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: durationSeconds,
      acquireTime: renewing ? (previous.acquireTime ?? now) : now,
      renewTime: now,
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (renewing || previous === undefined ? 0 : 1),
    };
  }

  /** GET + PUT (or create) of this member's Lease. */
  private async renewMembership(): Promise<void> {
    const name = memberLeaseName(this.options.ring, this.identity);
    const duration = Math.ceil(this.options.leaseDurationMs / 1000);
    const current = await this.getLease(name);
    if (!this.running) return;
    const mine = this.memberLease;
    if (
      this.joined &&
      mine !== undefined &&
      current?.spec?.holderIdentity === this.identity &&
      current.metadata.resourceVersion !== mine.metadata.resourceVersion &&
      current.spec.renewTime !== this.attemptedRenewTime
    ) {
      // Only replicas of this identity write this Lease: someone else renewed it since our
      // write (not our last attempt, whose answer may have been lost). Both would take the same fences: stop at once, release nothing (the fences are
      // as much the other's), and say so. The other sees our Lease unchanged and goes on.
      const error = new DuplicateShardIdentityError(this.options.ring, this.identity, name);
      this.stop();
      this.fatal.next(error);
      throw error;
    }
    const spec = this.spec(current?.spec, duration);
    this.attemptedRenewTime = spec.renewTime;
    const written =
      current === undefined
        ? await this.client.create<Lease>({
            ...LEASE,
            metadata: { name, namespace: this.options.namespace, labels: this.labels('member') },
            spec,
          })
        : await this.client.replace<Lease>({
            ...LEASE,
            metadata: {
              ...metaOf(current),
              labels: { ...current.metadata.labels, ...this.labels('member') },
              resourceVersion: current.metadata.resourceVersion ?? '',
            },
            spec,
          });
    this.memberLease = written;
    this.lastRenewAt = this.scheduler.now();
  }

  /** Takes a fence (create, or PUT over the read record); `false` when someone else won. */
  private async acquireFence(bucket: number, fence: Lease | undefined): Promise<boolean> {
    const name = fenceLeaseName(this.options.ring, bucket);
    const duration = Math.ceil(this.options.leaseDurationMs / 1000);
    try {
      if (fence === undefined) {
        await this.client.create<Lease>({
          ...LEASE,
          metadata: { name, namespace: this.options.namespace, labels: this.labels('fence') },
          spec: this.spec(undefined, duration),
        });
      } else {
        await this.client.replace<Lease>({
          ...LEASE,
          metadata: {
            ...metaOf(fence),
            labels: fence.metadata.labels ?? this.labels('fence'),
            resourceVersion: fence.metadata.resourceVersion ?? '',
          },
          spec: this.spec(fence.spec, duration),
        });
      }
      // Stopped (or killed) while the write was in flight: the bucket is not opened; the fence
      // names us until our membership expires, as any fence of a dead member.
      return this.running && this.memberValid();
    } catch (error) {
      if (isConflict(error) || isAlreadyExists(error)) return false;
      throw error;
    }
  }

  /** Writes a fence we hold back with no holder. */
  private async releaseFence(bucket: number): Promise<void> {
    const name = fenceLeaseName(this.options.ring, bucket);
    const fence = await this.getLease(name);
    if (fence === undefined || fence.spec?.holderIdentity !== this.identity) return;
    const now = microTime(this.scheduler.now());
    await this.client.replace<Lease>({
      ...LEASE,
      metadata: {
        ...metaOf(fence),
        labels: fence.metadata.labels ?? this.labels('fence'),
        resourceVersion: fence.metadata.resourceVersion ?? '',
      },
      spec: { ...fence.spec, holderIdentity: '', renewTime: now },
    });
  }
}

function metaOf(lease: Lease): { name: string; namespace: string } {
  return { name: lease.metadata.name ?? '', namespace: lease.metadata.namespace ?? '' };
}
