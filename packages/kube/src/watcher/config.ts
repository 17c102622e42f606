/**
 * Configuration of {@link watcher}: defaults from client-go and kube-rs (see docs/defaults.md),
 * and the checks that turn a bad value into a clear error before anything subscribes.
 *
 * @module
 */
import type { WatcherHealth } from './health.js';
import type { ServerRecovery } from './server-recovery.js';
import { assertNumber, InvalidArgumentError } from '../internal/invalid-argument.js';

/**
 * List page size (client-go pager, kube-rs).
 *
 * ## Example
 * ```ts
 * watcher(source, { pageSize: DEFAULT_WATCHER_PAGE_SIZE * 2 }); // larger list pages than the default
 * ```
 */
export const DEFAULT_WATCHER_PAGE_SIZE = 500;
/**
 * `timeoutSeconds` of each watch request is drawn uniformly from this range (client-go).
 *
 * ## Example
 * ```ts
 * const [min, max] = DEFAULT_WATCH_TIMEOUT_SECONDS_RANGE; // 300, 600
 * watcher(source, { timeoutSecondsRange: [min, min] }); // every watch asks for timeoutSeconds=300
 * ```
 */
export const DEFAULT_WATCH_TIMEOUT_SECONDS_RANGE: readonly [number, number] = Object.freeze([
  300, 600,
] as const);
/**
 * Per-line idle timeout (kopf; longer than the ~60 s bookmark period).
 *
 * ## Example
 * ```ts
 * watcher(source, { idleTimeoutMs: DEFAULT_WATCH_IDLE_TIMEOUT_MS / 2 }); // give up on a silent watch sooner
 * ```
 */
export const DEFAULT_WATCH_IDLE_TIMEOUT_MS = 70_000;
/**
 * Reconnect backoff: 0.8 s ×2 → 30 s, jittered, reset after 120 s healthy (client-go, kube-rs).
 *
 * ## Example
 * ```ts
 * watcher(source, { backoff: { ...DEFAULT_WATCHER_BACKOFF, jitter: 0 } }); // 800, 1600, 3200, … 30000 ms
 * ```
 */
export const DEFAULT_WATCHER_BACKOFF: Readonly<WatcherBackoffConfig> = Object.freeze({
  initialMs: 800,
  maxMs: 30_000,
  factor: 2,
  jitter: 0.25,
  resetAfterMs: 120_000,
});

/**
 * Reconnect backoff. The n-th consecutive failure (n = 0, 1, …) waits
 * `min(maxMs, initialMs × factor^n) × (1 − jitter × random())` ms — never more than `maxMs`, and
 * spread below it so that watchers that failed together do not retry in lockstep. A server's
 * `Retry-After` is a floor on top of that. The counter resets once a watch stayed healthy for
 * `resetAfterMs`.
 *
 * ## Example
 * ```ts
 * const backoff: Partial<WatcherBackoffConfig> = { initialMs: 100, maxMs: 5_000 };
 * watcher(source, { backoff }); // factor, jitter and resetAfterMs from DEFAULT_WATCHER_BACKOFF
 * ```
 */
export interface WatcherBackoffConfig {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
  /** In `[0, 1]`; `0` gives the exact sequence 800, 1600, 3200, … 30000. */
  readonly jitter: number;
  readonly resetAfterMs: number;
}

/**
 * Options of {@link watcher}; every field has a default.
 *
 * ## Example
 * ```ts
 * const config: WatcherConfig = { pageSize: 2, backoff: { jitter: 0 }, health: (h) => console.log(h.phase) };
 * watcher(source, config, testScheduler);
 * ```
 */
export interface WatcherConfig {
  /** `limit` of each list page; integer `>= 1`. Default {@link DEFAULT_WATCHER_PAGE_SIZE}. */
  readonly pageSize?: number;
  /** `[min, max]` seconds, integers, `1 <= min <= max`. Default {@link DEFAULT_WATCH_TIMEOUT_SECONDS_RANGE}. */
  readonly timeoutSecondsRange?: readonly [number, number];
  /** Abort a watch after this long without any line; `> 0`. Default {@link DEFAULT_WATCH_IDLE_TIMEOUT_MS}. */
  readonly idleTimeoutMs?: number;
  /** Any subset of {@link WatcherBackoffConfig}; the rest from {@link DEFAULT_WATCHER_BACKOFF}. */
  readonly backoff?: Partial<WatcherBackoffConfig>;
  /** Randomness in `[0, 1)` for jitter and `timeoutSeconds`. Default `Math.random`; inject in tests. */
  readonly random?: () => number;
  /**
   * Where the first watch starts. Only `'list'` (a consistent paginated list, then a watch from its
   * resourceVersion) is supported today.
   */
  readonly resourceVersionStart?: 'list';
  /**
   * How the initial list (and every relist) is read:
   * - left out (default): a streaming list (WatchList, KEP-3157: `sendInitialEvents=true`,
   *   `resourceVersionMatch=NotOlderThan`, bookmarks on) when the source can ask for one, as
   *   client-go does since 1.35; a server that refuses it (Kubernetes before 1.27, or with the
   *   `WatchList` feature gate off) gets paged lists from then on — remembered per server, logged
   *   once through {@link WatcherConfig.debug}.
   * - `true`: always a streaming list, never the fallback (failures retry with backoff).
   * - `false`: always a paged list (`limit` = `pageSize`, following `continue`), then a watch.
   */
  readonly streamingLists?: boolean;
  /** Told once per server when streaming lists fall back to paged lists (default: nothing). */
  readonly debug?: (message: string) => void;
  /**
   * Called with a new frozen {@link WatcherHealth} snapshot on every state change (connect,
   * failure, backoff, relist, list done, bookmark, stop) — not on every Apply/Delete.
   */
  readonly health?: (health: WatcherHealth) => void;
  /**
   * Shared with the other watchers of the same API server: a connection failure's backoff ends
   * early once any of them (or the recovery's probe) succeeds. A `WatchRegistry` over a client
   * sets one for all its watches. Default: none (each watcher waits out its own backoff).
   */
  readonly recovery?: ServerRecovery;
}

