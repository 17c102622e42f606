/**
 * `shareWatch`: one upstream watch and one {@link Store} shared by every subscriber, with replay of
 * the Store's contents to late subscribers.
 *
 * @module
 */
import type { Observable, SchedulerLike, Subscriber } from 'rxjs';
import { asyncScheduler, Observable as RxObservable, Subscription } from 'rxjs';

import type { KubeObject, WatchEvent } from '../types.js';
import type { StoreOptions } from './store.js';
import { Store } from './store.js';

/** Options of {@link shareWatch}. */
export interface ShareWatchOptions<T extends KubeObject> {
  /**
   * Keep the upstream (and the Store's contents) this long after the last subscriber left, so a
   * quick resubscribe (a controller restart, a route change) does not relist. ms, `>= 0`; default 0.
   */
  readonly gracePeriodMs?: number;
  /** Options of the shared Store (transform, indexers). */
  readonly store?: StoreOptions<T>;
}

/**
 * One shared watch: its events and the Store they keep.
 *
 * ## Example
 * ```ts
 * const pods: SharedWatch<Pod> = registry.watch<Pod>({ resource: { apiVersion: 'v1', kind: 'Pod' } });
 * pods.events$.subscribe((e) => console.log(e.type, pods.store.size));
 * ```
 */
export interface SharedWatch<T extends KubeObject> {
  /**
   * The shared events. Each subscriber first receives the Store's current contents as
   * `Init`, `InitApply`*, `InitDone` (nothing if the first list has not started), then live events.
   */
  readonly events$: Observable<WatchEvent<T>>;
  /** The Store kept from the upstream; empty (and not ready) while nobody subscribes. */
  readonly store: Store<T>;
}

/**
 * Shares one upstream watch between subscribers (refCount), keeping one {@link Store} from it.
 *
 * ## Example
 * ```ts
 * import type { Observer } from 'rxjs';
 *
 * declare const controllerA: Observer<WatchEvent<Pod>>;
 * declare const controllerB: Observer<WatchEvent<Pod>>;
 * declare const rs: KubeObject; // a ReplicaSet
 * const pods = shareWatch(watcher(client, podType), { gracePeriodMs: 5_000 });
 * pods.events$.subscribe(controllerA); // lists, then watches
 * pods.events$.subscribe(controllerB); // no second request: gets the Store as Init…InitDone, then live
 * pods.store.byIndex('owner', rs.metadata.uid ?? ''); // its Pods
 * ```
 *
 * ## Semantics
 * - The first subscriber subscribes the upstream (each event into the Store, as `reflector` does); the last one leaving
 *   unsubscribes it — after `gracePeriodMs` if set; a subscriber arriving meanwhile cancels that.
 * - A late subscriber receives, synchronously at subscription, the Store's objects framed as
 *   `Init` … `InitApply`* … `InitDone`, then the live events. Joining during a (re)list it receives
 *   `Init` and the objects listed so far, then the rest of that list live. (Deletes that follow a
 *   relist may then name objects it never received; treat a Delete of an unknown key as a no-op.)
 * - Upstream error / complete: forwarded to every subscriber; the Store is cleared; the next
 *   subscriber starts a new upstream.
 * - Teardown clears the Store (`ready` back to `false`).
 *
 * ## Guarantees
 * At most one upstream subscription at any time; every subscriber sees the same frozen objects.
 *
 * ## Memory
 * The Store (one entry per live object) while subscribed or within the grace period; a Set of
 * subscribers. Nothing is buffered per subscriber: events are delivered synchronously.
 *
 * @param upstream the events to share, typically `watcher(source)`.
 * @param options see {@link ShareWatchOptions}.
 * @param scheduler time source of the grace period; `TestScheduler.run` virtualises it.
 */
export function shareWatch<T extends KubeObject>(
  upstream: Observable<WatchEvent<T>>,
  options: ShareWatchOptions<T> = {},
  scheduler: SchedulerLike = asyncScheduler,
): SharedWatch<T> {
  // Inside: only WatchRegistry and the sharded watch call this, with their own Observable and
  // options WatchRegistry's constructor has checked (docs/design.md, "Validate at the door").
  const gracePeriodMs = options.gracePeriodMs ?? 0;
  const store = new Store<T>(options.store);
  const subscribers = new Set<Subscriber<WatchEvent<T>>>();
  let connection: Subscription | undefined;
  let graceTimer: Subscription | undefined;

  const disconnect = (): void => {
    graceTimer?.unsubscribe();
    graceTimer = undefined;
    const current = connection;
    connection = undefined;
    current?.unsubscribe();
    store.clear();
  };

  const connect = (): void => {
    const holder = new Subscription();
    connection = holder;
    const end = (notify: (s: Subscriber<WatchEvent<T>>) => void): void => {
      if (connection !== holder) return;
      const all = [...subscribers];
      subscribers.clear();
      disconnect();
      for (const s of all) notify(s);
    };
    holder.add(
      // what `reflector(store)` does (each event into the Store before it goes on), without its
      // `map` stage per event
      upstream.subscribe({
        next: (received) => {
          let event: WatchEvent<T>;
          try {
            event = store.apply(received);
          } catch (error) {
            end((s) => s.error(error));
            return;
          }
          if (subscribers.size === 1) {
            // the common case: one subscriber, told without copying the set (taken first: one
            // joining while it is told has seen this event in the Store's replay)
            (subscribers.values().next().value as Subscriber<WatchEvent<T>>).next(event);
            return;
          }
          // A copy: a subscriber may unsubscribe (or a new one join) while an event is delivered.
          for (const s of [...subscribers]) s.next(event);
        },
        error: (error: unknown) => end((s) => s.error(error)),
        complete: () => end((s) => s.complete()),
      }),
    );
  };

  const events$ = new RxObservable<WatchEvent<T>>((subscriber) => {
    graceTimer?.unsubscribe();
    graceTimer = undefined;
    if (connection !== undefined) {
      for (const event of store.replay()) {
        if (subscriber.closed) return;
        subscriber.next(event);
      }
    }
    subscribers.add(subscriber);
    if (connection === undefined) connect();
    return () => {
      subscribers.delete(subscriber);
      if (subscribers.size > 0 || connection === undefined) return;
      if (gracePeriodMs > 0) {
        graceTimer?.unsubscribe();
        graceTimer = scheduler.schedule(() => {
          graceTimer = undefined;
          if (subscribers.size === 0) disconnect();
        }, gracePeriodMs);
      } else {
        disconnect();
      }
    };
  });

  return { events$, store };
}
