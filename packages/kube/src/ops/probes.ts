/**
 * Health probes over node:http, answering like kube-apiserver: `/healthz` (alias `/livez`: the
 * process answers and its event loop is not blocked), `/readyz` (every readiness check passes:
 * caches synced, watches not refused with 400/401/403/404) and, given a registry, `/metrics`. Checks
 * are plain functions read at request time; {@link WatchHealthChecks} and {@link storeSyncedCheck}
 * build the usual ones. It does not decide what to do when unready — the kubelet does.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Registry } from 'prom-client';
import { InvalidArgumentError } from '@rxkube/core';

import type { WatcherHealth } from '../watcher/health.js';
import { metricsHandler, resourceLabel } from './metrics.js';
import { watchTargetKey } from '../reflector/watch-registry.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { WatchProgress } from './watch-progress.js';
import { observeProgress, watchProgress } from './watch-progress.js';
import { watchRefusal } from './watch-failure-log.js';

// The builtin through process.getBuiltinModule, not an ESM import: importing node:http as an ES
// module runs every lazy getter of its exports, which loads Node's bundled undici (~35 ms at start).
const { createServer } = process.getBuiltinModule('node:http');

/**
 * What a check reports: ok, or why not (shown in the probe body).
 *
 * ## Example
 * ```ts
 * const check = (): ProbeCheckResult => (store.ready ? { ok: true } : { ok: false, reason: 'widgets not listed yet' });
 * ```
 */
export type ProbeCheckResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * A named check, run on every probe request; must be cheap and must not throw.
 *
 * ## Example
 * ```ts
 * declare const backlog: number; // keys waiting
 * const queue: ProbeCheck = { name: 'queue', check: () => (backlog < 1_000 ? { ok: true } : { ok: false, reason: `${backlog} queued` }) };
 * await startProbeServer({ port: 8081, checks: [queue] });
 * ```
 */
export interface ProbeCheck {
  /** Shown as `[+]name ok` / `[-]name failed: reason`; letters, digits, `-`, `_`, `.`. */
  readonly name: string;
  readonly check: () => ProbeCheckResult;
}

/**
 * Event-loop blocking detection of `/healthz`.
 *
 * ## Example
 * ```ts
 * const eventLoop: EventLoopCheckOptions = { maxLagMs: 2_000 };
 * await startProbeServer({ port: 8081, eventLoop });
 * ```
 */
export interface EventLoopCheckOptions {
  /** `/healthz` fails when the loop was blocked longer than this; default {@link DEFAULT_MAX_EVENT_LOOP_LAG_MS}. */
  readonly maxLagMs?: number;
  /**
   * The longest event-loop delay (ms) since the previous call. Default: `perf_hooks`'
   * `monitorEventLoopDelay` (20 ms resolution), its maximum read and reset per probe. Inject in tests.
   */
  readonly lagMs?: () => number;
}

/**
 * Options of {@link startProbeServer}.
 *
 * ## Example
 * ```ts
 * const options: ProbeServerOptions = { port: 8081, checks: [storeSyncedCheck('widgets-cache', store)], registry: metrics.registry };
 * const server = await startProbeServer(options);
 * ```
 */
export interface ProbeServerOptions {
  /** TCP port; `0` picks a free one (read it from the result). */
  readonly port: number;
  /** Interface to bind; default all (`::`/`0.0.0.0`), as a kubelet probe needs. */
  readonly host?: string;
  /** Readiness checks of `/readyz`. */
  readonly checks?: readonly ProbeCheck[];
  /** Extra liveness checks of `/healthz` (besides the event loop). Keep them about this process only. */
  readonly liveness?: readonly ProbeCheck[];
  /** Event-loop check options, or `false` to leave it out. */
  readonly eventLoop?: EventLoopCheckOptions | false;
  /** When given, `/metrics` serves it (see `metricsHandler`). */
  readonly registry?: Registry;
}

