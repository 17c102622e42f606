import { asyncScheduler } from 'rxjs';
import type { ObservableInput, OperatorFunction, SchedulerLike } from 'rxjs';

import type { Action } from './action.js';
import type { ApplierOptions, ReconcileResult } from './applier-types.js';
import { createApplier } from './internal/applier-loop.js';

export type { ApplierOptions, ReconcileResult } from './applier-types.js';

/**
 * The reconcile loop (kube-rs's `applier`): runs `reconcile` for each source value through
 * {@link runByKey}, and feeds the key back in after `Action.requeue(ms)` or, on failure, after a
 * per-key exponential backoff combined with a global rate limit. Emits one {@link ReconcileResult}
 * per reconcile.
 *
 * ## Example
 * ```ts
 * type Ref = { namespace: string; name: string };
 * const deployments = new Map<string, { replicas: number }>([['shop/web', { replicas: 2 }]]);
 * const syncDeployment = (ref: Ref) => of(Action.requeue(300_000)); // your side effects
 * of<Ref>({ namespace: 'shop', name: 'web' }).pipe(
 *   applier(
 *     (ref) => `${ref.namespace}/${ref.name}`,
 *     (ref) => (deployments.has(`${ref.namespace}/${ref.name}`) ? syncDeployment(ref) : of(Action.awaitChange())),
 *     { concurrency: 4 },
 *   ),
 * ).subscribe((r) => console.log(`${r.key} ${r.outcome} in ${r.durationMs} ms`, r.error?.message));
 * ```
 *
 * ## Semantics
 * - next: the value becomes the key's latest value and goes to {@link runByKey} (one reconcile per
 *   key at a time, `concurrency` overall; a value for a busy key is coalesced into one rerun,
 *   latest wins). A new value also cancels the key's pending requeue or retry timer: the reconcile
 *   it triggers returns a fresh Action, which decides what happens next.
 * - reconcile: called as `reconcile(latestValue, key)`; its first emission is the outcome (the rest
 *   is unsubscribed, like `firstValueFrom`). Must be an {@link Action}; anything else, completing
 *   without a value, erroring, or throwing synchronously is a failure.
 * - `Action.requeue(ms)`: the key's backoff is reset and its latest value re-enters after `ms`.
 * - `Action.awaitChange()`: the key's backoff is reset; nothing is scheduled.
 * - failure: normalised with {@link toReconcileError}; it re-enters after
 *   `max(backoff.next(key), bucket.take(now))` ms. A {@link TerminalError} (also one in the
 *   `cause` chain) is reported with outcome `terminal`, resets the backoff and is not retried.
 * - rerun pending: when the key got a new trigger during its reconcile, runByKey reruns it
 *   anyway, so no timer is set, no token is taken and the key's backoff does not grow (a trigger
 *   is not a failure). A timer that fires re-enters through runByKey as well, so it is coalesced
 *   like any trigger.
 * - a new value while a retry waits: the timer is cancelled and the retry's token goes back to
 *   the bucket (the newer trigger made it moot); the key's failure count stays.
 * - complete: pending requeue/retry timers are cancelled, reconciles in flight or waiting in
 *   runByKey finish (their results are emitted without `retryInMs`), then the output completes.
 * - error (source): forwarded; reconciles in flight are unsubscribed, timers cancelled.
 * - error channel: only for misconfiguration: a `keyOf` that throws (`KeyOfError`), an injected
 *   `random` outside `[0, 1]`. Reconcile failures are values.
 * - unsubscribe: reconciles in flight are unsubscribed, every timer cancelled.
 *
 * ## Guarantees
 * - Nothing silent: every reconcile yields exactly one result, errors included.
 * - At most one timer per key; no timer while the key is in flight or waiting for a rerun.
 * - Backoff per key grows only with consecutive failures that scheduled a retry; any success (or
 *   terminal) resets it.
 * - The bucket holds a token only for retries still waiting: a cancelled retry returns its token.
 *
 * ## Memory
 * Per key: its latest value, flags, at most one timer and a failure count, held from its first
 * trigger until it goes idle (outcome success, requeue-fired-then-success, or terminal, with no
 * timer and no rerun waiting), then released; plus runByKey's O(distinct keys) queue. The token
 * bucket is two numbers.
 *
 * @param keyOf the key of a value (compared with SameValueZero); must be total and pure.
 * @param reconcile the reconcile; return a cold Observable (or Promise) of one {@link Action}.
 * @param options see {@link ApplierOptions}.
 * @param scheduler time source for timers, backoff and rate limit; `TestScheduler.run`
 *   virtualises it.
 * @throws {InvalidArgumentError} synchronously, for a non-function `keyOf`/`reconcile` or an
 *   option out of range.
 */
export function applier<T, K>(
  keyOf: (value: T) => K,
  reconcile: (value: T, key: K) => ObservableInput<Action>,
  options?: ApplierOptions<K>,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<T, ReconcileResult<T, K>> {
  return createApplier(keyOf, reconcile, options, scheduler);
}
