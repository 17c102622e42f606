/**
 * `recordEvents`: the Event recorder as an operator — Event requests in, API writes out, with
 * per-object aggregation into Event series and a rate limit.
 *
 * @module
 */
import { InvalidArgumentError, TokenBucket } from '@rxkube/core';
import { Observable, asyncScheduler, from } from 'rxjs';
import type { OperatorFunction, SchedulerLike, Subscription } from 'rxjs';

import type { Client } from '../client/client.js';
import type { EventApi, EventInstance, EventRequest } from './event-body.js';
import {
  FIELD_MAX,
  eventBody,
  eventName,
  eventRef,
  identity,
  isApiUnavailable,
  isNotFoundError,
  referenceOf,
  seriesPatch,
} from './event-body.js';

/**
 * What the recorder did; failures are values, the recorder never errors.
 *
 * ## Example
 * ```ts
 * recorder.outcomes$.subscribe((o: EventOutcome) => {
 *   if (o.type === 'failed' || o.type === 'dropped') log.warn({ key: o.key, count: o.count }, `event ${o.type}`);
 * });
 * ```
 */
export type EventOutcome =
  /** An Event was created (`count` > 1 when it was created with a series). */
  | {
      readonly type: 'created';
      readonly key: string;
      readonly api: EventApi;
      readonly name: string;
      readonly count: number;
    }
  /** A series update was written. */
  | {
      readonly type: 'series';
      readonly key: string;
      readonly api: EventApi;
      readonly name: string;
      readonly count: number;
    }
  /** The occurrence was folded into an existing Event's series; it is written later (or was already in flight). */
  | { readonly type: 'aggregated'; readonly key: string; readonly count: number }
  /** events.k8s.io/v1 is not served: from now on core/v1 Events are written. */
  | { readonly type: 'fallback'; readonly api: 'v1'; readonly error: unknown }
  /** A write failed; `count` occurrences of `key` are not on the server. */
  | { readonly type: 'failed'; readonly key: string; readonly count: number; readonly error: unknown }
  /** The entry was evicted (cache full) before `count` occurrences were written; they are lost. */
  | { readonly type: 'dropped'; readonly key: string; readonly count: number };

/**
 * Options of {@link recordEvents}.
 *
 * ## Example
 * ```ts
 * const options: RecordEventsOptions = {
 *   reportingController: 'example.com/widget-controller',
 *   reportingInstance: process.env.POD_NAME ?? 'local',
 *   rateLimit: { qps: 5, burst: 50 },
 * };
 * const recorder = new EventRecorder(client, options);
 * ```
 */
export interface RecordEventsOptions {
  /** Names the controller, e.g. `example.com/widget-controller` (`reportingController`). */
  readonly reportingController: string;
  /** Names this replica, e.g. the Pod name (`reportingInstance`). */
  readonly reportingInstance: string;
  /** Occurrences of one (object, type, reason, action) within this many ms of the last join one Event; default 360 000 (6 min, client-go). */
  readonly windowMs?: number;
  /** A series update is written at most once per this many ms per Event (the first at once); default 30 000. */
  readonly seriesIntervalMs?: number;
  /** Event writes (creates and series updates) per second, with a burst; default 1 / 25. */
  readonly rateLimit?: { readonly qps?: number; readonly burst?: number };
  /** Aggregation entries kept (least recently seen evicted); default 4096. */
  readonly maxEntries?: number;
  /** Start with core/v1 (for API servers known not to serve events.k8s.io/v1); default events.k8s.io/v1. */
  readonly api?: EventApi;
}

const OPERATOR = 'recordEvents';

interface Entry extends EventInstance {
  readonly key: string;
  name: string;
  count: number;
  firstAt: number;
  lastAt: number;
  /** Occurrences on the server (0: not created yet). */
  written: number;
  api: EventApi | undefined;
  lastWriteAt: number;
  /** A token was reserved for the next write. */
  reserved: boolean;
  timer: Subscription | undefined;
  inflight: Subscription | undefined;
}

