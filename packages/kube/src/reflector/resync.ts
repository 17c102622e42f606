/**
 * `resync`: periodically re-emits every object of a Store so level-triggered consumers recheck.
 *
 * @module
 */
import type { OperatorFunction, SchedulerAction, SchedulerLike } from 'rxjs';
import { asyncScheduler, Observable } from 'rxjs';

import type { KubeObject, WatchEvent } from '../types.js';
import { assertNumber, InvalidArgumentError } from '../internal/invalid-argument.js';
import { Store } from './store.js';

/**
 * "Nothing changed, look again": one object of a periodic resync. Distinct from `Apply` so that
 * change-detecting predicates (generation changed, …) can let it through on purpose instead of
 * silently filtering it (controller-runtime's resyncs are Update events with old == new, which
 * `GenerationChangedPredicate` drops).
 *
 * ## Example
 * ```ts
 * watcher(client, widgetType).pipe(reflector(store), resync(60_000, store)).subscribe((e) => {
 *   if (e.type === 'Resync') console.log('recheck', objectKey(e.object));
 * });
 * ```
 */
export interface ResyncEvent<T extends KubeObject = KubeObject> {
  readonly type: 'Resync';
  readonly object: T;
}

/**
 * Passes the events through and, every `periodMs`, emits a {@link ResyncEvent} for each object of
 * `store`.
 *
 * ## Example
 * ```ts
 * declare const enqueue: (key: string) => void; // a work queue's
 * watcher(client, widgetType).pipe(reflector(store), resync(10 * 60_000, store)).subscribe((e) => {
 *   if (e.type === 'Apply' || e.type === 'Resync') enqueue(objectKey(e.object));
 * });
 * ```
 *
 * ## Semantics
 * - The first resync comes `periodMs` after subscription, then every `periodMs`.
 * - A tick while the Store is not ready or a (re)list is in progress is skipped (the list itself
 *   brings every object).
 * - complete / error: forwarded; the timer stops. unsubscribe: timer cancelled.
 *
 * ## Memory
 * The Store's list is copied at each tick (released once emitted).
 *
 * @param periodMs ms between resyncs, `> 0`.  @param store the Store whose objects are re-emitted.
 * @param scheduler time source; `TestScheduler.run` virtualises it.
 */
export function resync<T extends KubeObject>(
  periodMs: number,
  store: Store<T>,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<WatchEvent<T>, WatchEvent<T> | ResyncEvent<T>> {
  assertNumber('resync', 'periodMs', periodMs, 1, false);
  if (!(store instanceof Store)) {
    throw new InvalidArgumentError('resync', 'store', store, 'must be a Store (the one the reflector keeps)');
  }
  return (source) =>
    new Observable<WatchEvent<T> | ResyncEvent<T>>((subscriber) => {
      const timer = scheduler.schedule(function (this: SchedulerAction<undefined>) {
        if (store.ready && !store.listing) {
          for (const object of store.list()) {
            if (subscriber.closed) return;
            subscriber.next({ type: 'Resync', object });
          }
        }
        this.schedule(undefined, periodMs);
      }, periodMs);
      const upstream = source.subscribe(subscriber);
      return () => {
        timer.unsubscribe();
        upstream.unsubscribe();
      };
    });
}
