/**
 * `ServerRecovery`: what the watches of one API server tell each other about it. A watch that
 * fails to connect backs off (0.8 s → 30 s); after an outage each would otherwise wait out its own
 * step, so the last one reconnected up to 30 s after the server was back. Watches waiting on a
 * connection failure register here; the first success of any of them (a list page, a watch line)
 * or of a cheap probe of the server, run while someone waits, ends every registered wait early.
 *
 * What it does not do: retry anything itself, or shorten waits the server asked for (`Retry-After`,
 * 429) or failures a retry cannot fix (400, 401, 403, 404, 410).
 *
 * @module
 */
import type { ObservableInput, SchedulerAction, SchedulerLike, Subscription } from 'rxjs';
import { asyncScheduler, from } from 'rxjs';

import { InvalidArgumentError } from '../internal/invalid-argument.js';

/**
 * Options of a {@link ServerRecovery}.
 *
 * ## Example
 * ```ts
 * const options: ServerRecoveryOptions = {
 *   probe: () => client.transport.request({ method: 'GET', path: '/api', target: { verb: 'get' } }),
 *   probeIntervalMs: 1_000,
 * };
 * ```
 */
export interface ServerRecoveryOptions {
  /**
   * A cheap request to the server that succeeds once it serves again (`GET /api`); run every
   * `probeIntervalMs` while a watch waits on a connection failure, never otherwise. Its value is
   * ignored; an error means "not yet". Without it, only a sibling watch's success ends the waits.
   */
  readonly probe?: () => ObservableInput<unknown>;
  /** Delay between probes; `> 0`. Default {@link DEFAULT_RECOVERY_PROBE_INTERVAL_MS}. */
  readonly probeIntervalMs?: number;
}

/**
 * Default probe interval while a watch waits to reconnect: 1 s. With the waits' spread
 * (`initialMs`, 0.8 s), every watch reconnects within ~2 s of the server serving again.
 *
 * ## Example
 * ```ts
 * declare const probe: () => Promise<unknown>; // a request to the API server
 * new ServerRecovery({ probe, probeIntervalMs: 2 * DEFAULT_RECOVERY_PROBE_INTERVAL_MS });
 * ```
 */
export const DEFAULT_RECOVERY_PROBE_INTERVAL_MS = 1_000;

/**
 * Shared by the watchers of one API server (`WatcherConfig.recovery`; a `WatchRegistry` over a
 * client makes one, probing `GET /api`): ends their connection-backoff waits together once the
 * server answers again.
 *
 * ## Example
 * ```ts
 * declare const secrets: ApiResource;
 * const recovery = new ServerRecovery({ probe: () => client.transport.request({ method: 'GET', path: '/api', target: { verb: 'get' } }) });
 * watcher(client, configMaps, { recovery }).subscribe();
 * watcher(client, secrets, { recovery }).subscribe(); // after an outage both reconnect together
 * ```
 *
 * ## Semantics
 * - `waitForRecovery(cb)` registers a waiting watch; the returned function unregisters it.
 * - `succeeded()` (a request to the server worked) calls every registered callback once and
 *   clears them; it costs one size check when nobody waits.
 * - While anyone waits, `probe()` runs every `probeIntervalMs` (one at a time; a probe still in
 *   flight at the next tick is left to finish); its first success counts as `succeeded()`.
 *
 * ## Memory
 * One callback per waiting watch; none once they reconnect or stop. No timer while nobody waits.
 *
 * @param options the probe and its interval.  @param scheduler time source of the probe timer.
 */
export class ServerRecovery {
  private readonly waiters = new Set<() => void>();
  private readonly probe: (() => ObservableInput<unknown>) | undefined;
  private readonly probeIntervalMs: number;
  private timer: Subscription | undefined;
  private inFlight: Subscription | undefined;

  /** @throws {InvalidArgumentError} for a probe that is not a function or a bad interval. */
  constructor(
    options: ServerRecoveryOptions = {},
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    const { probe, probeIntervalMs = DEFAULT_RECOVERY_PROBE_INTERVAL_MS } = options;
    if (probe !== undefined && typeof probe !== 'function') {
      throw new InvalidArgumentError(
        'ServerRecovery',
        'options.probe',
        probe,
        'must be a function returning an Observable or Promise, or be left out',
      );
    }
    if (typeof probeIntervalMs !== 'number' || !Number.isFinite(probeIntervalMs) || probeIntervalMs <= 0) {
      throw new InvalidArgumentError(
        'ServerRecovery',
        'options.probeIntervalMs',
        probeIntervalMs,
        'must be a number > 0 (ms)',
      );
    }
    this.probe = probe;
    this.probeIntervalMs = probeIntervalMs;
  }

  /** Watches waiting for the server now. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** A request to this server succeeded: every waiting watch retries now. */
  succeeded(): void {
    if (this.waiters.size === 0) return;
    const waiters = [...this.waiters];
    this.waiters.clear();
    this.stopProbing();
    for (const waiter of waiters) waiter();
  }

  /** Registers a watch waiting on a connection failure; returns its unregistration. */
  waitForRecovery(onRecovered: () => void): () => void {
    const waiter = (): void => onRecovered();
    this.waiters.add(waiter);
    this.startProbing();
    return () => {
      this.waiters.delete(waiter);
      if (this.waiters.size === 0) this.stopProbing();
    };
  }

  private startProbing(): void {
    const probe = this.probe;
    if (probe === undefined || this.timer !== undefined) return;
    const interval = this.probeIntervalMs;
    const tick = (): void => {
      if (this.inFlight !== undefined && !this.inFlight.closed) return;
      try {
        this.inFlight = from(probe()).subscribe({
          next: () => this.succeeded(),
          error: () => undefined, // not yet
          complete: () => this.succeeded(),
        });
      } catch {
        // a probe that throws is a failed probe
      }
    };
    this.timer = this.scheduler.schedule(function (this: SchedulerAction<unknown>) {
      // re-scheduling the action keeps one timer for the whole wait
      this.schedule(undefined, interval);
      tick();
    }, interval);
  }

  private stopProbing(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.inFlight?.unsubscribe();
    this.inFlight = undefined;
  }
}
