/**
 * Programmatic fault injection for reliability tests. Every injected fault is counted in
 * {@link Faults.counts} once, when it actually happens (stalling an already stalled watch is not a
 * second stall; arming a cut does not count, the cut does), so tests can assert it did. Rules not
 * yet used up are listed by {@link Faults.pending}; injected error answers are kept per status,
 * method and path by {@link Faults.injectedErrors}.
 *
 * ## Example
 * ```ts
 * server.faults.failNext({ status: 429, count: 2, method: 'GET', path: /configmaps/ });
 * server.faults.dropWatches();
 * server.faults.sendMalformedWatchLines();
 * expect(server.faults.counts.injectedErrors).toBe(2);
 * expect(server.faults.pending()).toEqual([]);
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
  /** Watches stalled by {@link Faults.stallWatches} (each watch once). */
  watchesStalled: number;
  /** Watches answered with a 410 ERROR event by {@link Faults.expireNextWatch}. */
  watchesExpired: number;
  /** Requests answered with an injected error status (see {@link Faults.injectedErrors}). */
  injectedErrors: number;
  /** Watch streams cut in the middle of a JSON line. */
  streamsCut: number;
  /** Whole malformed lines written on watches by {@link Faults.sendMalformedWatchLines}. */
  malformedLines: number;
  /** Requests delayed. */
  requestsDelayed: number;
  /** Requests held unanswered by {@link Faults.stall}. */
  requestsStalled: number;
  /** History compactions that dropped history (compacting an already compacted history is none). */
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

/**
 * Requests to hold unanswered ({@link Faults.stall}).
 *
 * ## Example
 * ```ts
 * declare const server: ApiServer;
 * const hangingGet: StallRule = { method: 'GET', path: /\/configmaps\/a$/, count: 1 };
 * server.faults.stall(hangingGet);
 * ```
 */
export interface StallRule extends RequestMatcher {
  /** How many matching requests are held (default: all until {@link Faults.reset}). */
  readonly count?: number;
}

/**
 * A request the server holds unanswered ({@link Faults.stalledRequests}).
 *
 * ## Example
 * ```ts
 * import { expect } from 'vitest';
 *
 * declare const server: ApiServer;
 * const held: StalledRequest[] = server.faults.stalledRequests();
 * expect(held).toEqual([{ method: 'GET', path: '/api/v1/namespaces/default/configmaps/a' }]);
 * ```
 */
export interface StalledRequest {
  /** The request's HTTP method. */
  readonly method: string;
  /** The request path without its query string. */
  readonly path: string;
}

/**
 * A fault rule waiting for requests or watches to hit it ({@link Faults.pending}).
 * `remaining` is `Infinity` for a delay without a count.
 *
 * ## Example
 * ```ts
 * server.faults.failNext({ status: 503, count: 2, path: /configmaps/ });
 * const [rule]: PendingFault[] = server.faults.pending();
 * expect(rule).toMatchObject({ kind: 'failNext', remaining: 2 });
 * ```
 */
export type PendingFault =
  | { readonly kind: 'failNext'; readonly rule: FailRule; readonly remaining: number }
  | { readonly kind: 'delay'; readonly rule: DelayRule; readonly remaining: number }
  | { readonly kind: 'stall'; readonly rule: StallRule; readonly remaining: number }
  | { readonly kind: 'expireNextWatch'; readonly remaining: number }
  | { readonly kind: 'cutWatchesMidLine'; readonly remaining: number };

/**
 * Injected error answers of one status, method and path ({@link Faults.injectedErrors}).
 *
 * ## Example
 * ```ts
 * server.faults.failNext({ status: 429, count: 2, method: 'GET', path: /configmaps/ });
 * // … the client under test lists ConfigMaps twice …
 * const counts: InjectedErrorCount[] = server.faults.injectedErrors();
 * expect(counts).toEqual([{ status: 429, method: 'GET', path: '/api/v1/configmaps', count: 2 }]);
 * ```
 */