/**
 * A running probe server.
 *
 * ## Example
 * ```ts
 * const server: ProbeServer = await startProbeServer({ port: 0 });
 * await fetch(`http://127.0.0.1:${server.port}/healthz`); // 200 ok
 * await server.close();
 * ```
 */
export interface ProbeServer {
  /** The bound port (the real one when `port: 0` was asked). */
  readonly port: number;
  /** Stops listening, drops open connections and the event-loop monitor. */
  close(): Promise<void>;
}

/**
 * Default event-loop lag above which `/healthz` fails: 5 s.
 *
 * ## Example
 * ```ts
 * await startProbeServer({ port: 8081, eventLoop: { maxLagMs: 2 * DEFAULT_MAX_EVENT_LOOP_LAG_MS } }); // tolerate 10 s
 * ```
 */
export const DEFAULT_MAX_EVENT_LOOP_LAG_MS = 5_000;

const OPERATOR = 'startProbeServer';
const CHECK_NAME = /^[A-Za-z0-9._-]+$/;

function assertChecks(argument: string, checks: unknown): readonly ProbeCheck[] {
  if (checks === undefined) return [];
  if (!Array.isArray(checks)) {
    throw new InvalidArgumentError(OPERATOR, argument, checks, 'must be an array of { name, check }');
  }
  const names = new Set<string>();
  for (const [i, c] of (checks as unknown[]).entries()) {
    const check = c as Partial<ProbeCheck> | null;
    if (
      check === null ||
      typeof check !== 'object' ||
      typeof check.name !== 'string' ||
      !CHECK_NAME.test(check.name) ||
      typeof check.check !== 'function'
    ) {
      throw new InvalidArgumentError(
        OPERATOR,
        `${argument}[${i}]`,
        c,
        'must be { name, check } with a name of letters, digits, ".", "_" or "-" and a check function',
      );
    }
    if (names.has(check.name)) {
      throw new InvalidArgumentError(OPERATOR, `${argument}[${i}].name`, check.name, 'must be unique');
    }
    names.add(check.name);
  }
  return checks as readonly ProbeCheck[];
}

/**
 * A readiness check that passes once `store.ready` is true (its first list completed).
 *
 * ## Example
 * ```ts
 * startProbeServer({ port: 8081, checks: [storeSyncedCheck('widgets-cache', store)] });
 * ```
 */
export function storeSyncedCheck(name: string, store: { readonly ready: boolean }): ProbeCheck {
  return {
    name,
    check: () =>
      store.ready
        ? { ok: true }
        : { ok: false, reason: `cache ${name} is not synced yet: its first list has not completed` },
  };
}

interface WatchEntry {
  readonly target: WatchTarget;
  /** The refusal in force, when the last failure was 401/403/404 and no progress followed. */
  refused: { readonly at: number; readonly text: string } | undefined;
  /** Progress since the last failure: the failure log's test (an open request is not recovery). */
  readonly progress: WatchProgress;
}

function describeTarget(target: WatchTarget): string {
  const where = target.namespace === undefined ? 'all namespaces' : `namespace ${target.namespace}`;
  const selector = target.labelSelector === undefined ? '' : ` (labels ${target.labelSelector})`;
  const fields = target.fieldSelector === undefined ? '' : ` (fields ${target.fieldSelector})`;
  return `${resourceLabel(target.resource)} in ${where}${selector}${fields}`;
}

function refusalOf(health: WatcherHealth): { at: number; text: string } | undefined {
  const failure = health.lastError;
  if (failure === undefined) return undefined;
  const cause = failure.cause as { readonly _tag?: unknown } | null | undefined;
  const notServed = typeof cause === 'object' && cause !== null && cause._tag === 'ResourceNotFoundError';
  if (failure.code === 403) {
    // the same verbs as the log line: a watch needs list and watch, whichever was refused first
    const advice = watchRefusal(failure)?.advice ?? 'grant "list" and "watch" on the resource';
    const status = (cause as { readonly status?: { readonly message?: unknown } } | null | undefined)?.status;
    const server = typeof status?.message === 'string' ? status.message : failure.message;
    return { at: failure.at, text: `403 Forbidden — ${advice} (server: ${server})` };
  }
  if (failure.code === 401) {
    return { at: failure.at, text: `401 Unauthorized — the credentials were refused: ${failure.message}` };
  }
  if (failure.code === 404 || notServed) {
    return { at: failure.at, text: `404 Not Found — is the CRD installed? ${failure.message}` };
  }
  if (failure.kind === 'invalid') {
    return {
      at: failure.at,
      text: `400 BadRequest — the server refuses this watch as invalid, retrying will not fix it (check its selectors): ${failure.message}`,
    };
  }
  return undefined;
}

