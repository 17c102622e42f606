/**
 * List+watch as an Observable of `WatchEvent`s: the state machine, relists, backoff, bookmarks and
 * the health it reports.
 *
 * The public names of `watcher/`: the entry `@rxkube/kube/watcher` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/watcher
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { watcher } from './watcher.js';
export type { WatcherOptions } from './watcher.js';
export {
  DEFAULT_WATCHER_BACKOFF,
  DEFAULT_WATCHER_PAGE_SIZE,
  DEFAULT_WATCH_IDLE_TIMEOUT_MS,
  DEFAULT_WATCH_TIMEOUT_SECONDS_RANGE,
} from './config.js';
export type { WatcherBackoffConfig, WatcherConfig } from './config.js';
export { INITIAL_WATCHER_HEALTH } from './health.js';
export type { WatcherFailure, WatcherFailureKind, WatcherHealth, WatcherPhase } from './health.js';
export type { ListWatchOptions } from './list-watch-source.js';
export type { WatchEvent } from '../types.js';
export type { ListPage, ListParams, ListWatchSource, WatchParams } from './source.js';
export type { StreamingListSupport } from './source.js';
export { INITIAL_EVENTS_END_ANNOTATION } from './source.js';
export { DEFAULT_RECOVERY_PROBE_INTERVAL_MS } from './server-recovery.js';
export { ServerRecovery } from './server-recovery.js';
export type { ServerRecoveryOptions } from './server-recovery.js';