/**
 * Writes Event requests as Kubernetes Events (events.k8s.io/v1, or core/v1 when that API is not
 * served), folding repeats into Event series so a hot loop cannot flood the API server.
 *
 * ## Example
 * ```ts
 * declare const eventRequests$: Observable<EventRequest>;
 * eventRequests$.pipe(
 *   recordEvents(client, { reportingController: 'example.com/widgets', reportingInstance: 'widgets-0' }),
 * ).subscribe((o) => {
 *   if (o.type === 'failed') log.warn({ key: o.key, err: o.error }, 'event not recorded');
 * });
 * ```
 *
 * ## Semantics
 * - Key: the regarding object (uid, else apiVersion/kind/namespace/name) + type + reason + action
 *   (client-go's isomorphic events; the note of the first occurrence is kept).
 * - First occurrence: an Event is created, named `<object name>.<hex time>` in the object's
 *   namespace (`default` for cluster-scoped objects), `eventTime` from the scheduler.
 * - A repeat within `windowMs` of the key's last occurrence: `aggregated`; the Event's `series`
 *   (`{ count, lastObservedTime }`; core/v1: `count`, `lastTimestamp`) is merge-patched — the
 *   first update at once, later ones at most once per `seriesIntervalMs`, each carrying the count
 *   so far. A repeat after the window starts a new Event.
 * - Every write takes a token (`rateLimit`); without one it waits for it. Waiting is bounded by
 *   aggregation: a key has at most one write scheduled or in flight.
 * - events.k8s.io/v1 create answered 404 (not a missing namespace) or refused by discovery
 *   (`ResourceNotFoundError`): `fallback`, then that and all later Events are core/v1.
 * - A failed create forgets the key (the next occurrence tries again); a series update answered
 *   404 (the Event expired on the server) re-creates it; other failures are `failed` outcomes.
 * - complete: pending series updates are sent at once (still waiting for tokens), writes in
 *   flight finish, then complete. error: forwarded at once. unsubscribe: everything cancelled.
 *
 * ## Guarantees
 * At most one write per key in flight; writes per second bounded by `rateLimit` whatever the input rate.
 *
 * ## Memory
 * At most `maxEntries` entries plus those with a write in flight (least recently seen evicted,
 * `dropped` if unwritten; a write in flight is never cancelled by eviction); an entry is
 * released `windowMs` after its last occurrence (swept on each request; no timer per entry except
 * the one scheduled write).
 *
 * @param client creates Events (`client.create`) and merge-patches their series (`client.patch`).
 * @param options reporting names, window, series interval, rate limit, cache size.
 * @param scheduler clock and timers; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously for a bad option.
 */
