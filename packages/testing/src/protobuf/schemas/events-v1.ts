/**
 * Protobuf messages of events.k8s.io/v1 Event: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** events.k8s.io/v1 Event. */
export const EVENTS_V1: MessageDeclarations = {
  'events.v1.Event': `
    metadata 1 meta.v1.ObjectMeta
    eventTime 2 MicroTime
    series 3 *events.v1.EventSeries omitempty
    reportingController 4 string omitempty
    reportingInstance 5 string omitempty
    action 6 string omitempty
    reason 7 string omitempty
    regarding 8 core.v1.ObjectReference
    related 9 *core.v1.ObjectReference omitempty
    note 10 string omitempty
    type 11 string omitempty
    deprecatedSource 12 core.v1.EventSource
    deprecatedFirstTimestamp 13 Time
    deprecatedLastTimestamp 14 Time
    deprecatedCount 15 int32 omitempty`,
  'events.v1.EventList': `
    metadata 1 meta.v1.ListMeta
    items 2 []events.v1.Event`,
  'events.v1.EventSeries': `
    count 1 int32
    lastObservedTime 2 MicroTime`,
};
