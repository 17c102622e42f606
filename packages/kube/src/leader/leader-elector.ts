/**
 * Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics: a candidate
 * tries to acquire the lease every `retryPeriod` (jittered); a lease held by another identity is
 * taken over only once its record has not changed for `leaseDurationSeconds` as observed on the
 * candidate's own clock (never by comparing the writer's timestamps: clocks drift); the leader
 * renews every `retryPeriod` and steps down when it could not renew for `renewDeadline`; every write
 * is a PUT carrying the resourceVersion it read (optimistic concurrency: two candidates never both
 * win). On `release()` the leader writes an empty holder with a 1 s duration, so a successor takes
 * over at its next try instead of waiting out the lease.
 *
 * What it does not do: fence writes (a leader that is frozen longer than the lease, then wakes,
 * may act for up to one request before it notices; the renew deadline bounds that window, as in
 * client-go), or exit the process on loss (it becomes a candidate again; the Manager cancels the
 * work at once).
 *
 * @module
 */
import { hostname } from 'node:os';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { asyncScheduler, BehaviorSubject, distinctUntilChanged, Subject } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import { isConflict, isAlreadyExists, isNotFound } from '../errors.js';
import type { KubeObject } from '../types.js';
import { assertNumber, InvalidArgumentError } from '../internal/invalid-argument.js';

/**
 * Default `leaseDurationMs`: how long a lease holds without renewal (client-go's 15 s).
 *
 * ## Example
 * ```ts
 * new LeaderElector(client, { leaseName: 'widgets', leaseDurationMs: 2 * DEFAULT_LEASE_DURATION_MS });
 * ```
 */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
/**
 * Default `renewDeadlineMs`: the leader steps down when it could not renew for this long
 * (client-go's 10 s).
 *
 * ## Example
 * ```ts
 * new LeaderElector(client, { leaseName: 'widgets', leaseDurationMs: 30_000, renewDeadlineMs: 2 * DEFAULT_RENEW_DEADLINE_MS });
 * ```
 */
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
/**
 * Default `retryPeriodMs`: the time between two tries to acquire or renew (client-go's 2 s).
 *
 * ## Example
 * ```ts
 * new LeaderElector(client, { leaseName: 'widgets', retryPeriodMs: DEFAULT_RETRY_PERIOD_MS / 2 });
 * ```
 */
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/**
 * client-go's `JitterFactor`: a candidate waits `retryPeriod × (1 + random × 1.2)` between tries,
 * so a standby takes over a dead leader's lease `leaseDuration − retryPeriod` to
 * `leaseDuration + 2 × retryPeriod × (1 + factor)` after its death (13 s to 23.8 s with the
 * defaults, plus request latency; tested in leader-failover.integration.test.ts).
 *
 * ## Example
 * ```ts
 * const worstFailoverMs =
 *   DEFAULT_LEASE_DURATION_MS + 2 * DEFAULT_RETRY_PERIOD_MS * (1 + LEADER_ELECTION_JITTER_FACTOR);
 * ```
 */
export const LEADER_ELECTION_JITTER_FACTOR = 1.2;

const OPERATOR = 'LeaderElector';
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' } as const;

/**
 * `spec` of a coordination.k8s.io/v1 Lease.
 *
 * ## Example
 * ```ts
 * const lease = await client.get<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'widgets' });
 * const spec: LeaseSpec | undefined = lease.spec;
 * console.log(`held by ${spec?.holderIdentity ?? 'nobody'} since ${spec?.acquireTime ?? '-'}`);
 * ```
 */
export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/**
 * A coordination.k8s.io/v1 Lease.
 *
 * ## Example
 * ```ts
 * const lease: Lease = await client.get<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: 'default', name: 'widgets' });
 * lease.spec?.leaseTransitions; // how often leadership changed hands
 * ```
 */
export type Lease = KubeObject<LeaseSpec>;

/**
 * Options of {@link LeaderElector}.
 *
 * ## Example
 * ```ts
 * const options: LeaderElectionOptions = { leaseName: 'widget-operator', leaseNamespace: 'operators', leaseDurationMs: 30_000, renewDeadlineMs: 20_000 };
 * const elector = new LeaderElector(client, options);
 * ```
 */