export function recordEvents(
  client: Pick<Client, 'create' | 'patch'>,
  options: RecordEventsOptions,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<EventRequest, EventOutcome> {
  if (typeof client?.create !== 'function' || typeof client.patch !== 'function') {
    throw new InvalidArgumentError(
      OPERATOR,
      'client',
      client,
      'must be a Client (a KubeClient, or any object with create and patch functions)',
    );
  }
  const controller = options?.reportingController;
  const instance = options?.reportingInstance;
  for (const [arg, v] of [
    ['reportingController', controller],
    ['reportingInstance', instance],
  ] as const) {
    if (typeof v !== 'string' || v === '' || v.length > FIELD_MAX) {
      throw new InvalidArgumentError(
        OPERATOR,
        `options.${arg}`,
        v,
        `must be a non-empty string of at most ${FIELD_MAX} characters`,
      );
    }
  }
  const windowMs = nonNegative('options.windowMs', options.windowMs ?? 360_000);
  const seriesIntervalMs = nonNegative('options.seriesIntervalMs', options.seriesIntervalMs ?? 30_000);
  const maxEntries = options.maxEntries ?? 4096;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new InvalidArgumentError(OPERATOR, 'options.maxEntries', maxEntries, 'must be an integer >= 1');
  }
  const bucketOptions = { qps: options.rateLimit?.qps ?? 1, burst: options.rateLimit?.burst ?? 25 };
  new TokenBucket(bucketOptions); // validates now
  const initialApi = options.api ?? 'events.k8s.io/v1';
  if (initialApi !== 'events.k8s.io/v1' && initialApi !== 'v1') {
    throw new InvalidArgumentError(OPERATOR, 'options.api', initialApi, 'must be "events.k8s.io/v1" or "v1"');
  }

  return (source) =>
    new Observable<EventOutcome>((subscriber) => {
      const bucket = new TokenBucket(bucketOptions);
      const entries = new Map<string, Entry>();
      let api: EventApi = initialApi;
      let seq = 0;
      let completed = false;

      const maybeComplete = (): void => {
        if (!completed) return;
        for (const e of entries.values()) if (e.inflight !== undefined || e.timer !== undefined) return;
        subscriber.complete();
      };

      const release = (entry: Entry, reportDropped: boolean): void => {
        entry.timer?.unsubscribe();
        entry.inflight?.unsubscribe();
        entries.delete(entry.key);
        if (reportDropped && entry.count > entry.written) {
          subscriber.next({ type: 'dropped', key: entry.key, count: entry.count - entry.written });
        }
      };

      const sweep = (now: number): void => {
        for (const entry of entries.values()) {
          if (entry.lastAt + windowMs > now) break;
          if (entry.timer !== undefined || entry.inflight !== undefined) continue;
          entries.delete(entry.key);
        }
      };

      const schedule = (entry: Entry): void => {
        if (entry.timer !== undefined || entry.inflight !== undefined || entry.count <= entry.written) return;
        const now = scheduler.now();
        // create and the first series update at once; later updates at most once per interval;
        // everything at once after the source completed (still rate limited).
        const due =
          entry.written <= 1 || completed ? now : Math.max(now, entry.lastWriteAt + seriesIntervalMs);
        entry.timer = scheduler.schedule(() => {
          entry.timer = undefined;
          fire(entry);
        }, due - now);
      };

      const fire = (entry: Entry): void => {
        if (!entry.reserved) {
          // whole ms (the bucket's float arithmetic would otherwise leak 1e-13 ms into timers)
          const wait = Math.ceil(Math.round(bucket.take(scheduler.now()) * 1000) / 1000);
          entry.reserved = true;
          if (wait > 0) {
            entry.timer = scheduler.schedule(() => {
              entry.timer = undefined;
              fire(entry);
            }, wait);
            return;
          }
        }
        entry.reserved = false;
        write(entry);
      };

      const write = (entry: Entry): void => {
        const count = entry.count;
        const creating = entry.written === 0;
        const writeApi = creating ? api : (entry.api ?? api);
        const request = creating
          ? client.create(eventBody(entry, writeApi, count, controller, instance))
          : client.patch(eventRef(entry, writeApi), {
              type: 'merge',
              body: seriesPatch(entry, writeApi, count),
            });
        entry.inflight = from(request).subscribe({
          error: (error: unknown) => {
            entry.inflight = undefined;
            if (creating && writeApi === 'events.k8s.io/v1' && api === writeApi && isApiUnavailable(error)) {
              api = 'v1';
              subscriber.next({ type: 'fallback', api: 'v1', error });
              write(entry); // the same occurrence, now as core/v1 (the reserved token is reused)
              return;
            }
            if (!creating && isNotFoundError(error)) {
              // The Event expired on the server: start over with a new Event carrying the series so far.
              entry.written = 0;
              entry.name = eventName(entry.regarding.name, scheduler.now(), seq++);
              schedule(entry);
              return;
            }
            subscriber.next({ type: 'failed', key: entry.key, count: count - entry.written, error });
            if (creating) {
              // Forget the key: its next occurrence tries a fresh create.
              if (entries.get(entry.key) === entry) entries.delete(entry.key);
            } else {
              entry.written = count; // the failed increments are reported, not resent forever
              schedule(entry);
            }
            maybeComplete();
          },
          complete: () => {
            entry.inflight = undefined;
            entry.written = count;
            entry.api = writeApi;
            entry.lastWriteAt = scheduler.now();
            subscriber.next({
              type: creating ? 'created' : 'series',
              key: entry.key,
              api: writeApi,
              name: entry.name,
              count,
            });
            schedule(entry);
            maybeComplete();
          },
        });
      };

      const onRequest = (req: EventRequest): void => {
        const now = scheduler.now();
        sweep(now);
        // Inside: EventRecorder.record validated the request at the door (docs/design.md).
        const regarding = referenceOf(req.regarding);
        const key = `${identity(regarding)}|${req.type}|${req.reason}|${req.action}`;
        const existing = entries.get(key);
        if (
          existing !== undefined &&
          (now - existing.lastAt < windowMs ||
            existing.inflight !== undefined ||
            existing.timer !== undefined)
        ) {
          existing.count++;
          existing.lastAt = now;
          entries.delete(key);
          entries.set(key, existing);
          subscriber.next({ type: 'aggregated', key, count: existing.count });
          schedule(existing);
          return;
        }
        if (existing !== undefined) entries.delete(key);
        const entry: Entry = {
          key,
          request: req,
          regarding,
          name: eventName(regarding.name, now, seq++),
          namespace: regarding.namespace ?? 'default',
          count: 1,
          firstAt: now,
          lastAt: now,
          written: 0,
          api: undefined,
          lastWriteAt: now,
          reserved: false,
          timer: undefined,
          inflight: undefined,
        };
        entries.set(key, entry);
        // Evict least recently seen entries, never one with a write in flight (nor the new one).
        for (const e of entries.values()) {
          if (entries.size <= maxEntries) break;
          if (e !== entry && e.inflight === undefined) release(e, true);
        }
        schedule(entry);
      };

      const subscription = source.subscribe({
        next: onRequest,
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          completed = true;
          // Pending series updates are sent now (tokens permitting) instead of after their interval.
          for (const entry of entries.values()) {
            if (entry.timer !== undefined && !entry.reserved) {
              entry.timer.unsubscribe();
              entry.timer = undefined;
              schedule(entry);
            }
          }
          maybeComplete();
        },
      });
      return () => {
        subscription.unsubscribe();
        for (const entry of entries.values()) {
          entry.timer?.unsubscribe();
          entry.inflight?.unsubscribe();
        }
        entries.clear();
      };
    });
}

function nonNegative(argument: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidArgumentError(OPERATOR, argument, value, 'must be a finite number >= 0 (ms)');
  }
  return value;
}
