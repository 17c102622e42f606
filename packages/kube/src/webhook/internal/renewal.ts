/**
 * The renewal timer of self-managed serving certificates: waits until `renewBefore` ahead of the
 * current certificate's `notAfter` on the given scheduler, asks for a renewal
 * (`ensureWebhookCertificates` at the scheduler's time), and starts over with the certificate it
 * got. A failed renewal is reported and retried after `retryMs`; the current certificate keeps
 * serving meanwhile.
 *
 * Long waits are cut into pieces of at most {@link MAX_TIMER_MS}: Node's timers fire at once for
 * a delay above 2³¹−1 ms (about 24.8 days), and a serving certificate lives a year.
 *
 * @module
 */
import type { ObservableInput, SchedulerLike } from 'rxjs';
import { catchError, defer, expand, filter, from, map, type Observable, of, timer } from 'rxjs';

import type { WebhookCertificates } from '../certificates.js';

/** Node's longest timer delay (2³¹−1 ms). */
export const MAX_TIMER_MS = 2_147_483_647;

/** What the renewal timer reports. */
export type CertificateRenewal =
  | { readonly type: 'renewed'; readonly certificates: WebhookCertificates }
  | { readonly type: 'failed'; readonly error: unknown; readonly retryInMs: number };

/** Options of {@link certificateRenewals}. */
export interface RenewalOptions {
  /** Renew this long before `notAfter` (ms). */
  readonly renewBeforeMs: number;
  /** Wait this long after a failed renewal before trying again (ms). */
  readonly retryMs: number;
  /** The longest single timer (default {@link MAX_TIMER_MS}; tests make it short). */
  readonly maxTimerMs?: number;
}

interface Step {
  readonly current: WebhookCertificates;
  readonly report?: CertificateRenewal;
}

/**
 * The renewals of `first`, for as long as it is subscribed. `renew(now)` makes or reads the next
 * certificate (it is given the scheduler's time, so a virtual-time test decides like production).
 * A renewal that answers a certificate already due is a failure (retried), never a busy loop.
 */
export function certificateRenewals(
  first: WebhookCertificates,
  renew: (now: Date) => ObservableInput<WebhookCertificates>,
  options: RenewalOptions,
  scheduler: SchedulerLike,
): Observable<CertificateRenewal> {
  const maxTimer = Math.min(options.maxTimerMs ?? MAX_TIMER_MS, MAX_TIMER_MS);
  const dueAt = (c: WebhookCertificates): number => c.notAfter.getTime() - options.renewBeforeMs;
  const step = (s: Step): Observable<Step> => {
    if (s.report?.type === 'failed') {
      return timer(options.retryMs, scheduler).pipe(map(() => ({ current: s.current })));
    }
    const wait = dueAt(s.current) - scheduler.now();
    if (wait > 0) {
      return timer(Math.min(wait, maxTimer), scheduler).pipe(map(() => ({ current: s.current })));
    }
    return defer(() => from(renew(new Date(scheduler.now())))).pipe(
      map((next): Step => {
        if (dueAt(next) <= scheduler.now()) {
          throw new Error(
            `the renewed serving certificate expires at ${next.notAfter.toISOString()}, within ${String(options.renewBeforeMs / 1000)} s of now: make validForDays longer than renewBeforeDays`,
          );
        }
        return { current: next, report: { type: 'renewed', certificates: next } };
      }),
      catchError((error: unknown) =>
        of<Step>({ current: s.current, report: { type: 'failed', error, retryInMs: options.retryMs } }),
      ),
    );
  };
  return of<Step>({ current: first }).pipe(
    expand((s) => step(s)),
    map((s) => s.report),
    filter((r): r is CertificateRenewal => r !== undefined),
  );
}
