/**
 * One Kubernetes Event as the recorder asks for it and writes it: the request (`EventRequest`) and
 * its checks, the reference to the object it is about, its name, and its body and series update in
 * events.k8s.io/v1 or core/v1 (client-go's shapes). The aggregation and rate limit are in
 * `record-events.ts`.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import type { KubeObject, ObjectRef } from '../types.js';
import type { CoreV1Event, EventObjectReference, EventsV1Event } from './event-types.js';

const NOTE_MAX_BYTES = 1024;
/** The longest reason, action or reporting name the API server accepts. */
export const FIELD_MAX = 128;

/**
 * One occurrence to record.
 *
 * ## Example
 * ```ts
 * const { regarding, ...event }: EventRequest = { regarding: widget, type: 'Warning', reason: 'CleanupFailed', action: 'Cleanup', note: 'bucket busy' };
 * recorder.record(regarding, event);
 * ```
 */
export interface EventRequest {
  /** The object the Event is about: an object (from the Store) or a reference. */
  readonly regarding: KubeObject | EventObjectReference;
  readonly type: 'Normal' | 'Warning';
  /** CamelCase, why the action was taken (`ScalingReplicaSet`); ≤ 128 characters. */
  readonly reason: string;
  /** CamelCase, what was done or failed (`Scale`, `Cleanup`); ≤ 128 characters. */
  readonly action: string;
  /** Human-readable; cut to 1024 bytes. Never put Secret data or credentials here: Events are widely readable. */
  readonly note: string;
  /** A second object involved (e.g. the child that failed). */
  readonly related?: EventObjectReference;
}

/**
 * Which Events API an Event is written with.
 *
 * ## Example
 * ```ts
 * // an API server known not to serve events.k8s.io/v1: write core/v1 Events from the start
 * const api: EventApi = 'v1';
 * new EventRecorder(client, { reportingController: 'example.com/widgets', reportingInstance: 'w-0', api });
 * ```
 */
export type EventApi = 'events.k8s.io/v1' | 'v1';

/** One Event being recorded: its request, the object it is about, where it lives, when it happened. */
export interface EventInstance {
  readonly request: EventRequest;
  readonly regarding: EventObjectReference;
  readonly name: string;
  readonly namespace: string;
  readonly firstAt: number;
  readonly lastAt: number;
}

/**
 * Throws `InvalidArgumentError` naming what is wrong with an Event request: the door check of
 * `EventRecorder.record`, which builds the request object itself.
 */
export function validateRequest(req: EventRequest): void {
  if (req.type !== 'Normal' && req.type !== 'Warning') {
    throw new InvalidArgumentError('recordEvents', 'request.type', req.type, 'must be "Normal" or "Warning"');
  }
  for (const field of ['reason', 'action'] as const) {
    const v = req[field];
    if (typeof v !== 'string' || v === '' || v.length > FIELD_MAX) {
      throw new InvalidArgumentError(
        'recordEvents',
        `request.${field}`,
        v,
        `must be a non-empty CamelCase string of at most ${FIELD_MAX} characters`,
      );
    }
  }
  if (typeof req.note !== 'string') {
    throw new InvalidArgumentError('recordEvents', 'request.note', req.note, 'must be a string');
  }
  referenceOf(req.regarding);
}

export function referenceOf(regarding: KubeObject | EventObjectReference): EventObjectReference {
  const r = regarding as Partial<KubeObject> & Partial<EventObjectReference>;
  const meta = r.metadata;
  const ref: EventObjectReference =
    meta !== undefined
      ? {
          apiVersion: r.apiVersion ?? '',
          kind: r.kind ?? '',
          name: meta.name ?? '',
          ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
          ...(meta.uid !== undefined ? { uid: meta.uid } : {}),
          ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}),
        }
      : (regarding as EventObjectReference);
  if (!ref.apiVersion || !ref.kind || !ref.name) {
    throw new InvalidArgumentError(
      'recordEvents',
      'request.regarding',
      regarding,
      'must name an object: apiVersion, kind and name (objects from a watch or the Store carry them)',
    );
  }
  return ref;
}

export function identity(ref: EventObjectReference): string {
  return ref.uid ?? `${ref.apiVersion}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}

/** `<name>.<hex>`, client-go style (`%v.%x` of UnixNano), unique per recorder via `seq`. */
export function eventName(name: string, nowMs: number, seq: number): string {
  const nanos = BigInt(Math.floor(nowMs)) * 1_000_000n + BigInt(seq % 1_000_000);
  return `${name}.${nanos.toString(16)}`;
}

/** metav1.MicroTime: RFC 3339 with 6 fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** Cuts `note` to at most 1024 UTF-8 bytes without splitting a character. */
export function truncateNote(note: string): string {
  if (Buffer.byteLength(note, 'utf8') <= NOTE_MAX_BYTES) return note;
  let out = '';
  let bytes = 0;
  const suffix = '…';
  const budget = NOTE_MAX_BYTES - Buffer.byteLength(suffix, 'utf8');
  for (const ch of note) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > budget) break;
    out += ch;
    bytes += n;
  }
  return out + suffix;
}

export function eventBody(
  entry: EventInstance,
  api: EventApi,
  count: number,
  controller: string,
  instance: string,
): EventsV1Event | CoreV1Event {
  const { request: req, regarding } = entry;
  const metadata = { name: entry.name, namespace: entry.namespace };
  const related = req.related !== undefined ? { related: req.related } : {};
  if (api === 'events.k8s.io/v1') {
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata,
      eventTime: microTime(entry.firstAt),
      reportingController: controller,
      reportingInstance: instance,
      action: req.action,
      reason: req.reason,
      note: truncateNote(req.note),
      type: req.type,
      regarding,
      ...related,
      ...(count > 1 ? { series: { count, lastObservedTime: microTime(entry.lastAt) } } : {}),
    };
  }
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    involvedObject: regarding,
    ...related,
    reason: req.reason,
    message: truncateNote(req.note),
    type: req.type,
    action: req.action,
    count,
    firstTimestamp: rfc3339(entry.firstAt),
    lastTimestamp: rfc3339(entry.lastAt),
    source: { component: controller },
    reportingComponent: controller,
    reportingInstance: instance,
  };
}

export function eventRef(entry: EventInstance, api: EventApi): ObjectRef {
  return { apiVersion: api, kind: 'Event', namespace: entry.namespace, name: entry.name };
}

export function seriesPatch(entry: EventInstance, api: EventApi, count: number): object {
  return api === 'events.k8s.io/v1'
    ? { series: { count, lastObservedTime: microTime(entry.lastAt) } }
    : { count, lastTimestamp: rfc3339(entry.lastAt) };
}

export function isNotFoundError(error: unknown): boolean {
  return error !== null && typeof error === 'object' && (error as { code?: unknown }).code === 404;
}

/** events.k8s.io/v1 not served: discovery refused the kind, or the create got a 404 not about the namespace. */
export function isApiUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  if ((error as { _tag?: unknown })._tag === 'ResourceNotFoundError') return true;
  const details = (error as { details?: { kind?: unknown } }).details;
  return isNotFoundError(error) && details?.kind !== 'namespaces';
}
