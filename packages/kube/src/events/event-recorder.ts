/**
 * `EventRecorder`: `record(object, event)` for reconcile code, over the {@link recordEvents}
 * operator.
 *
 * @module
 */
import { Subject, asyncScheduler, share } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';

import type { KubeObject } from '../types.js';
import type { Client } from '../client/client.js';
import type { EventObjectReference } from './event-types.js';
import type { EventRequest } from './event-body.js';
import { validateRequest } from './event-body.js';
import type { EventOutcome, RecordEventsOptions } from './record-events.js';
import { recordEvents } from './record-events.js';

/**
 * Records Kubernetes Events about objects (events.k8s.io/v1, falling back to core/v1), aggregated
 * per object into Event series and rate limited (see {@link recordEvents}).
 *
 * ## Example
 * ```ts
 * const recorder = new EventRecorder(client, {
 *   reportingController: 'example.com/widget-controller',
 *   reportingInstance: process.env.POD_NAME ?? 'local',
 * });
 * recorder.outcomes$.subscribe((o) => o.type === 'failed' && log.warn(o)); // starts it
 * recorder.record(widget, { type: 'Normal', reason: 'Scaled', action: 'Scale', note: 'replicas 1 → 3' });
 * ```
 *
 * ## Semantics
 * - `outcomes$` runs the recorder while subscribed (shared: one run for all subscribers). Requests
 *   recorded while nobody subscribes are lost — subscribe before reconciling.
 * - `record` validates synchronously and throws `InvalidArgumentError` for a bad request (an
 *   unknown type, an empty reason/action, an object without apiVersion/kind/name); it never
 *   waits for the API server.
 * - `complete()` stops intake; writes in flight finish, then `outcomes$` completes.
 * - Notes are readable by anyone who can list Events: never put Secret data, tokens or
 *   credentials in a note (the recorder cannot tell).
 *
 * ## Memory
 * See {@link recordEvents}: at most `maxEntries` aggregation entries, released after `windowMs`.
 */
export class EventRecorder {
  /** What the recorder did, for logs and metrics; subscribing starts it. */
  readonly outcomes$: Observable<EventOutcome>;
  private readonly requests = new Subject<EventRequest>();

  /**
   * @param client creates Events and merge-patches their series (`client.create`, `client.patch`).  @param options see {@link RecordEventsOptions}.
   * @param scheduler clock and timers.
   * @throws {InvalidArgumentError} for a bad option.
   */
  constructor(
    client: Pick<Client, 'create' | 'patch'>,
    options: RecordEventsOptions,
    scheduler: SchedulerLike = asyncScheduler,
  ) {
    this.outcomes$ = this.requests.pipe(recordEvents(client, options, scheduler), share());
  }

  /**
   * Records one occurrence of an Event about `regarding`.
   * @throws {InvalidArgumentError} for a bad request.
   */
  record(regarding: KubeObject | EventObjectReference, event: Omit<EventRequest, 'regarding'>): void {
    const request: EventRequest = { ...event, regarding };
    validateRequest(request);
    this.requests.next(request);
  }

  /** Stops intake; `outcomes$` completes once writes in flight are done. */
  complete(): void {
    this.requests.complete();
  }
}
