/**
 * `@rxkube/core`'s direct runs (its `internal/direct.ts`), on this side of the package boundary:
 * an Observable that core's keyed runner and applier — and the controller's work, here — run
 * without rxjs Subscribers, through the method under `Symbol.for('rxkube.direct')`. The
 * controller's reconcile work and the Manager's counted reconcile are such Observables, one per
 * reconcile (issue 21, the lean event path). Subscribing as usual works the same. Core keeps its
 * own copy: it exports no name for it, and kube offers none.
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

/** Starts a run: notifications go to `sink`; returns its teardown. */
export type DirectStart<R> = (sink: DirectSink<R>) => (() => void) | undefined;

const DIRECT = Symbol.for('rxkube.direct');

/** An Observable running `start` per subscription, which core's runners can also run directly. */
export function directObservable<R>(start: DirectStart<R>): Observable<R> {
  const observable = new Observable<R>((subscriber) => start(subscriber));
  (observable as unknown as Record<symbol, DirectStart<R>>)[DIRECT] = start;
  return observable;
}

/**
 * Runs `input` into `sink` (the consumer side, as core's `runDirect`): directly when it is a
 * {@link directObservable}, else by subscribing. As a Subscriber would: nothing reaches `sink`
 * after an error, a completion or the returned stop; the teardown runs once, after the sink heard
 * the end (or at stop). The controller's work runs the Manager's counted reconcile this way.
 */
export function runDirect<R>(
  input: Observable<R>,
  sink: Omit<DirectSink<R>, 'closed'>,
): { unsubscribe(): void } {
  const start = (input as unknown as Record<symbol, DirectStart<R> | undefined>)[DIRECT];
  if (start === undefined) return input.subscribe(sink);
  return new DirectRun(start, sink);
}

class DirectRun<R> implements DirectSink<R> {
  closed = false;
  private teardown: (() => void) | undefined;

  constructor(
    start: DirectStart<R>,
    private readonly sink: Omit<DirectSink<R>, 'closed'>,
  ) {
    let teardown: (() => void) | undefined;
    try {
      teardown = start(this);
    } catch (error) {
      // as Observable.subscribe does with a throwing subscribe function
      this.error(error);
    }
    if (this.closed) teardown?.();
    else this.teardown = teardown;
  }

  next(value: R): void {
    if (!this.closed) this.sink.next(value);
  }

  error(error: unknown): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.sink.error(error);
    } finally {
      this.end();
    }
  }

  complete(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.sink.complete();
    } finally {
      this.end();
    }
  }

  unsubscribe(): void {
    if (this.closed) return;
    this.closed = true;
    this.end();
  }

  private end(): void {
    const teardown = this.teardown;
    this.teardown = undefined;
    teardown?.();
  }
}
