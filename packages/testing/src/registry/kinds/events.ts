/**
 * Events: core/v1 Event and events.k8s.io/v1 Event, one storage (the core form) with the field
 * mapping between the two, their field selectors and the checks of file 18.
 *
 * @module
 */
import type { Json, KObj } from '../../store/object.js';
import { isObject, orderMeta } from '../../store/object.js';
import { eventUpdateCauses, legacyEventCauses, strictEventCauses } from '../../validation/events.js';
import type { ResourceType } from '../types.js';
import { builtin, microTimeError } from './builtin.js';

const OBJECT_REF_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

function orderRef(v: unknown): unknown {
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const k of OBJECT_REF_FIELDS) if (v[k] !== undefined) out[k] = v[k];
  return out;
}

const CORE_EVENT_FIELDS = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'series',
  'action',
  'related',
  'reportingComponent',
  'reportingInstance',
] as const;

function coreEventForm(o: KObj): KObj {
  const out: KObj = { kind: 'Event', apiVersion: 'v1', metadata: orderMeta(o.metadata) };
  out['involvedObject'] = orderRef(o['involvedObject'] ?? {});
  if (o['reason'] !== undefined) out['reason'] = o['reason'];
  if (o['message'] !== undefined) out['message'] = o['message'];
  out['source'] = o['source'] ?? {};
  out['firstTimestamp'] = o['firstTimestamp'] ?? null;
  out['lastTimestamp'] = o['lastTimestamp'] ?? null;
  if (o['count'] !== undefined) out['count'] = o['count'];
  if (o['type'] !== undefined) out['type'] = o['type'];
  out['eventTime'] = o['eventTime'] ?? null;
  if (o['series'] !== undefined) out['series'] = o['series'];
  if (o['action'] !== undefined) out['action'] = o['action'];
  if (o['related'] !== undefined) out['related'] = orderRef(o['related']);
  out['reportingComponent'] = o['reportingComponent'] ?? '';
  out['reportingInstance'] = o['reportingInstance'] ?? '';
  return out;
}

function eventsV1Form(o: KObj): KObj {
  const out: KObj = { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: orderMeta(o.metadata) };
  out['eventTime'] = o['eventTime'] ?? null;
  if (o['series'] !== undefined) out['series'] = o['series'];
  if (o['reportingComponent']) out['reportingController'] = o['reportingComponent'];
  if (o['reportingInstance']) out['reportingInstance'] = o['reportingInstance'];
  if (o['action'] !== undefined) out['action'] = o['action'];
  if (o['reason'] !== undefined) out['reason'] = o['reason'];
  out['regarding'] = orderRef(o['involvedObject'] ?? {});
  if (o['related'] !== undefined) out['related'] = orderRef(o['related']);
  if (o['message'] !== undefined) out['note'] = o['message'];
  if (o['type'] !== undefined) out['type'] = o['type'];
  out['deprecatedSource'] = o['source'] ?? {};
  out['deprecatedFirstTimestamp'] = o['firstTimestamp'] ?? null;
  out['deprecatedLastTimestamp'] = o['lastTimestamp'] ?? null;
  if (o['count'] !== undefined) out['deprecatedCount'] = o['count'];
  return out;
}

function eventsV1ToCore(o: KObj): KObj {
  const core: KObj = { metadata: o.metadata };
  const map: Record<string, string> = {
    regarding: 'involvedObject',
    note: 'message',
    deprecatedSource: 'source',
    deprecatedFirstTimestamp: 'firstTimestamp',
    deprecatedLastTimestamp: 'lastTimestamp',
    deprecatedCount: 'count',
    reportingController: 'reportingComponent',
  };
  for (const [k, v] of Object.entries(o)) {
    if (k === 'kind' || k === 'apiVersion' || k === 'metadata') continue;
    core[map[k] ?? k] = v;
  }
  return coreEventForm(core);
}

const EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

function eventFields(o: KObj): Record<string, string> {
  const io = isObject(o['involvedObject']) ? o['involvedObject'] : {};
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const src = isObject(o['source']) ? o['source'] : {};
  return {
    'involvedObject.kind': str(io['kind']),
    'involvedObject.namespace': str(io['namespace']),
    'involvedObject.name': str(io['name']),
    'involvedObject.uid': str(io['uid']),
    'involvedObject.apiVersion': str(io['apiVersion']),
    'involvedObject.resourceVersion': str(io['resourceVersion']),
    'involvedObject.fieldPath': str(io['fieldPath']),
    reason: str(o['reason']),
    reportingComponent: str(o['reportingComponent']),
    source: str(src['component']),
    type: str(o['type']),
  };
}

/** core/v1 and events.k8s.io/v1 Event. */
export function eventKinds(): ResourceType[] {
  return [
    builtin({
      group: '',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      // events.go skips ObjectMeta for the v1 API: only rest.BeforeCreate/BeforeUpdate's generic checks run
      metaValidation: { flavor: 'none', onUpdate: 'none' },
      knownFields: CORE_EVENT_FIELDS,
      storageKey: 'events',
      selectableFields: EVENT_FIELDS,
      fields: eventFields,
      fromStorage: coreEventForm,
      toStorage: coreEventForm,
      decodeCheck: (o) => microTimeError('Event', o['eventTime']),
      // events.go legacyValidateEvent: the only rules the core/v1 API applies
      validate: (o) => legacyEventCauses(o),
    }),
    builtin({
      group: 'events.k8s.io',
      version: 'v1',
      resource: 'events',
      kind: 'Event',
      namespaced: true,
      shortNames: ['ev'],
      knownFields: [
        'eventTime',
        'series',
        'reportingController',
        'reportingInstance',
        'action',
        'reason',
        'regarding',
        'related',
        'note',
        'type',
        'deprecatedSource',
        'deprecatedFirstTimestamp',
        'deprecatedLastTimestamp',
        'deprecatedCount',
      ],
      storageKey: 'events',
      invalidKind: { group: '', kind: 'Event' },
      fromStorage: eventsV1Form,
      toStorage: eventsV1ToCore,
      selectableFields: EVENT_FIELDS,
      fields: eventFields,
      decodeCheck: (o) => microTimeError('Event', o['eventTime']),
      // events.go: the legacy rules, then the strict ones on create or the immutable fields on
      // update, on the core form the Event is stored in
      validate: (o, old) => {
        const core = eventsV1ToCore(o);
        const causes = legacyEventCauses(core);
        causes.push(...(old ? eventUpdateCauses(core, eventsV1ToCore(old)) : strictEventCauses(core)));
        return causes;
      },
    }),
  ];
}
