/**
 * The producer side of `@rxkube/core`'s direct runs (its `internal/direct.ts`): an Observable that
 * core's keyed runner and applier can run without rxjs Subscribers, through the method under
 * `Symbol.for('rxkube.direct')`. The controller's reconcile work is one per reconcile (issue 21,
 * the lean event path). Subscribing as usual works the same.
 *
 * @module
 */
import { Observable } from 'rxjs';

/** Where a run sends its notifications (an rxjs Subscriber is one); `closed` once it ended. */
export interface DirectSink<R> {
  next(value: R): void;
  error(error: unknown): void;
  complete(): void;
  readonly closed: boolean;
}

/** An Observable running `start` per subscription, which core's runners can also run directly. */
export function directObservable<R>(start: (sink: DirectSink<R>) => (() => void) | undefined): Observable<R> {
  const observable = new Observable<R>((subscriber) => start(subscriber));
  (observable as unknown as Record<symbol, typeof start>)[Symbol.for('rxkube.direct')] = start;
  return observable;
}
