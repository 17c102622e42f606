/**
 * Event validation as kube-apiserver v1.24 runs it (`pkg/apis/core/validation/events.go`), on the
 * core form every Event is stored in: the legacy checks both APIs get (namespace agreement; for
 * Events with an `eventTime`: reportingController, reportingInstance, action, reason, note sizes),
 * and for `events.k8s.io/v1` the strict ones (series, eventTime, type, deprecated fields unset) and,
 * on update, the immutable fields. Field paths use the core names (`message`, `involvedObject`,
 * `count`…), as the real server reports them whichever API was called.
 *
 * @module
 */
import { qualifiedNameErrors } from '@rxkube/wire';

import type { StatusCause } from '../status.js';
import type { KObj } from '../store/object.js';
import { isObject } from '../store/object.js';
import { goQuote, invalidCause } from './names.js';

/** `ReportingInstanceLengthLimit`, `ActionLengthLimit`, `ReasonLengthLimit`. */
const SHORT_LIMIT = 128;
/** `NoteLengthLimit`. */
const NOTE_LIMIT = 1024;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const set = (v: unknown): boolean => v !== undefined && v !== null && v !== '';

function required(field: string): StatusCause {
  return { reason: 'FieldValueRequired', message: 'Required value', field };
}

/** `field.Invalid(path, "", detail)`: these checks show an empty value, whatever was sent. */
function invalidEmpty(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: "": ${detail}`, field };
}

/** `legacyValidateEvent`: what every Event create and update must pass, in both APIs. */
export function legacyEventCauses(e: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  const ns = e.metadata.namespace ?? '';
  const io = isObject(e['involvedObject']) ? e['involvedObject'] : {};
  const ioNs = str(io['namespace']);
  if (!set(e['eventTime'])) {
    const mismatch = ioNs === '' ? ns !== '' && ns !== 'default' : ns !== ioNs;
    if (mismatch)
      causes.push(invalidCause('involvedObject.namespace', ioNs, 'does not match event.namespace'));
    return causes;
  }
  if (ioNs === '' && ns !== 'default' && ns !== 'kube-system')
    causes.push(invalidCause('involvedObject.namespace', ioNs, 'does not match event.namespace'));
  const controller = str(e['reportingComponent']);
  if (controller === '') causes.push(required('reportingController'));
  for (const msg of qualifiedNameErrors(controller))
    causes.push(invalidCause('reportingController', controller, msg));
  const instance = str(e['reportingInstance']);
  if (instance === '') causes.push(required('reportingInstance'));
  if (instance.length > SHORT_LIMIT)
    causes.push(invalidEmpty('reportingInstance', `can have at most ${String(SHORT_LIMIT)} characters`));
  const action = str(e['action']);
  if (action === '') causes.push(required('action'));
  if (action.length > SHORT_LIMIT)
    causes.push(invalidEmpty('action', `can have at most ${String(SHORT_LIMIT)} characters`));
  const reason = str(e['reason']);
  if (reason === '') causes.push(required('reason'));
  if (reason.length > SHORT_LIMIT)
    causes.push(invalidEmpty('reason', `can have at most ${String(SHORT_LIMIT)} characters`));
  if (str(e['message']).length > NOTE_LIMIT)
    causes.push(invalidEmpty('message', `can have at most ${String(NOTE_LIMIT)} characters`));
  return causes;
}

function seriesCauses(e: KObj): StatusCause[] {
  const series = e['series'];
  if (!isObject(series)) return [];
  const causes: StatusCause[] = [];
  const count = typeof series['count'] === 'number' ? series['count'] : 0;
  if (count < 2) causes.push(invalidEmpty('series.count', 'should be at least 2'));
  if (!set(series['lastObservedTime'])) causes.push(required('series.lastObservedTime'));
  return causes;
}

/** The create rules of `events.k8s.io/v1` after the legacy ones (metadata is validated apart). */
export function strictEventCauses(e: KObj): StatusCause[] {
  const causes = seriesCauses(e);
  if (!set(e['eventTime'])) causes.push(required('eventTime'));
  const type = str(e['type']);
  if (type !== 'Normal' && type !== 'Warning')
    causes.push(invalidEmpty('type', `has invalid value: ${type}`));
  if (set(e['firstTimestamp'])) causes.push(invalidEmpty('firstTimestamp', 'needs to be unset'));
  if (set(e['lastTimestamp'])) causes.push(invalidEmpty('lastTimestamp', 'needs to be unset'));
  if (typeof e['count'] === 'number' && e['count'] !== 0)
    causes.push(invalidEmpty('count', 'needs to be unset'));
  const source = isObject(e['source']) ? e['source'] : {};
  if (set(source['component']) || set(source['host']))
    causes.push(invalidEmpty('source', 'needs to be unset'));
  return causes;
}

const REF_FIELDS = [
  ['Kind', 'kind'],
  ['Namespace', 'namespace'],
  ['Name', 'name'],
  ['UID', 'uid'],
  ['APIVersion', 'apiVersion'],
  ['ResourceVersion', 'resourceVersion'],
  ['FieldPath', 'fieldPath'],
] as const;

/** Go's `%#v` of a `core.ObjectReference` (`&…` for the `related` pointer, `nil` when unset). */
function goObjectReference(v: unknown, pointer: boolean): string {
  if (!isObject(v)) return pointer ? '(*core.ObjectReference)(nil)' : 'core.ObjectReference{}';
  const body = REF_FIELDS.map(([goName, key]) => `${goName}:${goQuote(str(v[key]))}`).join(', ');
  return `${pointer ? '&' : ''}core.ObjectReference{${body}}`;
}

function goEventSource(v: unknown): string {
  const s = isObject(v) ? v : {};
  return `core.EventSource{Component:${goQuote(str(s['component']))}, Host:${goQuote(str(s['host']))}}`;
}

/** Go's `time.Time.String()` of an RFC 3339 (micro)time; `0001-01-01 00:00:00 +0000 UTC` when unset. */
function goTime(v: unknown): string {
  if (typeof v !== 'string') return '0001-01-01 00:00:00 +0000 UTC';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?/.exec(v);
  if (!m) return v;
  const frac = (m[3] ?? '').replace(/0+$/, '');
  return `${m[1] ?? ''} ${m[2] ?? ''}${frac === '.' ? '' : frac} +0000 UTC`;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The immutable fields of an `events.k8s.io/v1` update (`ValidateEventUpdate`); `reason` is listed
 * twice, as v1.24 checks it twice. A series change is validated like on create.
 */
export function eventUpdateCauses(next: KObj, old: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!same(next['series'], old['series'])) causes.push(...seriesCauses(next));
  const check = (field: string, shown: (v: unknown) => string): void => {
    if (!same(next[field], old[field])) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${shown(next[field])}: field is immutable`,
        field,
      });
    }
  };
  const quoted = (v: unknown): string => goQuote(str(v));
  check('involvedObject', (v) => goObjectReference(v, false));
  check('reason', quoted);
  check('message', quoted);
  check('source', goEventSource);
  check('firstTimestamp', goTime);
  check('lastTimestamp', goTime);
  check('count', (v) => String(typeof v === 'number' ? v : 0));
  check('reason', quoted);
  check('type', quoted);
  check('eventTime', goTime);
  check('action', quoted);
  check('related', (v) => goObjectReference(v, true));
  check('reportingComponent', quoted);
  check('reportingInstance', quoted);
  // the real field path of reportingComponent is reportingController
  return causes.map((c) => (c.field === 'reportingComponent' ? { ...c, field: 'reportingController' } : c));
}
