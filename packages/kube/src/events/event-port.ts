/**
 * Event bodies (events.k8s.io/v1 and core/v1), the port the recorder writes through, and its
 * adapter to `KubeClient`.
 *
 * @module
 */
import { defer } from 'rxjs';
import type { Observable, ObservableInput } from 'rxjs';

import type { Client } from '../client/client.js';
import type { ObjectRef } from '../types.js';

/**
 * `ObjectReference` of the object an Event is about.
 *
 * ## Example
 * ```ts
 * const ref: EventObjectReference = { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w' };
 * recorder.record(ref, { type: 'Normal', reason: 'Created', action: 'Create', note: 'bucket created' });
 * ```
 */
export interface EventObjectReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly fieldPath?: string;
}

/**
 * An `events.k8s.io/v1` Event.
 *
 * ## Example
 * ```ts
 * const port: EventPort = {
 *   create: (e: EventsV1Event | CoreV1Event) => (e.apiVersion === 'events.k8s.io/v1' ? of(e.note) : of(e.message)),
 *   patch: () => of(undefined),
 * };
 * ```
 */
export interface EventsV1Event {
  readonly apiVersion: 'events.k8s.io/v1';
  readonly kind: 'Event';
  readonly metadata: { readonly name: string; readonly namespace: string };
  /** MicroTime (RFC 3339 with microseconds) of the first occurrence. */
  readonly eventTime: string;
  readonly reportingController: string;
  readonly reportingInstance: string;
  readonly action: string;
  readonly reason: string;
  readonly note: string;
  readonly type: 'Normal' | 'Warning';
  readonly regarding: EventObjectReference;
  readonly related?: EventObjectReference;
  readonly series?: { readonly count: number; readonly lastObservedTime: string };
}

/**
 * A core `v1` Event (the fallback when events.k8s.io/v1 is not served).
 *
 * ## Example
 * ```ts
 * const port: EventPort = {
 *   create: (e: EventsV1Event | CoreV1Event) => (e.apiVersion === 'v1' ? of(e.involvedObject.name) : of(e.regarding.name)),
 *   patch: () => of(undefined),
 * };
 * ```
 */
export interface CoreV1Event {
  readonly apiVersion: 'v1';
  readonly kind: 'Event';
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly involvedObject: EventObjectReference;
  readonly related?: EventObjectReference;
  readonly reason: string;
  readonly message: string;
  readonly type: 'Normal' | 'Warning';
  readonly action: string;
  readonly count: number;
  /** RFC 3339 (seconds). */
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
  readonly source: { readonly component: string };
  readonly reportingComponent: string;
  readonly reportingInstance: string;
}

/**
 * What the Event recorder needs from the API: create an Event, and merge-patch one (series updates).
 *
 * ## Example
 * ```ts
 * const port: EventPort = { create: (e) => cold('-(c|)', { c: e }), patch: (ref, body) => cold('-(p|)', { p: body }) };
 * ```
 */
export interface EventPort {
  /** `POST` the Event (its `apiVersion` says which API); emits anything on success. */
  create(event: EventsV1Event | CoreV1Event): ObservableInput<unknown>;
  /** `PATCH` (`application/merge-patch+json`) the Event named by `ref`; emits anything on success. */
  patch(ref: ObjectRef, body: object): ObservableInput<unknown>;
}

/**
 * An {@link EventPort} over a `KubeClient`, started on subscribe.
 *
 * ## Example
 * ```ts
 * const recorder = new EventRecorder(eventPortFromClient(client), { reportingController: 'example.com/widgets', reportingInstance: pod });
 * ```
 */
export function eventPortFromClient(client: Client): EventPort {
  return {
    create: (event): Observable<unknown> => defer(() => client.create(event)),
    patch: (ref, body): Observable<unknown> => defer(() => client.patch(ref, { type: 'merge', body })),
  };
}
