/**
 * `watcherWithHealth`: {@link watcher} plus its health as an Observable.
 *
 * @module
 */
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, BehaviorSubject } from 'rxjs';

import type { KubeObject, WatchEvent } from '../types.js';
import type { WatcherConfig } from './config.js';
import { resolveWatcherConfig } from './config.js';
import type { WatcherHealth } from './health.js';
import { INITIAL_WATCHER_HEALTH } from './health.js';
import type { ListWatchSource } from './source.js';
import { watcher } from './watcher.js';

/** What {@link watcherWithHealth} returns. */
export interface WatcherWithHealth<T extends KubeObject> {
  /** The watcher's events; subscribe once (share it) — each subscription runs its own watch. */
  readonly events$: Observable<WatchEvent<T>>;
  /** The latest health snapshot first (replayed to late subscribers), then every change. */
  readonly health$: Observable<WatcherHealth>;
  /** The latest health snapshot, for pull-style metrics. */
  health(): WatcherHealth;
}

/**
 * {@link watcher} with its health as an Observable: recoverable failures, reconnects, relists,
 * stalls and bookmarks arrive as {@link WatcherHealth} values, never as errors.
 *
 * ## Example
 * ```ts
 * const { events$, health$ } = watcherWithHealth(source);
 * health$.pipe(filter((h) => h.lastError !== undefined)).subscribe((h) => log.warn(h.lastError));
 * events$.pipe(reflector(store)).subscribe();
 * ```
 *
 * ## Semantics
 * - `health$` starts with {@link INITIAL_WATCHER_HEALTH} (phase `stopped`) until `events$` is
 *   subscribed; it ends in phase `stopped` again when `events$` is unsubscribed. It never completes.
 * - A `config.health` callback, if given, is called too.
 * - Everything else is {@link watcher}'s.
 *
 * ## Memory
 * The latest snapshot, plus the watcher's own state.
 *
 * @param source the transport port.  @param config see {@link WatcherConfig}.
 * @param scheduler time source; `TestScheduler.run` virtualises it.
 */
export function watcherWithHealth<T extends KubeObject>(
  source: ListWatchSource<T>,
  config: WatcherConfig = {},
  scheduler: SchedulerLike = asyncScheduler,
): WatcherWithHealth<T> {
  const userCallback = resolveWatcherConfig('watcherWithHealth', config).health;
  const subject = new BehaviorSubject<WatcherHealth>(INITIAL_WATCHER_HEALTH);
  const events$ = watcher(
    source,
    {
      ...config,
      health: (h) => {
        subject.next(h);
        userCallback?.(h);
      },
    },
    scheduler,
  );
  return { events$, health$: subject.asObservable(), health: () => subject.getValue() };
}
