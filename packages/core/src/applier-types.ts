/**
 * The shapes {@link applier} takes and emits, apart from the operator itself, so that the loop
 * behind it (`internal/applier-loop.ts`) can name them without importing the operator back
 * (docs/design.md, "Layers": no import cycles).
 *
 * @module
 */
import type { Action } from './action.js';
import type { ReconcileError, TerminalError } from './errors.js';
import type { TokenBucket } from './rate-limiter.js';
import type { RunByKeyObserver } from './run-by-key.js';

/**
 * Options of {@link applier}; every field has a default.
 *
 * ## Example
 * ```ts
 * const options: ApplierOptions<string> = {
 *   concurrency: 4,
 *   backoff: { baseMs: 100, maxMs: 60_000 },
 *   rateLimit: false, // retries limited per key only
 * };
 * const reconcile = (r: { key: string }) => of(Action.awaitChange());
 * of({ key: 'default/web' }).pipe(applier((r) => r.key, reconcile, options));
 * ```
 */
export interface ApplierOptions<K> {
  /** Reconciles in flight across keys (never two of one key); integer `>= 1`. Default 1. */
  readonly concurrency?: number;
  /**
   * Per-key error backoff: the n-th consecutive failure waits `min(maxMs, baseMs × 2^n × (1 +
   * random × jitter))`. Defaults: 5 ms, 1000 s, jitter 0.1 (see {@link PerKeyBackoff}).
   */
  readonly backoff?: { readonly baseMs?: number; readonly maxMs?: number; readonly jitter?: number };
  /**
   * Global token bucket shared by all error retries (see {@link TokenBucket}); `false` turns it
   * off. Default `{ qps: 10, burst: 100 }` (controller-runtime). Pass a `TokenBucket` instance to
   * share one limit between several appliers (e.g. one per namespace lane).
   */
  readonly rateLimit?: { readonly qps: number; readonly burst: number } | TokenBucket | false;
  /** Randomness for the backoff jitter, returning `[0, 1]`. Default `Math.random`; inject in tests. */
  readonly random?: () => number;
  /** Workqueue instrumentation hooks, passed to {@link runByKey}. */
  readonly observer?: RunByKeyObserver<K>;
  /**
   * Called with the number of keys the applier holds — waiting, running, or waiting for a requeue
   * or retry — each time it changes; `0` means idle. Must not throw.
   */
  readonly onPending?: (keys: number) => void;
}

/**
 * One finished reconcile, as emitted by {@link applier} (for logs and metrics: every reconcile
 * produces exactly one).
 *
 * - `success`: the reconcile returned `Action.awaitChange()`; `action` is set.
 * - `requeue`: it returned `Action.requeue(ms)`; `action` is set, `retryInMs` when a rerun was
 *   scheduled.
 * - `error`: it threw, errored, completed without an Action or emitted something else; `error` is a
 *   {@link ReconcileError} whose `cause` is what was thrown; `retryInMs` when a retry was scheduled.
 * - `terminal`: the failure was (or wrapped) a {@link TerminalError}; `error` is it; no retry.
 *
 * `retryInMs` is absent when no timer was set: the key had a newer trigger waiting (it reruns as
 * soon as runByKey lets it), or the source had completed.
 *
 * ## Example
 * ```ts
 * type Request = { key: string };
 * const reconcile = (r: Request) => of(Action.requeue(60_000));
 * of<Request>({ key: 'default/web' }).pipe(applier((r) => r.key, reconcile)).subscribe((result: ReconcileResult<Request, string>) => {
 *   if (result.outcome === 'error') {
 *     console.warn(result.key, result.error?.message, `retry in ${result.retryInMs} ms`);
 *   }
 * });
 * ```
 */
export interface ReconcileResult<T, K> {
  readonly key: K;
  /** The value that was reconciled. */
  readonly value: T;
  readonly outcome: 'success' | 'requeue' | 'error' | 'terminal';
  readonly action?: Action;
  readonly error?: ReconcileError<K> | TerminalError;
  /** `scheduler.now()` from the start of the reconcile to its outcome. */
  readonly durationMs: number;
  /** Delay after which this key is reconciled again, when a timer was set. */
  readonly retryInMs?: number;
}