/**
 * Readiness from watch health: unready while a watch's last failure is a refusal the watcher
 * cannot fix by retrying — 403 (RBAC), 401 (credentials), 404 or a kind the server does not
 * serve (CRD missing), 400 (an invalid request: a selector the server refuses) — naming each such resource and the server's reason. A watch counts as
 * recovered once a later snapshot shows progress — a line after the failure, a completed list, or
 * a watch request that ended without failing (RBAC granted, CRD installed); an open request alone
 * is not recovery, since a refused one is open until its 403 arrives. Transient failures (network, 5xx, 429, 410, stalls) never make it unready.
 *
 * ## Example
 * ```ts
 * const watches = new WatchHealthChecks();
 * const registry = new WatchRegistry(client, { health: watches.record });
 * await startProbeServer({ port: 8081, checks: [watches.check] });
 * ```
 *
 * ## Memory
 * One entry per watch target seen; {@link forget} drops one.
 */
export class WatchHealthChecks {
  private readonly entries = new Map<string, WatchEntry>();

  /**
   * @param options `notServed: false` leaves kinds the server does not serve out of this check
   *   (the Manager names them in its own `kinds` check, with the controllers that wait).
   */
  constructor(private readonly options: { readonly notServed?: boolean } = {}) {}

  /** Folds a health snapshot in; a bound function, usable as a `WatchRegistry`'s `health` option. */
  readonly record = (target: WatchTarget, health: WatcherHealth): void => {
    const id = watchTargetKey(target);
    let entry = this.entries.get(id);
    if (entry === undefined) {
      entry = { target, refused: undefined, progress: watchProgress() };
      this.entries.set(id, entry);
    }
    const { failure, progressed } = observeProgress(entry.progress, health);
    // a new failure: a refusal replaces the reason; any other failure leaves a refusal in force
    if (failure !== undefined && failure.kind === 'not-served' && this.options.notServed === false) {
      entry.refused = undefined;
    } else if (failure !== undefined) entry.refused = refusalOf(health) ?? entry.refused;
    else if (progressed) entry.refused = undefined;
  };

  /** Forgets a target (its watch stopped). */
  forget(target: WatchTarget): void {
    this.entries.delete(watchTargetKey(target));
  }

  /** The refused watches now, one line each. */
  failures(): string[] {
    const lines: string[] = [];
    for (const entry of this.entries.values()) {
      if (entry.refused !== undefined) lines.push(`${describeTarget(entry.target)}: ${entry.refused.text}`);
    }
    return lines;
  }

  /** The readiness check named `watches`. */
  readonly check: ProbeCheck = {
    name: 'watches',
    check: () => {
      const failures = this.failures();
      return failures.length === 0 ? { ok: true } : { ok: false, reason: failures.join('; ') };
    },
  };
}

