/**
 * A global token bucket (controller-runtime's `BucketRateLimiter`, golang.org/x/time/rate
 * `Limiter.Reserve`): a burst of `burst` retries goes through at once, after that one every
 * `1000 / qps` ms, shared by all keys.
 *
 * @module
 */
import { InvalidArgumentError } from './invalid-argument-error.js';

/**
 * Sustained retries per second (controller-runtime: 10).
 *
 * ## Example
 * ```ts
 * // Twice the default retry rate, the same burst.
 * const rateLimit = { qps: 2 * DEFAULT_RATE_LIMIT_QPS, burst: DEFAULT_RATE_LIMIT_BURST };
 * const reconcile = (name: string) => of(Action.awaitChange());
 * of('default/web').pipe(applier((name) => name, reconcile, { rateLimit }));
 * ```
 */
export const DEFAULT_RATE_LIMIT_QPS = 10;
/**
 * Retries allowed at once before spacing applies (controller-runtime: 100).
 *
 * ## Example
 * ```ts
 * const bucket = new TokenBucket({ burst: DEFAULT_RATE_LIMIT_BURST / 10 }); // 10 at once, then 10/s
 * ```
 */
export const DEFAULT_RATE_LIMIT_BURST = 100;

/**
 * Options of {@link TokenBucket}.
 *
 * ## Example
 * ```ts
 * const options: TokenBucketOptions = { qps: 5, burst: 20 };
 * const bucket = new TokenBucket(options);
 * ```
 */
export interface TokenBucketOptions {
  /** Tokens added per second; finite `> 0`. Default {@link DEFAULT_RATE_LIMIT_QPS}. */
  readonly qps?: number;
  /** Bucket size, also its initial content; integer `>= 1`. Default {@link DEFAULT_RATE_LIMIT_BURST}. */
  readonly burst?: number;
}

const NAME = 'TokenBucket';

/**
 * Reserves one token per call and says how long the caller must wait for it. It has no clock: the
 * caller passes `nowMs` (a scheduler's `now()`), so `TestScheduler` drives it in tests.
 *
 * ## Example
 * ```ts
 * const bucket = new TokenBucket({ qps: 10, burst: 100 });
 * const delay = bucket.take(asyncScheduler.now()); // 0 for the first 100 calls, then 100, 200, …
 * ```
 * ## Guarantees
 * - A reservation always succeeds; the bucket may go into debt, and each token in debt costs
 *   `1000 / qps` ms more, so reservations made at the same instant are spaced evenly.
 * - Refill is continuous (`qps × elapsed / 1000`), capped at `burst`; a clock that goes backwards
 *   refills nothing.
 *
 * ## Memory
 * Two numbers, whatever the number of keys.
 */
export class TokenBucket {
  private readonly qps: number;
  private readonly burst: number;
  private tokens: number;
  private last: number | undefined;

  /**
   * @param options see {@link TokenBucketOptions}.
   * @throws {InvalidArgumentError} when `qps` or `burst` is out of range.
   */
  constructor(options: TokenBucketOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new InvalidArgumentError(NAME, 'options', options, 'must be an object or undefined');
    }
    const { qps = DEFAULT_RATE_LIMIT_QPS, burst = DEFAULT_RATE_LIMIT_BURST } = options;
    if (typeof qps !== 'number' || !Number.isFinite(qps) || qps <= 0) {
      throw new InvalidArgumentError(
        NAME,
        'options.qps',
        qps,
        'must be a finite number > 0 (tokens per second)',
      );
    }
    if (typeof burst !== 'number' || !Number.isInteger(burst) || burst < 1) {
      throw new InvalidArgumentError(NAME, 'options.burst', burst, 'must be an integer >= 1');
    }
    this.qps = qps;
    this.burst = burst;
    this.tokens = burst;
  }

  /**
   * Reserves a token at time `nowMs` and returns the delay in ms before it may be used (`0` when
   * the bucket had one).
   * @throws {InvalidArgumentError} when `nowMs` is not a finite number.
   */
  take(nowMs: number): number {
    if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
      throw new InvalidArgumentError(
        NAME,
        'take(nowMs)',
        nowMs,
        "must be a finite time in ms (a scheduler's now())",
      );
    }
    this.refill(nowMs);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  /**
   * Gives back one token reserved by {@link take} that will not be used — a retry cancelled before
   * it ran (golang.org/x/time/rate `Reservation.Cancel`). Never fills the bucket above `burst`.
   *
   * ## Example
   * ```ts
   * const bucket = new TokenBucket({ qps: 10, burst: 100 });
   * const delay = bucket.take(asyncScheduler.now()); // a retry scheduled after `delay`
   * bucket.restore(asyncScheduler.now()); // a newer event made the retry moot
   * ```
   * @throws {InvalidArgumentError} when `nowMs` is not a finite number.
   */
  restore(nowMs: number): void {
    if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
      throw new InvalidArgumentError(
        NAME,
        'restore(nowMs)',
        nowMs,
        "must be a finite time in ms (a scheduler's now())",
      );
    }
    this.refill(nowMs);
    this.tokens = Math.min(this.burst, this.tokens + 1);
  }

  /** Tokens available at `nowMs` (negative while in debt); does not reserve anything. */
  available(nowMs: number): number {
    this.refill(nowMs);
    return this.tokens;
  }

  private refill(nowMs: number): void {
    if (this.last !== undefined && nowMs > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.last) * this.qps) / 1000);
    }
    if (this.last === undefined || nowMs > this.last) this.last = nowMs;
  }
}
