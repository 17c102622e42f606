/**
 * The Manager's safety net for controllers (issue 12 §2): a controller whose pipeline dies (a
 * framework bug: user code is isolated inside it) is restarted with backoff and logged at error;
 * after `MAX_CONTROLLER_FAILURES` failures in a row, the `controllers` liveness check fails so the
 * kubelet restarts the pod. A run that stays up `RESTART_RESET_MS` ends its failure streak.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { MonoTypeOperatorFunction, Observable, SchedulerLike } from 'rxjs';
import { Observable as RxObservable, retry, timer } from 'rxjs';

import type { ProbeCheck } from '../ops/probes.js';
import { MAX_CONTROLLER_FAILURES } from './manager-options.js';

/** First restart delay of a controller whose pipeline died; doubles per failure in a row. */
const RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 60_000;
/** A restarted controller that runs this long without failing ends its failure streak. */
const RESTART_RESET_MS = 60_000;

/** Restarts failed controller runs and reports streaks of failures as a liveness check. */
export class ControllerSupervisor {
  /** Consecutive pipeline failures of each controller. */
  private readonly failures = new Map<string, { count: number; error: unknown }>();

  constructor(
    private readonly log: Logger,
    private readonly scheduler: SchedulerLike,
  ) {}

  /**
   * `run()` as a run of controller `name` that restarts on error (with backoff) and resets on
   * health: a value, or `RESTART_RESET_MS` up, ends a failure streak. `each` sees every value
   * first (the Manager's metrics and log line: one stage per result, not three).
   */
  supervise<T>(name: string, run: () => Observable<T>, each?: (value: T) => void): Observable<T> {
    const run$ = new RxObservable<T>((subscriber) => {
      const healthy = this.scheduler.schedule(() => this.failures.delete(name), RESTART_RESET_MS);
      const subscription = run().subscribe({
        next: (value) => {
          if (this.failures.size > 0) this.failures.delete(name);
          try {
            each?.(value);
          } catch (error) {
            subscriber.error(error); // as a throwing tap did: the run fails and is restarted
            return;
          }
          subscriber.next(value);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        subscription.unsubscribe();
        healthy.unsubscribe();
      };
    });
    return run$.pipe(this.restart(name));
  }

  /** The liveness check of the safety net (part of `/healthz`). */
  liveness(): ProbeCheck {
    return {
      name: 'controllers',
      check: () => {
        const failing = [...this.failures].filter(([, f]) => f.count >= MAX_CONTROLLER_FAILURES);
        if (failing.length === 0) return { ok: true };
        return {
          ok: false,
          reason: failing
            .map(([name, f]) => `controller ${name} failed ${f.count} times in a row: ${errorText(f.error)}`)
            .join('; '),
        };
      },
    };
  }

  private restart<T>(name: string): MonoTypeOperatorFunction<T> {
    return retry({
      delay: (error: unknown, count: number) => {
        this.failures.set(name, { count, error });
        const delayMs = Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** (count - 1));
        this.log.error(
          { controller: name, error, failures: count, restartInMs: delayMs },
          `controller ${name} stopped with an error; restarting it in ${delayMs} ms`,
        );
        return timer(delayMs, this.scheduler);
      },
    });
  }
}

/** An error's message, or the value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
