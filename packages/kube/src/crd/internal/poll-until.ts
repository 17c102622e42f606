/**
 * `pollUntil`: runs a probe now and then every `intervalMs` (never two at once) until it reports
 * done, or fails after `timeoutMs`. The waiting step of `ensureCrd`. Never exported from the package.
 *
 * @module
 */
import type { ObservableInput, SchedulerLike, Observable } from 'rxjs';
import { asyncScheduler, defer, exhaustMap, first, map, throwError, timeout, timer } from 'rxjs';

/** One probe's answer: done with a value, or not yet (with what is still missing). */
export type ProbeResult<T> =
  { readonly done: true; readonly value: T } | { readonly done: false; readonly waitingFor: string };

/**
 * Emits the value of the first probe that is done, then completes.
 *
 * ## Semantics
 * - Probes start at 0, `intervalMs`, `2·intervalMs`, …; a tick that arrives while a probe runs is
 *   skipped (`exhaustMap`), so a slow server is never asked twice at once.
 * - error: a probe's error is forwarded at once (no retry).
 * - timeout: no done probe within `timeoutMs` → `onTimeout(lastWaitingFor)` is the error.
 * - unsubscribe: the timer and the running probe are cancelled.
 */
export function pollUntil<T>(
  probe: () => ObservableInput<ProbeResult<T>>,
  options: {
    readonly intervalMs: number;
    readonly timeoutMs: number;
    readonly onTimeout: (waitingFor: string | undefined) => Error;
  },
  scheduler: SchedulerLike = asyncScheduler,
): Observable<T> {
  return defer(() => {
    let waitingFor: string | undefined;
    return timer(0, options.intervalMs, scheduler).pipe(
      exhaustMap(() => probe()),
      first((r): r is Extract<ProbeResult<T>, { done: true }> => {
        if (!r.done) waitingFor = r.waitingFor;
        return r.done;
      }),
      map((r) => r.value),
      timeout({
        first: options.timeoutMs,
        scheduler,
        with: () => throwError(() => options.onTimeout(waitingFor)),
      }),
    );
  });
}
