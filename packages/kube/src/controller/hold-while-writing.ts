/**
 * Closes the race between a write's response and its watch echo: the server may deliver the echo
 * before the response that tells the {@link WriteTracker} which resourceVersion the write produced.
 * While a controller write of an object is in flight, that object's events are held; when its
 * last write settles they go on in order (then the echo is recognised).
 *
 * @module
 */
import { Observable } from 'rxjs';
import type { MonoTypeOperatorFunction } from 'rxjs';

import type { ResyncEvent } from '../reflector/resync.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import { writeId } from '../sink/write-tracker.js';
import type { KubeObject, ResourceType, WatchEvent } from '../types.js';

/**
 * Holds `Apply`/`Delete` events of an object while `tracker.busy(id)`, releasing them in order when
 * its writes settle. Other events pass at once.
 *
 * ## Memory
 * The events of objects being written only; all dropped on unsubscribe.
 *
 * @param tracker the controller's write tracker.  @param resource the watched kind (ids use it).
 */
export function holdWhileWriting<E extends WatchEvent<KubeObject> | ResyncEvent<KubeObject>>(
  tracker: WriteTracker,
  resource: ResourceType,
): MonoTypeOperatorFunction<E> {
  return (source) =>
    new Observable<E>((subscriber) => {
      const held = new Map<string, E[]>();
      const settled = tracker.settled$.subscribe((id) => {
        const events = held.get(id);
        if (events === undefined) return;
        held.delete(id);
        for (const e of events) subscriber.next(e);
      });
      const upstream = source.subscribe({
        next: (e) => {
          // Nothing held and nothing being written (the common case, once per event): no id built.
          if ((e.type === 'Apply' || e.type === 'Delete') && (held.size > 0 || tracker.writing > 0)) {
            const id = writeId(resource, e.object.metadata);
            const queue = held.get(id);
            if (queue !== undefined || tracker.busy(id)) {
              if (queue === undefined) held.set(id, [e]);
              else queue.push(e);
              return;
            }
          }
          subscriber.next(e);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        upstream.unsubscribe();
        settled.unsubscribe();
        held.clear();
      };
    });
}
