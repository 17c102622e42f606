/**
 * `suppressOwnEcho`: drop the watch events our own writes caused from a trigger stream.
 *
 * @module
 */
import { filter } from 'rxjs';
import type { MonoTypeOperatorFunction } from 'rxjs';

import type { KubeObject, ResourceType, WatchEvent } from '../types.js';
import type { WriteTracker } from './write-tracker.js';

/**
 * Drops each `Apply` event whose object is the echo of a write recorded in `tracker` (same object,
 * same resourceVersion as a write's response), and each `Delete` of an object our DELETE removed,
 * so a write does not trigger another reconcile of the same object.
 *
 * ## Example
 * ```ts
 * const tracker = new WriteTracker();
 * events$.pipe(reflector(store)).subscribe(); // the Store sees every event
 * const triggers$ = events$.pipe(suppressOwnEcho(tracker)); // reconciles do not
 * const results$ = desired$.pipe(statusSink(client, { tracker }));
 * ```
 *
 * ## Semantics
 * - Only the trigger stream should be filtered: the Store must still see the echo (it carries the
 *   object the sink wrote).
 * - `Apply`: dropped when it is an echo (each echo is dropped once). A write by anyone else
 *   produces another resourceVersion and passes.
 * - `Delete`: dropped when our DELETE removed that object (same uid); the object is forgotten
 *   either way. `Init`, `InitApply`, `InitDone` pass unchanged (a relist is a fresh view).
 * - complete, error, unsubscribe: forwarded; the memory belongs to `tracker`, not to this operator.
 *
 * ## Guarantees
 * Never drops an event that carries a change made by another writer: echoes are matched on exact
 * resourceVersion equality, which the API server assigns uniquely per change.
 *
 * ## Memory
 * None of its own; see {@link WriteTracker} (bounded, released per object on echo, Delete or TTL).
 *
 * @param tracker the tracker the writes were recorded in.
 * @param resource the watched kind, when the events' objects do not carry it (metadata-only watches).
 */
export function suppressOwnEcho<T extends KubeObject>(
  tracker: WriteTracker,
  resource?: ResourceType,
): MonoTypeOperatorFunction<WatchEvent<T>> {
  return filter((event) => {
    if (event.type === 'Delete') return tracker.takeDeleteEcho(event.object, resource) === undefined;
    return event.type !== 'Apply' || tracker.takeEcho(event.object, resource) === undefined;
  });
}
