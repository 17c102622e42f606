export {};
export { watcher } from './watcher/watcher.js';
export { watcherWithHealth } from './watcher/watcher-with-health.js';
export type { WatcherWithHealth } from './watcher/watcher-with-health.js';
export {
  DEFAULT_WATCHER_BACKOFF,
  DEFAULT_WATCHER_PAGE_SIZE,
  DEFAULT_WATCH_IDLE_TIMEOUT_MS,
  DEFAULT_WATCH_TIMEOUT_SECONDS_RANGE,
} from './watcher/config.js';
export type { WatcherBackoffConfig, WatcherConfig } from './watcher/config.js';
export { INITIAL_WATCHER_HEALTH } from './watcher/health.js';
export type { WatcherFailure, WatcherFailureKind, WatcherHealth, WatcherPhase } from './watcher/health.js';
export { NAMESPACE_INDEX, OWNER_INDEX, Store, stripManagedFields } from './reflector/store.js';
export type { Indexer, StoreOptions, StoreRef } from './reflector/store.js';
export { reflector } from './reflector/reflector.js';
export { shareWatch } from './reflector/share-watch.js';
export type { SharedWatch, ShareWatchOptions } from './reflector/share-watch.js';
export { WatchRegistry, watchTargetKey } from './reflector/watch-registry.js';
export type { WatchFactory, WatchTarget } from './reflector/watch-registry.js';
export { resync } from './reflector/resync.js';
export type { ResyncEvent } from './reflector/resync.js';