function run(check: ProbeCheck): ProbeCheckResult {
  try {
    return check.check();
  } catch (error) {
    return {
      ok: false,
      reason: `the check threw: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function answer(
  res: ServerResponse,
  probe: string,
  checks: readonly ProbeCheck[],
  verbose: boolean,
  head: boolean,
) {
  const results = checks.map((c) => ({ name: c.name, result: run(c) }));
  const ok = results.every((r) => r.result.ok);
  const lines = results.map(({ name, result }) =>
    result.ok ? `[+]${name} ok` : `[-]${name} failed: ${result.reason.replace(/\s*\n\s*/g, ' ')}`,
  );
  const shown = ok ? lines : lines.filter((l) => verbose || l.startsWith('[-]'));
  const body =
    ok && !verbose ? 'ok' : [...shown, `${probe} check ${ok ? 'passed' : 'failed'}`].join('\n') + '\n';
  res.writeHead(ok ? 200 : 500, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
  res.end(head ? undefined : body);
}

/**
 * Starts the probe HTTP server: `/healthz` and `/livez` (event loop + `liveness` checks),
 * `/readyz` (`checks`), `/metrics` (when `registry` is given). Add `?verbose` for every check's
 * line (kube-apiserver's format: `[+]name ok`, `[-]name failed: reason`, then `… check passed`);
 * a failing probe always answers 500 with the failing checks and their reasons.
 *
 * ## Example
 * ```ts
 * const watches = new WatchHealthChecks();
 * const probes = await startProbeServer({
 *   port: 8081,
 *   checks: [storeSyncedCheck('widgets', store), watches.check],
 *   registry: metrics.registry,
 * });
 * process.on('SIGTERM', () => void probes.close());
 * ```
 *
 * @throws {InvalidArgumentError} (as a rejection) for a bad port, host or check list.
 */
export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer> {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError(OPERATOR, 'options', options, 'must be an object with at least a port');
  }
  const { port, host, registry } = options;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.port',
      port,
      'must be an integer in [0, 65535] (0: any free port)',
    );
  }
  if (host !== undefined && (typeof host !== 'string' || host === '')) {
    throw new InvalidArgumentError(OPERATOR, 'options.host', host, 'must be a non-empty string');
  }
  const readiness = assertChecks('options.checks', options.checks);
  const liveness = [...assertChecks('options.liveness', options.liveness)];
  const metrics = registry === undefined ? undefined : metricsHandler(registry);

  let stopMonitor = (): void => undefined;
  if (options.eventLoop !== false) {
    const { maxLagMs = DEFAULT_MAX_EVENT_LOOP_LAG_MS, lagMs } = options.eventLoop ?? {};
    if (typeof maxLagMs !== 'number' || !Number.isFinite(maxLagMs) || maxLagMs <= 0) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.eventLoop.maxLagMs',
        maxLagMs,
        'must be a number > 0 (ms)',
      );
    }
    let read = lagMs;
    if (read === undefined) {
      // node:perf_hooks loads here, when a probe server starts, not when the root entry is imported
      const { monitorEventLoopDelay } = process.getBuiltinModule('node:perf_hooks');
      const histogram = monitorEventLoopDelay({ resolution: 20 });
      histogram.enable();
      stopMonitor = () => histogram.disable();
      read = () => {
        const max = histogram.max / 1e6;
        histogram.reset();
        return max;
      };
    } else if (typeof read !== 'function') {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.eventLoop.lagMs',
        read,
        'must be a function returning ms',
      );
    }
    const lag = read;
    liveness.unshift({
      name: 'event-loop',
      check: () => {
        const ms = lag();
        return ms <= maxLagMs
          ? { ok: true }
          : {
              ok: false,
              reason: `the event loop was blocked for ${Math.round(ms)} ms (limit ${maxLagMs} ms): a synchronous task is starving timers and I/O`,
            };
      },
    });
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://probe');
    const head = req.method === 'HEAD';
    if (url.pathname === '/metrics' && metrics !== undefined) {
      metrics(req, res);
      return;
    }
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('method not allowed\n');
      return;
    }
    const verbose = url.searchParams.has('verbose');
    switch (url.pathname) {
      case '/healthz':
      case '/livez':
        answer(res, url.pathname.slice(1), liveness, verbose, head);
        return;
      case '/readyz':
        answer(res, 'readyz', readiness, verbose, head);
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(
          `not found: ${url.pathname} (probes: /healthz, /livez, /readyz${metrics ? ', /metrics' : ''})\n`,
        );
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      stopMonitor();
      reject(error);
    });
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve, reject) => {
        stopMonitor();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