/** A {@link WatcherConfig} with every default filled in. */
export interface ResolvedWatcherConfig {
  readonly pageSize: number;
  readonly timeoutSecondsRange: readonly [number, number];
  readonly idleTimeoutMs: number;
  readonly backoff: WatcherBackoffConfig;
  readonly random: () => number;
  readonly health: ((health: WatcherHealth) => void) | undefined;
  readonly recovery: ServerRecovery | undefined;
  /** `undefined`: streaming with fallback; `true`/`false`: forced. */
  readonly streamingLists: boolean | undefined;
  readonly debug: ((message: string) => void) | undefined;
}

/**
 * Fills in defaults and checks every field.
 *
 * @throws {InvalidArgumentError} naming the field, what it must be and what was passed.
 */
export function resolveWatcherConfig(
  operator: string,
  config: WatcherConfig | undefined,
): ResolvedWatcherConfig {
  if (config === undefined) config = {};
  if (config === null || typeof config !== 'object') {
    throw new InvalidArgumentError(operator, 'config', config, 'must be an object or undefined');
  }
  const pageSize = config.pageSize ?? DEFAULT_WATCHER_PAGE_SIZE;
  assertNumber(operator, 'config.pageSize', pageSize, 1, true);

  const range = config.timeoutSecondsRange ?? DEFAULT_WATCH_TIMEOUT_SECONDS_RANGE;
  if (
    !Array.isArray(range) ||
    range.length !== 2 ||
    !range.every((s) => typeof s === 'number' && Number.isInteger(s) && s >= 1) ||
    range[0] > range[1]
  ) {
    throw new InvalidArgumentError(
      operator,
      'config.timeoutSecondsRange',
      range,
      'must be [min, max] whole seconds with 1 <= min <= max (the server ends each watch after this long)',
    );
  }

  const idleTimeoutMs = config.idleTimeoutMs ?? DEFAULT_WATCH_IDLE_TIMEOUT_MS;
  assertNumber(operator, 'config.idleTimeoutMs', idleTimeoutMs, 1, false);

  const b = config.backoff ?? {};
  if (b === null || typeof b !== 'object') {
    throw new InvalidArgumentError(operator, 'config.backoff', b, 'must be an object or undefined');
  }
  const backoff: WatcherBackoffConfig = { ...DEFAULT_WATCHER_BACKOFF, ...b };
  assertNumber(operator, 'config.backoff.initialMs', backoff.initialMs, 1, false);
  assertNumber(operator, 'config.backoff.maxMs', backoff.maxMs, backoff.initialMs, false, ' (initialMs)');
  assertNumber(operator, 'config.backoff.factor', backoff.factor, 1, false);
  assertNumber(operator, 'config.backoff.resetAfterMs', backoff.resetAfterMs, 0, false);
  if (typeof backoff.jitter !== 'number' || !(backoff.jitter >= 0 && backoff.jitter <= 1)) {
    throw new InvalidArgumentError(
      operator,
      'config.backoff.jitter',
      backoff.jitter,
      'must be a number in [0, 1]',
    );
  }

  const random = config.random ?? Math.random;
  if (typeof random !== 'function') {
    throw new InvalidArgumentError(operator, 'config.random', random, 'must be a function returning [0, 1)');
  }
  if (config.resourceVersionStart !== undefined && config.resourceVersionStart !== 'list') {
    throw new InvalidArgumentError(
      operator,
      'config.resourceVersionStart',
      config.resourceVersionStart,
      "must be 'list' or be left out (watch-cache starts are not supported)",
    );
  }
  if (config.health !== undefined && typeof config.health !== 'function') {
    throw new InvalidArgumentError(
      operator,
      'config.health',
      config.health,
      'must be a function or undefined',
    );
  }
  const recovery = config.recovery as Partial<ServerRecovery> | null | undefined;
  if (
    recovery !== undefined &&
    (recovery === null ||
      typeof recovery !== 'object' ||
      typeof recovery.succeeded !== 'function' ||
      typeof recovery.waitForRecovery !== 'function')
  ) {
    throw new InvalidArgumentError(
      operator,
      'config.recovery',
      recovery,
      'must be a ServerRecovery (new ServerRecovery({ probe })) or undefined',
    );
  }
  if (config.streamingLists !== undefined && typeof config.streamingLists !== 'boolean') {
    throw new InvalidArgumentError(
      operator,
      'config.streamingLists',
      config.streamingLists,
      'must be true (always stream), false (always page) or be left out (stream, fall back to pages)',
    );
  }
  if (config.debug !== undefined && typeof config.debug !== 'function') {
    throw new InvalidArgumentError(operator, 'config.debug', config.debug, 'must be a function or undefined');
  }
  return {
    recovery: config.recovery,
    pageSize,
    timeoutSecondsRange: [range[0], range[1]],
    idleTimeoutMs,
    backoff,
    random,
    health: config.health,
    streamingLists: config.streamingLists,
    debug: config.debug,
  };
}