export interface LeaderElectionOptions {
  /** The Lease's name, e.g. the operator's name. */
  readonly leaseName: string;
  /** The Lease's namespace: the pod's own (`POD_NAMESPACE`), else `default`. */
  readonly leaseNamespace?: string;
  /** This candidate's identity; default {@link defaultIdentity}: pod name or hostname + random suffix. */
  readonly identity?: string;
  /** How long a lease holds without renewal (written as whole seconds). Default 15 s. */
  readonly leaseDurationMs?: number;
  /** The leader steps down when it could not renew for this long; < `leaseDurationMs`. Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Time between tries (jittered ×1.2 while not leading). Default 2 s. */
  readonly retryPeriodMs?: number;
  /** Randomness of the jitter, `[0, 1)`; inject in tests. */
  readonly random?: () => number;
}

/**
 * One try to acquire or renew, as reported on {@link LeaderElector.attempts$}.
 *
 * ## Example
 * ```ts
 * declare const elector: LeaderElector;
 * elector.attempts$.subscribe((a: LeaderElectionAttempt) => {
 *   if (a.error !== undefined) log.warn({ err: a.error, holder: a.holder }, 'leader election try failed');
 * });
 * ```
 */
export interface LeaderElectionAttempt {
  /** Scheduler time of the try's end. */
  readonly at: number;
  /** Whether this candidate holds the lease after the try. */
  readonly leading: boolean;
  /** The holder the lease names after the try (`''` when released, `undefined` when unknown). */
  readonly holder: string | undefined;
  /** Why the try failed, when it failed for a reason other than another holder (e.g. 403, network). */
  readonly error?: unknown;
}

// The builtin through process.getBuiltinModule, not an ESM import: node:crypto's ES namespace runs
// its lazy getters (webcrypto, ~1.5 ms at start)
const { randomBytes } = process.getBuiltinModule('node:crypto');

/**
 * `POD_NAME` (set from the downward API) or the hostname, plus `_` and a random suffix so that two
 * processes on one host never share an identity (client-go: `hostname + "_" + uuid`).
 *
 * ## Example
 * ```ts
 * new LeaderElector(client, { leaseName: 'widgets', identity: defaultIdentity() });
 * ```
 */
export function defaultIdentity(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const base = env['POD_NAME'] ?? hostname();
  return `${base}_${randomBytes(4).toString('hex')}`;
}

/** A MicroTime (`2006-01-02T15:04:05.000000Z`): the API server refuses other precisions (file 17). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Campaigns for a Lease and reports leadership as an Observable.
 *
 * ## Example
 * ```ts
 * const elector = new LeaderElector(client, { leaseName: 'widget-operator', leaseNamespace: 'operators' });
 * elector.leadership$.subscribe((leading) => log.info({ leading }, 'leadership'));
 * elector.start();
 * // on shutdown, after the work stopped:
 * await elector.release();
 * ```
 *
 * ## Semantics
 * - `start()` begins campaigning (first try at once); `stop()` stops trying without releasing;
 *   `release()` stops and, when leading, hands the lease back.
 * - `leadership$` replays the current value (false first), then every change; it never errors:
 *   a failed try (network, 5xx, 403) is a lost try, reported on `attempts$`.
 * - Losing: a renew that finds another holder, or no successful renew for `renewDeadlineMs`
 *   (checked by a timer, so a request that hangs cannot keep a stale leader), emits `false` at
 *   once; the elector keeps campaigning.
 *
 * ## Memory
 * The last observed lease record; one timer.
 *
 * @param scheduler clock (`now()`, written into the lease) and timers; a virtual-time scheduler
 *   drives it in tests.
 */
export class LeaderElector {
  /** The lease's namespace and name and this candidate's identity, resolved from the options. */
  readonly identity: string;
  readonly leaseName: string;
  readonly leaseNamespace: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly random: () => number;
  private readonly leading = new BehaviorSubject(false);
  private readonly attempts = new Subject<LeaderElectionAttempt>();
  /** The last record read or written, and when (our clock) it was first seen with this content. */
  private observed: { lease: Lease; key: string; at: number } | undefined;
  private lastRenewAt = 0;
  private running = false;
  private inFlight: Promise<void> | undefined;
  private tick: Subscription | undefined;
  private deadline: Subscription | undefined;

