/**
 * What a reconcile returns: run again after a delay, or wait for the next change.
 *
 * The words are kube-rs's (`Action::requeue`, `Action::await_change`); controller-runtime spells
 * the same idea `Result{RequeueAfter}` / `Result{}`. Errors are not an `Action`: a reconcile that
 * fails throws (or errors its Observable) and the {@link applier} retries it with backoff, unless
 * the error is a {@link TerminalError}.
 *
 * @module
 */
import { InvalidArgumentError } from './invalid-argument-error.js';

/**
 * Run the reconcile for this key again after `afterMs` milliseconds, even if nothing changed.
 *
 * ## Example
 * ```ts
 * const again: RequeueAction = Action.requeue(60_000); // { type: 'requeue', afterMs: 60000 }
 * ```
 */
export interface RequeueAction {
  readonly type: 'requeue';
  /** Delay in milliseconds, finite and `>= 0`. */
  readonly afterMs: number;
}

/**
 * Nothing more to do until the object (or something it watches) changes.
 *
 * ## Example
 * ```ts
 * const done: AwaitChangeAction = Action.awaitChange(); // { type: 'awaitChange' }
 * ```
 */
export interface AwaitChangeAction {
  readonly type: 'awaitChange';
}

/**
 * The outcome of a successful reconcile: {@link RequeueAction} or {@link AwaitChangeAction}.
 * Build one with `Action.requeue(ms)` or `Action.awaitChange()`; both return frozen plain objects,
 * so they compare structurally in tests (`toEqual`) and can be logged as JSON.
 *
 * ## Example
 * ```ts
 * const reconcile = (pod: { status?: { phase?: string } }) =>
 *   pod.status?.phase === 'Running' ? of(Action.awaitChange()) : of(Action.requeue(30_000)); // poll every 30 s
 * ```
 */
export type Action = RequeueAction | AwaitChangeAction;

const AWAIT_CHANGE: AwaitChangeAction = Object.freeze({ type: 'awaitChange' });

/** Constructors and a guard for {@link Action} values. */
export const Action = Object.freeze({
  /**
   * Requeue the key after `afterMs` milliseconds (kube-rs `Action::requeue`).
   *
   * ## Example
   * ```ts
   * Action.requeue(5 * 60_000) // resync this object in five minutes
   * ```
   * @param afterMs delay in milliseconds; a finite number `>= 0`.
   * @throws {InvalidArgumentError} when `afterMs` is negative, `NaN`, infinite or not a number.
   */
  requeue(afterMs: number): RequeueAction {
    if (typeof afterMs !== 'number' || !Number.isFinite(afterMs) || afterMs < 0) {
      throw new InvalidArgumentError(
        'Action.requeue',
        'afterMs',
        afterMs,
        'must be a finite number of milliseconds >= 0 (return Action.awaitChange() to not requeue)',
      );
    }
    return Object.freeze({ type: 'requeue', afterMs });
  },

  /**
   * Do nothing until the next change (kube-rs `Action::await_change`). Always the same frozen object.
   *
   * ## Example
   * ```ts
   * of(Action.awaitChange())
   * ```
   */
  awaitChange(): AwaitChangeAction {
    return AWAIT_CHANGE;
  },

  /**
   * Whether `value` is a well-formed {@link Action} (as built by the constructors above, or an
   * equivalent plain object). Used by the {@link applier} to reject anything else a reconcile emits.
   *
   * ## Example
   * ```ts
   * Action.is({ type: 'requeue', afterMs: 10 }) // true
   * Action.is({ type: 'requeue', afterMs: -1 }) // false
   * ```
   */
  is(value: unknown): value is Action {
    if (value === null || typeof value !== 'object') return false;
    const candidate = value as { type?: unknown; afterMs?: unknown };
    if (candidate.type === 'awaitChange') return true;
    return (
      candidate.type === 'requeue' &&
      typeof candidate.afterMs === 'number' &&
      Number.isFinite(candidate.afterMs) &&
      candidate.afterMs >= 0
    );
  },
});
