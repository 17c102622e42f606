/**
 * Whether a watch made progress since its last failure, read from its health snapshots — the one
 * test shared by the watch failure log and the `/readyz` watches check. Progress is what a refused
 * or failing request never shows: a line received after the last failure, a list that completed
 * (listing → watching), or a watch request that ended without a failure (the next one starts with
 * no new failure). Opening a request is not progress: a refused one is open for a moment too,
 * until its 403 arrives.
 *
 * @module
 */
import type { WatcherFailure, WatcherHealth } from '../watcher/health.js';

/** What one watch target's snapshots so far say (mutable; one per target). */
export interface WatchProgress {
  /** `at` of the newest failure seen (snapshots repeat `lastError`). */
  seenAt: number;
  /** The previous snapshot's phase (`backoff` for a watch request that was not open). */
  phase: WatcherHealth['phase'];
  /** The previous snapshot's `reconnects`: a new watch request counts one more. */
  reconnects: number;
  /** `lastError.at` when the current watch request started (`undefined`: none started yet). */
  failureAtWatchStart: number | undefined;
}

/** The state of a target whose snapshots have not been seen yet. */
export function watchProgress(): WatchProgress {
  return {
    seenAt: Number.NEGATIVE_INFINITY,
    phase: 'stopped',
    reconnects: 0,
    failureAtWatchStart: undefined,
  };
}

/**
 * Folds `health` into `state`: the failure it brings, if it is new, else whether it shows progress
 * since the last failure.
 *
 * ## Example
 * ```ts
 * declare const health: WatcherHealth; // the latest of a watcher's health stream
 * const state = watchProgress();
 * const { failure, progressed } = observeProgress(state, health);
 * ```
 */
export function observeProgress(
  state: WatchProgress,
  health: WatcherHealth,
): { readonly failure: WatcherFailure | undefined; readonly progressed: boolean } {
  const last = health.lastError;
  const failure = last !== undefined && last.at > state.seenAt ? last : undefined;
  const watchStarts =
    health.phase === 'watching' &&
    health.connected &&
    (state.phase !== 'watching' || health.reconnects !== state.reconnects);
  const progressed =
    failure === undefined &&
    ((health.lastEventAt !== undefined && health.lastEventAt > state.seenAt) ||
      (watchStarts && state.phase === 'listing') ||
      (watchStarts && state.failureAtWatchStart !== undefined && state.failureAtWatchStart === last?.at));
  if (watchStarts) state.failureAtWatchStart = last?.at ?? Number.NEGATIVE_INFINITY;
  state.phase = health.phase === 'watching' && !health.connected ? 'backoff' : health.phase;
  state.reconnects = health.reconnects;
  if (failure !== undefined) state.seenAt = failure.at;
  return { failure, progressed };
}
