/**
 * Event bodies (events.k8s.io/v1 and core/v1) as the recorder writes them.
 *
 * @module
 */

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
 * const noteOf = (e: EventsV1Event | CoreV1Event): string => (e.apiVersion === 'events.k8s.io/v1' ? e.note : e.message);
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
 * const regardingOf = (e: EventsV1Event | CoreV1Event): string => (e.apiVersion === 'v1' ? e.involvedObject.name : e.regarding.name);
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