export interface InjectedErrorCount {
  /** The injected status. */
  readonly status: 429 | 500 | 503;
  /** The request's HTTP method. */
  readonly method: string;
  /** The request path without its query string. */
  readonly path: string;
  /** How many requests were answered with it. */
  readonly count: number;
}

interface Pending<R> {
  rule: R;
  left: number;
}

/** The server's side of fault injection (internal). */
export interface FaultTarget {
  /** Drops every open watch; how many. */
  dropWatches(): number;
  /** Stalls open watches; how many were not stalled yet. */
  stallWatches(): number;
  /** Arms a mid-line cut on open watches; how many were newly armed. */
  cutWatches(): number;
  /** Open watches with a cut armed that has not happened yet. */
  pendingCuts(): number;
  /** Queues one malformed line on every open, writing watch; how many. */
  malformWatches(): number;
  /** Ends every open watch with one ERROR 410 line after what is queued; how many. */
  expireWatches(): number;
  /** Compacts the history; the compacted revision and whether it moved. */
  compact(): { revision: number; advanced: boolean };
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
    malformedLines: 0,
    requestsDelayed: 0,
    requestsStalled: 0,
    compactions: 0,
    restarts: 0,
  };
  private failRules: Pending<FailRule>[] = [];
  private delayRules: Pending<DelayRule>[] = [];
  private stallRules: Pending<StallRule>[] = [];
  private readonly held = new Set<StalledRequest>();
  private expireWatches = 0;
  private readonly injected = new Map<string, InjectedErrorCount>();

  /** @internal */
  constructor(private readonly target: FaultTarget) {}

  /** Destroys every open watch connection now. Returns how many were dropped. */
  dropWatches(): number {
    const n = this.target.dropWatches();
    this.counts.watchesDropped += n;
    return n;
  }

  /**
   * Stalls every open watch: connection stays open, no more bytes are sent. Returns how many were
   * stalled now (a watch already stalled is not stalled again, nor counted).
   */
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

  /**
   * Every open watch gets one ERROR event (410 Expired) after what it has queued, then ends
   * cleanly — what etcd's compaction does to a watch that has not caught up. Unlike
   * {@link Faults.dropWatches} no connection breaks, so clients that give up on a broken
   * connection (client-node's informer) relist too. Counted in {@link FaultCounts.watchesExpired};
   * returns how many.
   */
  expireOpenWatches(): number {
    const n = this.target.expireWatches();
    this.counts.watchesExpired += n;
    return n;
  }

  /**
   * Every open watch writes half of its next line and then loses its connection. Returns how many
   * were armed now; {@link FaultCounts.streamsCut} counts the cuts when they happen.
   */
  cutWatchesMidLine(): number {
    return this.target.cutWatches();
  }

  /**
   * Every open watch that is writing sends one whole line that is not JSON (after what is already
   * queued) and goes on streaming, as a broken proxy could. Returns how many watches got one;
   * {@link FaultCounts.malformedLines} counts the lines written.
   */
  sendMalformedWatchLines(): number {
    return this.target.malformWatches();
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

  /**
   * Holds matching requests unanswered — no status, no bytes — for as long as their client keeps
   * the connection open; a request is released (and listed no more by
   * {@link Faults.stalledRequests}) when its connection closes: the client gave up or aborted, or
   * the server stopped. Counted in {@link FaultCounts.requestsStalled}; not for watches.
   */
  stall(rule: StallRule = {}): void {
    const count = rule.count ?? Number.POSITIVE_INFINITY;
    if (!(count >= 1) || (Number.isFinite(count) && !Number.isInteger(count)))
      throw new RangeError(`stall: count must be a positive integer, got ${String(rule.count)}`);
    this.stallRules.push({ rule, left: count });
  }

  /**
   * The requests held by {@link Faults.stall} whose connection is still open, oldest first: the
   * server's view of requests in flight that a client has not given up.
   */
  stalledRequests(): StalledRequest[] {
    return [...this.held].map((r) => ({ ...r }));
  }

  /**
   * Compacts the history: watches and continue tokens from older RVs get 410. Returns the
   * compacted RV; counted only when history was dropped.
   */
  compact(): number {
    const { revision, advanced } = this.target.compact();
    if (advanced) this.counts.compactions++;
    return revision;
  }

  /** Restarts the server: all connections dropped, state kept, history compacted (like a real restart). */
  async restart(): Promise<void> {
    await this.target.restart();
  }

  /** Clears pending rules (counts are kept). Armed cuts stay armed on their watches. */
  reset(): void {
    this.failRules = [];
    this.delayRules = [];
    this.stallRules = [];
    this.expireWatches = 0;
  }

  /**
   * The rules not used up yet, in the order they were added: error answers and delays with the
   * matches left, watch expiries left, watches with a mid-line cut armed.
   *
   * ## Example
   * ```ts
   * server.faults.failNext({ status: 503, count: 2 });
   * server.faults.pending(); // [{ kind: 'failNext', rule: { status: 503, count: 2 }, remaining: 2 }]
   * ```
   */
  pending(): PendingFault[] {
    const out: PendingFault[] = [
      ...this.failRules.map((p) => ({ kind: 'failNext' as const, rule: p.rule, remaining: p.left })),
      ...this.delayRules.map((p) => ({ kind: 'delay' as const, rule: p.rule, remaining: p.left })),
      ...this.stallRules.map((p) => ({ kind: 'stall' as const, rule: p.rule, remaining: p.left })),
    ];
    if (this.expireWatches > 0) out.push({ kind: 'expireNextWatch', remaining: this.expireWatches });
    const cuts = this.target.pendingCuts();
    if (cuts > 0) out.push({ kind: 'cutWatchesMidLine', remaining: cuts });
    return out;
  }

  /**
   * The injected error answers so far, one entry per status, method and path, in the order first
   * seen; their counts add up to {@link FaultCounts.injectedErrors}.
   *
   * ## Example
   * ```ts
   * server.faults.injectedErrors(); // [{ status: 429, method: 'GET', path: '/api/v1/namespaces/default/configmaps', count: 2 }]
   * ```
   */
  injectedErrors(): InjectedErrorCount[] {
    return [...this.injected.values()].map((e) => ({ ...e }));
  }

  /** @internal the injected failure for a request, if any (consumes it). */
  takeFailure(method: string, path: string): FailRule | undefined {
    for (const p of this.failRules) {
      if (p.left > 0 && matches(p.rule, method, path)) {
        p.left--;
        this.failRules = this.failRules.filter((x) => x.left > 0);
        this.counts.injectedErrors++;
        const pathname = path.split('?')[0] ?? path;
        const key = `${String(p.rule.status)} ${method} ${pathname}`;
        const seen = this.injected.get(key);
        this.injected.set(key, {
          status: p.rule.status,
          method,
          path: pathname,
          count: (seen?.count ?? 0) + 1,
        });
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

  /**
   * @internal holds the request if a stall rule matches (consumes it): resolves true once its
   * connection closed, false at once when no rule matches.
   */
  async takeStall(
    method: string,
    path: string,
    connection: { once(event: 'close', listener: () => void): unknown; readonly destroyed: boolean },
  ): Promise<boolean> {
    const p = this.stallRules.find((s) => s.left > 0 && matches(s.rule, method, path));
    if (p === undefined) return false;
    p.left--;
    this.stallRules = this.stallRules.filter((x) => x.left > 0);
    this.counts.requestsStalled++;
    if (connection.destroyed) return true;
    const entry: StalledRequest = { method, path: path.split('?')[0] ?? path };
    this.held.add(entry);
    await new Promise<void>((resolve) => connection.once('close', resolve));
    this.held.delete(entry);
    return true;
  }

  /** @internal whether the next watch must be expired (consumes it). */
  takeWatchExpiry(): boolean {
    if (this.expireWatches <= 0) return false;
    this.expireWatches--;
    this.counts.watchesExpired++;
    return true;
  }
}
