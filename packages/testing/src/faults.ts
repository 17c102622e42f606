/**
 * Programmatic fault injection for reliability tests. Every injected fault is counted in
 * {@link Faults.counts} when it actually happens, so tests can assert it did.
 *
 * ## Example
 * ```ts
 * server.faults.failNext({ status: 429, count: 2, method: 'GET', path: /configmaps/ });
 * server.faults.dropWatches();
 * expect(server.faults.counts.injectedErrors).toBe(2);
 * ```
 *
 * @module
 */

/**
 * Counters of faults that happened.
 *
 * ## Example
 * ```ts
 * server.faults.expireNextWatch();
 * await waitFor('the watch to expire', () => server.faults.counts.watchesExpired === 1);
 * const counts: FaultCounts = server.faults.counts;
 * ```
 */
export interface FaultCounts {
  /** Watch connections destroyed by {@link Faults.dropWatches}. */
  watchesDropped: number;
  /** Watches stalled by {@link Faults.stallWatches}. */
  watchesStalled: number;
  /** Watches answered with a 410 ERROR event by {@link Faults.expireNextWatch}. */
  watchesExpired: number;
  /** Requests answered with an injected error status. */
  injectedErrors: number;
  /** Watch streams cut in the middle of a JSON line. */
  streamsCut: number;
  /** Requests delayed. */
  requestsDelayed: number;
  /** History compactions. */
  compactions: number;
  /** Server restarts. */
  restarts: number;
}

/**
 * Which requests a rule applies to.
 *
 * ## Example
 * ```ts
 * const lists: RequestMatcher = { method: 'GET', path: /\/configmaps(\?|$)/ };
 * server.faults.failNext({ ...lists, status: 500 });
 * ```
 */
export interface RequestMatcher {
  /** HTTP method (any when omitted). */
  readonly method?: string;
  /** Tested against the path with its query string (any when omitted). */
  readonly path?: RegExp;
}

/**
 * An injected error answer.
 *
 * ## Example
 * ```ts
 * const throttle: FailRule = { status: 429, count: 3, retryAfterSeconds: 2, path: /watch=true/ };
 * server.faults.failNext(throttle);
 * ```
 */
export interface FailRule extends RequestMatcher {
  readonly status: 429 | 500 | 503;
  /** How many matching requests fail (default 1). */
  readonly count?: number;
  /** `Retry-After` seconds for 429/503 (default 1). */
  readonly retryAfterSeconds?: number;
}

/**
 * An injected delay.
 *
 * ## Example
 * ```ts
 * const slowWrites: DelayRule = { method: 'PATCH', ms: 200, count: 5 };
 * server.faults.delay(slowWrites);
 * ```
 */
export interface DelayRule extends RequestMatcher {
  readonly ms: number;
  /** How many matching requests are delayed (default: all until {@link Faults.reset}). */
  readonly count?: number;
}

interface Pending<R> {
  rule: R;
  left: number;
}

/** The server's side of fault injection (internal). */
export interface FaultTarget {
  dropWatches(): number;
  stallWatches(): number;
  cutWatches(): number;
  compact(): number;
  restart(): Promise<void>;
}

function matches(m: RequestMatcher, method: string, path: string): boolean {
  if (m.method !== undefined && m.method.toUpperCase() !== method.toUpperCase()) return false;
  if (m.path !== undefined) {
    m.path.lastIndex = 0;
    if (!m.path.test(path)) return false;
  }
  return true;
}

/**
 * Fault injection API of a running server (`server.faults`).
 *
 * ## Example
 * ```ts
 * const { faults } = server;
 * faults.failNext({ status: 503, method: 'GET', path: /\/pods/ }); // the next pod read gets a 503
 * faults.stallWatches(); // open watches stop sending, the connections stay up
 * faults.expireNextWatch(); // the next watch is answered with ERROR 410
 * expect(faults.counts.watchesStalled).toBeGreaterThan(0);
 * faults.reset();
 * ```
 */
export class Faults {
  /** Counters of faults that happened. */
  readonly counts: FaultCounts = {
    watchesDropped: 0,
    watchesStalled: 0,
    watchesExpired: 0,
    injectedErrors: 0,
    streamsCut: 0,
    requestsDelayed: 0,
    compactions: 0,
    restarts: 0,
  };
  private failRules: Pending<FailRule>[] = [];
  private delayRules: Pending<DelayRule>[] = [];
  private expireWatches = 0;

  /** @internal */
  constructor(private readonly target: FaultTarget) {}

  /** Destroys every open watch connection now. Returns how many were dropped. */
  dropWatches(): number {
    const n = this.target.dropWatches();
    this.counts.watchesDropped += n;
    return n;
  }

  /** Stalls every open watch: connection stays open, no more bytes are sent. Returns how many. */
  stallWatches(): number {
    const n = this.target.stallWatches();
    this.counts.watchesStalled += n;
    return n;
  }

  /** The next `count` watches get one ERROR event (410 Expired) and end, whatever their RV. */
  expireNextWatch(count = 1): void {
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError(`expireNextWatch: count must be a positive integer, got ${String(count)}`);
    this.expireWatches += count;
  }

  /** Every open watch writes half of its next line and then loses its connection. Returns how many are armed. */
  cutWatchesMidLine(): number {
    return this.target.cutWatches();
  }

  /** The next `count` requests matching the rule are answered with `status`. */
  failNext(rule: FailRule): void {
    const count = rule.count ?? 1;
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError(`failNext: count must be a positive integer, got ${String(count)}`);
    if (![429, 500, 503].includes(rule.status))
      throw new RangeError(`failNext: status must be 429, 500 or 503, got ${String(rule.status)}`);
    this.failRules.push({ rule, left: count });
  }

  /** Delays responses of matching requests by `ms`. */
  delay(rule: DelayRule): void {
    if (!(rule.ms >= 0)) throw new RangeError(`delay: ms must be ≥ 0, got ${String(rule.ms)}`);
    this.delayRules.push({ rule, left: rule.count ?? Number.POSITIVE_INFINITY });
  }

  /** Compacts the history: watches and continue tokens from older RVs get 410. Returns the compacted RV. */
  compact(): number {
    this.counts.compactions++;
    return this.target.compact();
  }

  /** Restarts the server: all connections dropped, state kept, history compacted (like a real restart). */
  async restart(): Promise<void> {
    await this.target.restart();
  }

  /** Clears pending rules (counts are kept). */
  reset(): void {
    this.failRules = [];
    this.delayRules = [];
    this.expireWatches = 0;
  }

  /** @internal the injected failure for a request, if any (consumes it). */
  takeFailure(method: string, path: string): FailRule | undefined {
    for (const p of this.failRules) {
      if (p.left > 0 && matches(p.rule, method, path)) {
        p.left--;
        this.failRules = this.failRules.filter((x) => x.left > 0);
        this.counts.injectedErrors++;
        return p.rule;
      }
    }
    return undefined;
  }

  /** @internal the delay for a request in ms (0 when none). */
  takeDelay(method: string, path: string): number {
    for (const p of this.delayRules) {
      if (p.left > 0 && matches(p.rule, method, path)) {
        p.left--;
        this.delayRules = this.delayRules.filter((x) => x.left > 0);
        this.counts.requestsDelayed++;
        return p.rule.ms;
      }
    }
    return 0;
  }

  /** @internal whether the next watch must be expired (consumes it). */
  takeWatchExpiry(): boolean {
    if (this.expireWatches <= 0) return false;
    this.expireWatches--;
    this.counts.watchesExpired++;
    return true;
  }
}
