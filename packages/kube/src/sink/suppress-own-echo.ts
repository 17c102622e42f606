/**
 * `suppressOwnEcho`: drop the watch events our own writes caused from a trigger stream.
 *
 * @module
 */
import { filter } from 'rxjs';
import type { MonoTypeOperatorFunction } from 'rxjs';

import type { KubeObject, WatchEvent } from '../types.js';
import type { OwnWrites } from './own-writes.js';

/**
 * Drops each `Apply` event whose object is the echo of a write recorded in `ownWrites` (same
 * object, same resourceVersion as a write's response), so a status write does not trigger another
 * reconcile of the same object.
 *
 * ## Example
 * ```ts
 * const ownWrites = new OwnWrites();
 * events$.pipe(reflector(store)).subscribe(); // the Store sees every event
 * const triggers$ = events$.pipe(suppressOwnEcho(ownWrites)); // reconciles do not
 * results$ = desired$.pipe(statusSink(port, { ownWrites }));
 * ```
 *
 * ## Semantics
 * - Only the trigger stream should be filtered: the Store must still see the echo (it carries the
 *   object the sink wrote).
 * - `Apply`: dropped when it is an echo (each echo is dropped once). A write by anyone else
 *   produces another resourceVersion and passes.
 * - `Delete`: passes, and the object is forgotten. `Init`, `InitApply`, `InitDone` pass unchanged
 *   (a relist is a fresh view, not an echo).
 * - complete, error, unsubscribe: forwarded; the memory belongs to `ownWrites`, not to this
 *   operator.
 *
 * ## Guarantees
 * Never drops an event that carries a change made by another writer: echoes are matched on exact
 * resourceVersion equality, which the API server assigns uniquely per change.
 *
 * ## Memory
 * None of its own; see {@link OwnWrites} (bounded, released per object on echo, Delete or TTL).
 *
 * @param ownWrites the tracker given to `statusSink`.
 */
export function suppressOwnEcho<T extends KubeObject>(
  ownWrites: OwnWrites,
): MonoTypeOperatorFunction<WatchEvent<T>> {
  return filter((event) => {
    if (event.type === 'Delete') {
      ownWrites.forget(event.object);
      return true;
    }
    return event.type !== 'Apply' || !ownWrites.takeEcho(event.object);
  });
}
