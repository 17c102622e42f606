/**
 * The faults the storm injects, applied to the embedded server's fault injection — the same code
 * whether the server runs in this thread or in a worker.
 *
 * @module
 */
import type { ApiServer, FaultCounts } from '@rxkube/testing';

/** Every kind of fault the storm injects. */
export const FAULT_KINDS = [
  'drop',
  'stall',
  'cut',
  'malformed',
  'expire',
  'compact',
  'listError',
  'watchError',
  'listThrottle',
  'watchThrottle',
  'delay',
  'restart',
] as const;

/** A kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * How often each kind is picked at random. Restarts are not drawn: each drops every connection, so
 * the storm schedules a few at even intervals instead ({@link restartsFor}).
 */
export const FAULT_WEIGHTS: Readonly<Record<Exclude<FaultKind, 'restart'>, number>> = {
  drop: 10,
  stall: 6,
  cut: 10,
  malformed: 10,
  expire: 10,
  compact: 6,
  listError: 10,
  watchError: 10,
  listThrottle: 8,
  watchThrottle: 8,
  delay: 10,
};

/** The kinds that act on open watches: pointless while none is open. */
export const WATCH_FAULTS: ReadonlySet<FaultKind> = new Set(['drop', 'stall', 'cut', 'malformed']);

/** The order of a burst's faults: those needing open watches first, the drop last among them. */
export const BURST_ORDER: readonly FaultKind[] = [
  'malformed',
  'cut',
  'stall',
  'drop',
  'expire',
  'watchError',
  'watchThrottle',
  'listError',
  'listThrottle',
  'delay',
  'compact',
  'restart',
];

/** The weights of the kinds that do not need an open watch. */
export const OTHER_WEIGHTS = Object.fromEntries(
  Object.entries(FAULT_WEIGHTS).filter(([k]) => !WATCH_FAULTS.has(k as FaultKind)),
) as Readonly<Record<Exclude<FaultKind, 'restart' | 'drop' | 'stall' | 'cut' | 'malformed'>, number>>;

/** Server restarts in a storm of `faults` faults: one per 2,000, at least one. */
export function restartsFor(faults: number): number {
  return Math.max(1, Math.round(faults / 2_000));
}

const LIST = /^\/api(s\/[^/]+)?\/v1\/(namespaces\/[^/]+\/)?(configmaps|secrets)(\?(?!.*watch=)|$)/;
const WATCH = /[?&]watch=(true|1)/;

/** Injects one fault of `kind` into `server`; `n` picks among a kind's variants. */
export async function inject(server: ApiServer, kind: FaultKind, n: number): Promise<void> {
  const f = server.faults;
  switch (kind) {
    case 'drop':
      f.dropWatches();
      return;
    case 'stall':
      f.stallWatches();
      return;
    case 'cut':
      f.cutWatchesMidLine();
      return;
    case 'malformed': {
      const malformed = (f as unknown as { sendMalformedLine?: () => unknown }).sendMalformedLine;
      if (typeof malformed === 'function') malformed.call(f);
      else f.cutWatchesMidLine();
      return;
    }
    case 'expire':
      f.expireNextWatch(1);
      return;
    case 'compact':
      f.compact();
      return;
    case 'listError':
      f.failNext({ status: n % 2 === 0 ? 500 : 503, method: 'GET', path: LIST, count: 1 + (n % 3) });
      return;
    case 'watchError':
      f.failNext({ status: n % 2 === 0 ? 500 : 503, method: 'GET', path: WATCH, count: 1 + (n % 3) });
      return;
    case 'listThrottle':
      f.failNext({ status: 429, method: 'GET', path: LIST, count: 1 + (n % 2), retryAfterSeconds: 1 });
      return;
    case 'watchThrottle':
      f.failNext({ status: 429, method: 'GET', path: WATCH, count: 1 + (n % 2), retryAfterSeconds: 1 });
      return;
    case 'delay':
      f.delay({ ms: 5 + (n % 50), method: 'GET', count: 1 + (n % 5) });
      return;
    case 'restart':
      await server.restart();
      return;
  }
}

/** The counters of what happened, as a plain object. */
export function countsOf(server: ApiServer): FaultCounts {
  return { ...server.faults.counts };
}
