/**
 * `fanOut`: `mergeMap` for a projection that nearly always returns an array. An array's items go
 * out synchronously, in order, with no inner subscription; anything else (an Observable, a
 * Promise) is subscribed as `mergeMap` would, concurrently with later values. A trigger's
 * requests are such an array on every event of a watch: `mergeMap` subscribed to one inner
 * Observable per event for them (issue 21, the lean event path).
 *
 * @module
 */
import { from, Observable } from 'rxjs';
import type { ObservableInput, OperatorFunction, Subscription } from 'rxjs';

/**
 * Like `mergeMap(project)`, emitting an array's items at once. Completes when the source and
 * every inner input completed; errors with the first error of the source, `project` or an inner.
 */
export function fanOut<T, R>(
  project: (value: T) => readonly R[] | ObservableInput<R>,
): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      let inners: Set<Subscription> | undefined;
      let sourceDone = false;
      const completeIfDone = (): void => {
        if (sourceDone && (inners === undefined || inners.size === 0)) subscriber.complete();
      };
      /** An inner input that is not an array, subscribed beside the others (mergeMap's way). */
      const join = (input: Observable<R>): void => {
        const set = (inners ??= new Set());
        // `complete` may run synchronously, inside `subscribe`, before the subscription is known
        const inner: { sub: Subscription | undefined; done: boolean } = { sub: undefined, done: false };
        inner.sub = input.subscribe({
          next: (item) => subscriber.next(item),
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            inner.done = true;
            if (inner.sub !== undefined) set.delete(inner.sub);
            completeIfDone();
          },
        });
        if (!inner.done) set.add(inner.sub);
      };
      const upstream = source.subscribe({
        next: (value) => {
          let out: readonly R[] | ObservableInput<R>;
          try {
            out = project(value);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          if (Array.isArray(out)) {
            for (const item of out as readonly R[]) subscriber.next(item);
            return;
          }
          let input: Observable<R>;
          try {
            input = from(out as ObservableInput<R>);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          join(input);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          completeIfDone();
        },
      });
      return () => {
        upstream.unsubscribe();
        if (inners !== undefined) for (const inner of inners) inner.unsubscribe();
        inners?.clear();
      };
    });
}
