/**
 * A handler's deadline: the first value of the handler, or `{ timedOut: true }` once `ms` passed
 * (the handler's AbortSignal is aborted then). A handler that throws yields `{ error }`.
 *
 * @module
 */
import type { ObservableInput, SchedulerLike } from 'rxjs';
import { catchError, defer, first, map, Observable, of, race, timer } from 'rxjs';

/** The outcome of a handler run under a deadline. */
export type DeadlineOutcome<T> =
  { readonly value: T } | { readonly error: unknown } | { readonly timedOut: true };

/**
 * Runs `handler(signal)` and races it against `ms`: the first value wins; the deadline aborts the
 * signal; unsubscribing aborts it too and leaves no timer.
 */
export function withDeadline<T>(
  handler: (signal: AbortSignal) => ObservableInput<T>,
  ms: number,
  scheduler: SchedulerLike,
): Observable<DeadlineOutcome<T>> {
  return new Observable<DeadlineOutcome<T>>((subscriber) => {
    const controller = new AbortController();
    const run$ = defer(() => handler(controller.signal)).pipe(
      first(),
      map((value): DeadlineOutcome<T> => ({ value })),
      catchError((error: unknown) => of<DeadlineOutcome<T>>({ error })),
    );
    const subscription = race(
      run$,
      timer(ms, scheduler).pipe(map((): DeadlineOutcome<T> => ({ timedOut: true }))),
    ).subscribe({
      next: (outcome) => {
        if ('timedOut' in outcome) controller.abort(new Error(`deadline of ${String(ms)} ms exceeded`));
        subscriber.next(outcome);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    return () => {
      subscription.unsubscribe();
      if (!controller.signal.aborted) controller.abort(new Error('webhook request ended'));
    };
  });
}
