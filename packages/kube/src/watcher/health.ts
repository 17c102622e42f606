/**
 * The watcher's health: counters and the current state of one running watcher, reported as plain
 * values (never as Observable errors). Read it to drive a readiness probe, a metric or a log line.
 *
 * @module
 */

/**
 * What kind of recoverable failure a {@link WatcherFailure} describes.
 *
 * ## Example
 * ```ts
 * const relisted = (h: WatcherHealth): boolean => h.lastError?.kind === 'gone';
 * ```
 */
export type WatcherFailureKind =
  /** A list page failed (network, HTTP error) — the list restarts from scratch after backoff. */
  | 'list'
  /** A watch request failed (network, HTTP error such as 5xx, 429, 403) — re-watch after backoff. */
  | 'watch'
  /** The watch stream carried an `ERROR` event other than 410 — re-watch after backoff. */
  | 'watch-status'
  /** 410 Gone / `Expired` (HTTP 410 or an `ERROR` event with code 410) — relist after backoff. */
  | 'gone'
  /**
   * No line for `idleTimeoutMs` — the watch is aborted and resumed from the last RV: at once when it
   * had been healthy (no failure since its last line), after backoff for consecutive stalls.
   */
  | 'stall'
  /** A line that could not be parsed — the watch is aborted and resumed from the last good RV. */
  | 'malformed'
  /** The server ended the watch within 1 s without a single line (client-go's "very short watch"). */
  | 'short-watch'
  /**
   * 400 BadRequest on a list or watch: the server refuses the request itself (a selector or field
   * it cannot parse or select on). Not transient: retried only every `backoff.maxMs`, and
   * `WatchHealthChecks` keeps `/readyz` failing, naming it, until a request succeeds.
   */
  | 'invalid'
  /**
   * The kind is not served (its CRD is not installed or Established yet, or was deleted): the
   * message names the kind. The watcher waits (checking again after backoff, discovery refetching
   * the group-version) and starts when it is served; not counted in `errors`.
   */
  | 'not-served';

/**
 * One recoverable failure, as reported in {@link WatcherHealth.lastError}.
 *
 * ## Example
 * ```ts
 * watcher(client, configMaps, {
 *   health: (h) => h.lastError && console.warn(`${h.lastError.kind} failed (${h.lastError.code ?? '-'}): ${h.lastError.message}`),
 * }).subscribe();
 * ```
 */
export interface WatcherFailure {
  readonly kind: WatcherFailureKind;
  /** What failed, in words (includes the server's message when there is one). */
  readonly message: string;
  /** HTTP status or `metav1.Status.code`, when known. */
  readonly code?: number;
  /** `metav1.Status.reason` (`Expired`, `TooManyRequests`, `Forbidden`, …), when known. */
  readonly reason?: string;
  /** The server's `Retry-After`, in ms, when it sent one (used as the minimum backoff). */
  readonly retryAfterMs?: number;
  /** `scheduler.now()` when the failure was seen. */
  readonly at: number;
  /** The original error object, when the failure came from the error channel. */
  readonly cause?: unknown;
}

/**
 * Where the watcher's state machine is.
 *
 * ## Example
 * ```ts
 * watcher(client, configMaps, { health: (h) => h.phase === 'backoff' && console.warn(`retry in ${h.backoffMs} ms`) }).subscribe();
 * ```
 */
export type WatcherPhase = 'listing' | 'watching' | 'backoff' | 'stopped';

/**
 * A snapshot of one running watcher. Counters only grow while the watcher runs; every snapshot is
 * a new frozen object.
 *
 * ## Example
 * ```ts
 * import { Gauge } from 'prom-client';
 *
 * const connected = new Gauge({ name: 'widget_configmap_watch_connected', help: 'The ConfigMap watch is open' });
 * watcher(client, configMaps, { health: (h) => connected.set(h.connected ? 1 : 0) }).subscribe();
 * ```
 */
export interface WatcherHealth {
  readonly phase: WatcherPhase;
  /** A watch request is open (it may still be waiting for its first line). */
  readonly connected: boolean;
  /** At least one list completed (`InitDone` was emitted). */
  readonly synced: boolean;
  /** The last resourceVersion seen (list, event or bookmark): where the next watch resumes. */
  readonly resourceVersion: string | undefined;
  /** `scheduler.now()` of the last watch line of any type (bookmarks included). */
  readonly lastEventAt: number | undefined;
  /** Objects the watcher currently knows (what a relist diffs against). */
  readonly objects: number;
  /** Watch requests opened after the first one, whatever ended the previous one. */
  readonly reconnects: number;
  /** Lists started because of a 410 (equals `gone410s` once the relist began). */
  readonly relists: number;
  /** 410 Gone / Expired answers seen (HTTP 410 on list or watch, `ERROR` events with code 410). */
  readonly gone410s: number;
  readonly bookmarks: number;
  readonly malformedLines: number;
  /** Failures of kind `list`, `watch`, `watch-status`, `short-watch` and `invalid`. */
  readonly errors: number;
  /** Idle-timer expiries (no line for `idleTimeoutMs`). */
  readonly stalls: number;
  /** The last failure of any kind, `undefined` until one happens. */
  readonly lastError: WatcherFailure | undefined;
  /** The backoff being waited before the next attempt, in ms; `0` when not backing off. */
  readonly backoffMs: number;
  /**
   * How the current or last initial list is read: `'streaming'` (WatchList) or `'paged'`;
   * `undefined` before the first list starts.
   */
  readonly initialList: 'streaming' | 'paged' | undefined;
}

/**
 * The health of a watcher that has not started.
 *
 * ## Example
 * ```ts
 * // a snapshot for a test of code that reads health, with only the fields that matter set
 * const health: WatcherHealth = { ...INITIAL_WATCHER_HEALTH, phase: 'watching', connected: true, synced: true };
 * ```
 */
export const INITIAL_WATCHER_HEALTH: WatcherHealth = Object.freeze({
  phase: 'stopped',
  connected: false,
  synced: false,
  resourceVersion: undefined,
  lastEventAt: undefined,
  objects: 0,
  reconnects: 0,
  relists: 0,
  gone410s: 0,
  bookmarks: 0,
  malformedLines: 0,
  initialList: undefined,
  errors: 0,
  stalls: 0,
  lastError: undefined,
  backoffMs: 0,
});
