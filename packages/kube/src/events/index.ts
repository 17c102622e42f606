/**
 * Kubernetes Events: `EventRecorder`, writing through a `Client` (events.k8s.io/v1, core/v1
 * fallback).
 *
 * The public names of `events/`: the entry `@rxkube/kube/events` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/events
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export type { EventOutcome, RecordEventsOptions } from './record-events.js';
export type { EventApi, EventRequest } from './event-body.js';
export { EventRecorder } from './event-recorder.js';
export type { CoreV1Event, EventObjectReference, EventsV1Event } from './event-types.js';
