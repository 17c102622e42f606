/**
 * The relist gate of a watch's trigger stream (issue 12 §1): the objects of a (re)list become
 * triggers only at its `InitDone` — when the Store holds the new list, so the reconciles they start
 * read it — and only those that changed or appeared while the watch was away.
 *
 * @module
 */
import { Observable } from 'rxjs';
import type { OperatorFunction } from 'rxjs';

import type { ResyncEvent } from '../reflector/resync.js';
import type { StoreReader } from '../reflector/store-reader.js';
import type { KubeObject, WatchEvent } from '../types.js';
import { objectKey } from '../types.js';

/** A change of one object that may request a reconcile. */
export interface Trigger<T extends KubeObject = KubeObject> {
  /** `Apply`: added or changed (live, or found changed by a relist); `Delete`; `Resync`. */
  readonly type: 'Apply' | 'Delete' | 'Resync';
  readonly object: T;
  /** Set on the `Apply`s of a relist (a list after the first): the object changed while the watch was away. */
  readonly relist?: true;
}

/**
 * Turns watch events into triggers: `Apply`/`Delete`/`Resync` pass; the objects of a list are held
 * from `Init` to `InitDone`, then emitted as `Apply` — every object of the first list this
 * subscriber sees, and of a later relist only those whose resourceVersion differs from what the
 * Store held before it (or that it did not hold). Objects that vanished come as the watcher's
 * `Delete`s after `InitDone`.
 *
 * ## Semantics
 * - Runs after the reflector (the Store already applied each event), before anything reads it.
 * - A second `Init` before `InitDone` (the list restarted) drops what was held.
 * - complete / error / unsubscribe: forwarded; what is held is dropped.
 *
 * ## Memory
 * The changed objects of a list in progress (references to the Store's objects).
 *
 * @param store the Store the events were applied to (read before `InitDone` swaps the list in).
 * @param onHeld told how many objects are held (for the idle signal).
 * @param as what each trigger goes on as (the controller annotates its echoes here, without a
 *   `map` stage per event); default the trigger itself.
 */
export function relistGate<T extends KubeObject, R = Trigger<T>>(
  store: StoreReader<T>,
  onHeld?: (count: number) => void,
  as: (trigger: Trigger<T>) => R = (trigger) => trigger as unknown as R,
): OperatorFunction<WatchEvent<T> | ResyncEvent<T>, R> {
  return (source) =>
    new Observable<R>((subscriber) => {
      let first = true;
      let held: Map<string, T> | undefined;
      const setHeld = (next: Map<string, T> | undefined): void => {
        held = next;
        onHeld?.(next?.size ?? 0);
      };
      const upstream = source.subscribe({
        next: (event) => {
          switch (event.type) {
            case 'Init':
              setHeld(new Map());
              return;
            case 'InitApply': {
              const key = objectKey(event.object);
              const before = store.get(key);
              if (held === undefined) setHeld(new Map());
              const changed =
                first ||
                before === undefined ||
                before.metadata.resourceVersion !== event.object.metadata.resourceVersion;
              if (changed) held?.set(key, event.object);
              else held?.delete(key);
              onHeld?.(held?.size ?? 0);
              return;
            }
            case 'InitDone': {
              const objects = held === undefined ? [] : [...held.values()];
              const relist = !first;
              first = false;
              setHeld(undefined);
              for (const object of objects) {
                if (subscriber.closed) return;
                subscriber.next(as(relist ? { type: 'Apply', object, relist } : { type: 'Apply', object }));
              }
              return;
            }
            default:
              subscriber.next(as(event));
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        upstream.unsubscribe();
        if (held !== undefined) setHeld(undefined);
      };
    });
}