  /** Leadership: `false`, then `true` when acquired, `false` when lost or released. */
  readonly leadership$: Observable<boolean>;
  /** Every try's outcome (for tests, metrics and logs). */
  readonly attempts$: Observable<LeaderElectionAttempt>;

  /**
   * @throws {InvalidArgumentError} for a missing lease name or durations that break
   *   `leaseDuration > renewDeadline > retryPeriod × 1.2` (client-go's rule).
   */
  constructor(
    private readonly client: KubeClient,
    options: LeaderElectionOptions,
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    if (
      typeof options?.leaseName !== 'string' ||
      !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(options.leaseName)
    ) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.leaseName',
        options?.leaseName,
        'must be a DNS subdomain name such as "widget-operator"',
      );
    }
    this.leaseName = options.leaseName;
    this.leaseNamespace = options.leaseNamespace ?? process.env['POD_NAMESPACE'] ?? 'default';
    this.identity = options.identity ?? defaultIdentity();
    this.leaseDurationMs = options.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = options.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    this.random = options.random ?? Math.random;
    assertNumber(OPERATOR, 'options.leaseDurationMs', this.leaseDurationMs, 1_000, false);
    assertNumber(OPERATOR, 'options.renewDeadlineMs', this.renewDeadlineMs, 1, false);
    assertNumber(OPERATOR, 'options.retryPeriodMs', this.retryPeriodMs, 1, false);
    if (this.leaseDurationMs <= this.renewDeadlineMs) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.leaseDurationMs',
        this.leaseDurationMs,
        `must be greater than renewDeadlineMs (${this.renewDeadlineMs})`,
      );
    }
    if (this.renewDeadlineMs <= LEADER_ELECTION_JITTER_FACTOR * this.retryPeriodMs) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.renewDeadlineMs',
        this.renewDeadlineMs,
        `must be greater than 1.2 × retryPeriodMs (${this.retryPeriodMs})`,
      );
    }
    if (this.identity === '') {
      throw new InvalidArgumentError(OPERATOR, 'options.identity', this.identity, 'must not be empty');
    }
    this.leadership$ = this.leading.pipe(distinctUntilChanged());
    this.attempts$ = this.attempts.asObservable();
  }

  /** Whether this candidate holds the lease now. */
  get isLeader(): boolean {
    return this.leading.value;
  }

  /** Starts campaigning (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  /** Stops campaigning and renewing, without touching the lease; leadership becomes false. */
  stop(): void {
    this.running = false;
    this.tick?.unsubscribe();
    this.deadline?.unsubscribe();
    this.setLeading(false);
  }

  /**
   * Stops, and when this candidate holds the lease, writes it back released (empty holder, 1 s
   * duration) so a successor acquires it at its next try. Never throws: a failed release only
   * means the successor waits out the lease.
   */
  async release(): Promise<void> {
    const wasLeading = this.isLeader;
    this.stop();
    await this.inFlight;
    const lease = this.observed?.lease;
    if (!wasLeading || lease === undefined || lease.spec?.holderIdentity !== this.identity) return;
    const now = microTime(this.scheduler.now());
    try {
      await this.client.replace<Lease>({
        ...LEASE,
        metadata: { ...meta(lease), resourceVersion: lease.metadata.resourceVersion ?? '' },
        spec: {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: lease.spec.leaseTransitions ?? 0,
        },
      });
    } catch {
      // The successor takes over after leaseDuration instead.
    }
  }

  private schedule(delay: number): void {
    this.tick?.unsubscribe();
    if (!this.running) return;
    this.tick = this.scheduler.schedule(() => {
      this.inFlight = this.tryAcquireOrRenew().then((attempt) => this.settle(attempt));
    }, delay);
  }

  private settle(attempt: LeaderElectionAttempt): void {
    if (!this.running) return;
    if (attempt.leading) {
      this.lastRenewAt = attempt.at;
      if (!this.isLeader) this.setLeading(true);
      this.armDeadline();
      this.schedule(this.retryPeriodMs);
    } else {
      // Another holder: step down at once. Any other failure: the deadline timer decides.
      if (this.isLeader && attempt.holder !== undefined && attempt.holder !== this.identity) this.lose();
      this.schedule(
        this.isLeader
          ? this.retryPeriodMs
          : this.retryPeriodMs * (1 + this.random() * LEADER_ELECTION_JITTER_FACTOR),
      );
    }
    this.attempts.next(attempt);
  }

  /** (Re)arms the renew deadline: no successful renew for `retryPeriod + renewDeadline` → lost. */
  private armDeadline(): void {
    this.deadline?.unsubscribe();
    const due = this.lastRenewAt + this.retryPeriodMs + this.renewDeadlineMs - this.scheduler.now();
    this.deadline = this.scheduler.schedule(() => this.lose(), Math.max(0, due));
  }

  private lose(): void {
    this.deadline?.unsubscribe();
    this.setLeading(false);
  }

  private setLeading(value: boolean): void {
    if (this.leading.value !== value) this.leading.next(value);
  }

  private async tryAcquireOrRenew(): Promise<LeaderElectionAttempt> {
    const ref = { ...LEASE, namespace: this.leaseNamespace, name: this.leaseName };
    const spec = (transitions: number, acquireTime: string, now: string): LeaseSpec => ({
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime,
      renewTime: now,
      leaseTransitions: transitions,
    });
    let current: Lease;
    try {
      current = await this.client.get<Lease>(ref);
    } catch (error) {
      if (!isNotFound(error)) return this.failed(error, undefined);
      const now = microTime(this.scheduler.now());
      try {
        const created = await this.client.create<Lease>({
          ...LEASE,
          metadata: { name: this.leaseName, namespace: this.leaseNamespace },
          spec: spec(0, now, now),
        });
        return this.won(created);
      } catch (createError) {
        return isAlreadyExists(createError)
          ? this.failed(undefined, undefined)
          : this.failed(createError, undefined);
      }
    }
    const at = this.scheduler.now();
    this.observe(current, at);
    const held = current.spec ?? {};
    const holder = held.holderIdentity ?? '';
    if (holder !== '' && holder !== this.identity) {
      const expiresAt = (this.observed?.at ?? at) + (held.leaseDurationSeconds ?? 0) * 1000;
      if (expiresAt > at) return { at, leading: false, holder };
    }
    const now = microTime(at);
    const renewing = holder === this.identity;
    try {
      const written = await this.client.replace<Lease>({
        ...LEASE,
        metadata: { ...meta(current), resourceVersion: current.metadata.resourceVersion ?? '' },
        spec: renewing
          ? spec(held.leaseTransitions ?? 0, held.acquireTime ?? now, now)
          : spec((held.leaseTransitions ?? 0) + 1, now, now),
      });
      return this.won(written);
    } catch (error) {
      // 409: someone wrote in between (maybe a rival acquired it): a lost try, not an error.
      return this.failed(isConflict(error) ? undefined : error, holder);
    }
  }

  private won(lease: Lease): LeaderElectionAttempt {
    const at = this.scheduler.now();
    this.observe(lease, at);
    return { at, leading: true, holder: this.identity };
  }

  private failed(error: unknown, holder: string | undefined): LeaderElectionAttempt {
    return {
      at: this.scheduler.now(),
      leading: false,
      holder,
      ...(error !== undefined ? { error } : {}),
    };
  }

  /** client-go's observedTime: when the record's content was first seen as it is now. */
  private observe(lease: Lease, at: number): void {
    const key = JSON.stringify(lease.spec ?? {});
    if (this.observed?.key !== key) this.observed = { lease, key, at };
    else this.observed = { ...this.observed, lease };
  }
}

function meta(lease: Lease): { name: string; namespace: string } {
  return { name: lease.metadata.name ?? '', namespace: lease.metadata.namespace ?? '' };
}
