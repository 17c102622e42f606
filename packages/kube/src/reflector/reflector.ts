/**
 * `reflector`: keeps a {@link Store} up to date from a watcher's events.
 *
 * @module
 */
import type { MonoTypeOperatorFunction } from 'rxjs';
import { map } from 'rxjs';

import type { KubeObject, WatchEvent } from '../types.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { Store } from './store.js';

/**
 * Applies every {@link WatchEvent} to `store`, then passes it on carrying the stored object
 * (transformed — by default without `managedFields` — and deep-frozen).
 *
 * ## Example
 * ```ts
 * const store = new Store<ConfigMap>();
 * watcher(source).pipe(reflector(store)).subscribe((e) => {
 *   if (e.type === 'InitDone') console.log('cache whole:', store.size, 'objects');
 * });
 * ```
 *
 * ## Semantics
 * - Each event is written to the Store before it is passed on, so downstream code reading the
 *   Store sees the state the event describes (after `InitDone`: the whole new list).
 * - complete / error: forwarded; the Store keeps its contents.
 * - unsubscribe: forwarded upstream; the Store keeps its contents.
 *
 * ## Guarantees
 * Objects passed on are the very objects the Store holds (frozen, shared, never copied per event).
 *
 * ## Memory
 * None of its own; see {@link Store}.
 *
 * @param store the Store to keep.
 * @throws {InvalidArgumentError} when `store` is not a {@link Store}.
 */
export function reflector<T extends KubeObject>(store: Store<T>): MonoTypeOperatorFunction<WatchEvent<T>> {
  if (!(store instanceof Store)) {
    throw new InvalidArgumentError('reflector', 'store', store, 'must be a Store (new Store())');
  }
  return map((event) => store.apply(event));
}
