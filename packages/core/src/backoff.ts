/**
 * Per-key exponential failure backoff, controller-runtime's `ItemExponentialFailureRateLimiter`
 * with optional jitter: the n-th consecutive failure of a key (n = 0, 1, 2, …) waits
 * `min(maxMs, baseMs × 2^n × (1 + random() × jitter))` ms; `reset(key)` after a success.
 *
 * @module
 */
import { InvalidArgumentError } from './invalid-argument-error.js';

/**
 * First retry delay in ms (controller-runtime: 5 ms).
 *
 * ## Example
 * ```ts
 * // Start retries 10× slower than the default.
 * const reconcile = (name: string) => of(Action.requeue(60_000));
 * of('default/web').pipe(applier((name) => name, reconcile, { backoff: { baseMs: 10 * DEFAULT_BACKOFF_BASE_MS } }));
 * ```
 */
export const DEFAULT_BACKOFF_BASE_MS = 5;
/**
 * Largest retry delay in ms (controller-runtime: 1000 s).
 *
 * ## Example
 * ```ts
 * // Never wait more than a minute between retries of one key.
 * const reconcile = (name: string) => of(Action.requeue(60_000));
 * of('default/web').pipe(applier((name) => name, reconcile, { backoff: { maxMs: Math.min(60_000, DEFAULT_BACKOFF_MAX_MS) } }));
 * ```
 */
export const DEFAULT_BACKOFF_MAX_MS = 1_000_000;
/**
 * Default jitter factor: each delay is stretched by a random `0…10 %` (then capped at `maxMs`), so
 * keys that failed together do not retry in lockstep. controller-runtime uses no jitter; pass
 * `jitter: 0` for its exact sequence.
 *
 * ## Example
 * ```ts
 * const backoff = new PerKeyBackoff<string>({ jitter: 2 * DEFAULT_BACKOFF_JITTER }); // up to +20 %
 * ```
 */
export const DEFAULT_BACKOFF_JITTER = 0.1;

/**
 * Options of {@link PerKeyBackoff}; every field has a default.
 *
 * ## Example
 * ```ts
 * // Deterministic delays for a test: 100, 200, 400 … ms, capped at 10 s.
 * const options: BackoffOptions = { baseMs: 100, maxMs: 10_000, jitter: 0 };
 * const backoff = new PerKeyBackoff<string>(options);
 * ```
 */
export interface BackoffOptions {
  /** First delay, ms; finite `> 0`. Default {@link DEFAULT_BACKOFF_BASE_MS}. */
  readonly baseMs?: number;
  /** Cap, ms; finite `>= baseMs`. Default {@link DEFAULT_BACKOFF_MAX_MS}. */
  readonly maxMs?: number;
  /** Jitter factor; finite `>= 0`; `0` disables jitter. Default {@link DEFAULT_BACKOFF_JITTER}. */
  readonly jitter?: number;
  /** Source of randomness returning a number in `[0, 1]`. Default `Math.random`; inject for tests. */
  readonly random?: () => number;
}

const NAME = 'PerKeyBackoff';

/**
 * Consecutive-failure counters per key, turned into exponentially growing retry delays.
 *
 * ## Example
 * ```ts
 * const backoff = new PerKeyBackoff<string>({ jitter: 0 });
 * backoff.next('default/web'); // 5
 * backoff.next('default/web'); // 10
 * backoff.next('default/web'); // 20 … capped at 1_000_000
 * backoff.reset('default/web'); // success: forget the key
 * ```
 * ## Guarantees
 * - Without jitter the sequence is exactly `baseMs × 2^n` capped at `maxMs`; with jitter each
 *   delay lies in `[baseMs × 2^n, baseMs × 2^n × (1 + jitter)]`, and never exceeds `maxMs`.
 * - Keys are independent; the counter never overflows into `NaN`/`Infinity` delays.
 *
 * ## Memory
 * One number per key that failed and was not reset; `reset` (or `clear`) releases it. `size` counts
 * the keys held.
 */
export class PerKeyBackoff<K> {
  private readonly counters = new Map<K, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly jitter: number;
  private readonly random: () => number;

  /**
   * @param options see {@link BackoffOptions}.
   * @throws {InvalidArgumentError} when an option is out of range.
   */
  constructor(options: BackoffOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new InvalidArgumentError(NAME, 'options', options, 'must be an object or undefined');
    }
    const { baseMs = DEFAULT_BACKOFF_BASE_MS, maxMs = DEFAULT_BACKOFF_MAX_MS } = options;
    const { jitter = DEFAULT_BACKOFF_JITTER, random = Math.random } = options;
    if (typeof baseMs !== 'number' || !Number.isFinite(baseMs) || baseMs <= 0) {
      throw new InvalidArgumentError(NAME, 'options.baseMs', baseMs, 'must be a finite number of ms > 0');
    }
    if (typeof maxMs !== 'number' || !Number.isFinite(maxMs) || maxMs < baseMs) {
      throw new InvalidArgumentError(
        NAME,
        'options.maxMs',
        maxMs,
        `must be a finite number of ms >= options.baseMs (${baseMs})`,
      );
    }
    if (typeof jitter !== 'number' || !Number.isFinite(jitter) || jitter < 0) {
      throw new InvalidArgumentError(
        NAME,
        'options.jitter',
        jitter,
        'must be a finite number >= 0 (0 = no jitter)',
      );
    }
    if (typeof random !== 'function') {
      throw new InvalidArgumentError(NAME, 'options.random', random, 'must be a function returning [0, 1]');
    }
    this.baseMs = baseMs;
    this.maxMs = maxMs;
    this.jitter = jitter;
    this.random = random;
  }

  /**
   * Records a failure of `key` and returns how long to wait before retrying it, in ms.
   * @throws {InvalidArgumentError} when the injected `random` returns something outside `[0, 1]`.
   */
  next(key: K): number {
    const failures = this.counters.get(key) ?? 0;
    this.counters.set(key, failures + 1);
    // 2 ** 1100 is Infinity; min() turns it into maxMs, and Infinity × (1 + r × j) stays Infinity.
    const exponential = Math.min(this.baseMs * 2 ** failures, this.maxMs);
    if (this.jitter === 0) return exponential;
    const r = this.random();
    if (typeof r !== 'number' || !(r >= 0 && r <= 1)) {
      throw new InvalidArgumentError(
        NAME,
        'options.random',
        r,
        'must return a number in [0, 1] (like Math.random)',
      );
    }
    return Math.min(exponential * (1 + r * this.jitter), this.maxMs);
  }

  /** Consecutive failures recorded for `key` since its last reset (0 for an unknown key). */
  failures(key: K): number {
    return this.counters.get(key) ?? 0;
  }

  /** Forgets `key` (call after a success): its next failure waits `baseMs` again. */
  reset(key: K): void {
    this.counters.delete(key);
  }

  /** Forgets every key. */
  clear(): void {
    this.counters.clear();
  }

  /** Number of keys with a failure count held. */
  get size(): number {
    return this.counters.size;
  }
}
