/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
// Event validation of kube-apiserver v1.24 (pkg/apis/core/validation/events.go: legacyValidateEvent,
// ValidateEventCreate, ValidateEventUpdate); every expected body was read from the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'ev';
const E = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;
const V = `/api/v1/namespaces/${NS}/events`;
const MERGE = 'application/merge-patch+json';

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  expect(
    (await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
  ).toBe(201);
});
afterAll(async () => {
  await server.stop();
});

const event = (name: string, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-01-01T00:00:00.000000Z',
  reportingController: 'example.com/ctl',
  reportingInstance: 'inst',
  action: 'Act',
  reason: 'Reason',
  regarding: { kind: 'Pod', name: 'p', namespace: NS },
  note: 'hello',
  type: 'Normal',
  ...extra,
});

const causesOf = async (path: string, body: unknown): Promise<[string, string][]> => {
  const r = await call(server.url, 'POST', path, { body });
  expect(r.status).toBe(422);
  expect(r.body.details.kind).toBe('Event');
  return (r.body.details.causes as { field: string; message: string }[]).map((c) => [c.field, c.message]);
};

describe('events.k8s.io/v1 create', () => {
  it('an empty Event: namespace agreement (legacy), eventTime and type (strict)', async () => {
    expect(
      await causesOf(E, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1' } }),
    ).toEqual([
      ['involvedObject.namespace', 'Invalid value: "": does not match event.namespace'],
      ['eventTime', 'Required value'],
      ['type', 'Invalid value: "": has invalid value: '],
    ]);
  });

  it('reportingController is required and a qualified name; instance, action and reason are required and short', async () => {
    expect(await causesOf(E, event('e2', { reportingController: '' }))).toEqual([
      ['reportingController', 'Required value'],
      ['reportingController', 'Invalid value: "": name part must be non-empty'],
      [
        'reportingController',
        "Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ]);
    expect(await causesOf(E, event('e3', { reportingInstance: '', action: '', reason: '' }))).toEqual([
      ['reportingInstance', 'Required value'],
      ['action', 'Required value'],
      ['reason', 'Required value'],
    ]);
    expect(
      await causesOf(
        E,
        event('e4', {
          reportingInstance: 'i'.repeat(129),
          action: 'a'.repeat(129),
          reason: 'r'.repeat(129),
          note: 'n'.repeat(1025),
        }),
      ),
    ).toEqual([
      ['reportingInstance', 'Invalid value: "": can have at most 128 characters'],
      ['action', 'Invalid value: "": can have at most 128 characters'],
      ['reason', 'Invalid value: "": can have at most 128 characters'],
      ['message', 'Invalid value: "": can have at most 1024 characters'],
    ]);
  });

  it('deprecated fields must stay unset; a series needs count ≥ 2 and lastObservedTime', async () => {
    expect(
      await causesOf(
        E,
        event('e5', {
          deprecatedCount: 2,
          deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
          deprecatedLastTimestamp: '2024-01-01T00:00:00Z',
          deprecatedSource: { component: 'c' },
          series: { count: 1 },
        }),
      ),
    ).toEqual([
      ['series.count', 'Invalid value: "": should be at least 2'],
      ['series.lastObservedTime', 'Required value'],
      ['firstTimestamp', 'Invalid value: "": needs to be unset'],
      ['lastTimestamp', 'Invalid value: "": needs to be unset'],
      ['count', 'Invalid value: "": needs to be unset'],
      ['source', 'Invalid value: "": needs to be unset'],
    ]);
  });

  it('an Event about a cluster-scoped object belongs in default or kube-system', async () => {
    expect(await causesOf(E, event('e6', { regarding: { kind: 'Node', name: 'n' } }))).toEqual([
      ['involvedObject.namespace', 'Invalid value: "": does not match event.namespace'],
    ]);
  });
});

describe('events.k8s.io/v1 update: immutable fields', () => {
  beforeAll(async () => {
    expect((await call(server.url, 'POST', E, { body: event('u1') })).status).toBe(201);
  });

  const patch = async (body: unknown): Promise<[number, [string, string][]]> => {
    const r = await call(server.url, 'PATCH', `${E}/u1`, { body, contentType: MERGE });
    const causes = (r.body.details?.causes ?? []) as { field: string; message: string }[];
    return [r.status, causes.map((c) => [c.field, c.message])];
  };

  it('note, reason, regarding, eventTime, action and reportingController cannot change', async () => {
    expect(await patch({ note: 'changed' })).toEqual([
      422,
      [['message', 'Invalid value: "changed": field is immutable']],
    ]);
    // v1.24 checks reason twice
    expect(await patch({ reason: 'Other' })).toEqual([
      422,
      [
        ['reason', 'Invalid value: "Other": field is immutable'],
        ['reason', 'Invalid value: "Other": field is immutable'],
      ],
    ]);
    expect(await patch({ regarding: { kind: 'Pod', name: 'q', namespace: NS } })).toEqual([
      422,
      [
        [
          'involvedObject',
          `Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"${NS}", Name:"q", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable`,
        ],
      ],
    ]);
    expect(await patch({ eventTime: '2024-01-02T00:00:00.000000Z' })).toEqual([
      422,
      [['eventTime', 'Invalid value: 2024-01-02 00:00:00 +0000 UTC: field is immutable']],
    ]);
    expect(await patch({ action: 'Other' })).toEqual([
      422,
      [['action', 'Invalid value: "Other": field is immutable']],
    ]);
    expect(await patch({ reportingController: 'example.com/other' })).toEqual([
      422,
      [['reportingController', 'Invalid value: "example.com/other": field is immutable']],
    ]);
  });

  it('a series and labels may change', async () => {
    const [code] = await patch({
      series: { count: 2, lastObservedTime: '2024-01-01T00:00:02.000000Z' },
      metadata: { labels: { a: 'b' } },
    });
    expect(code).toBe(200);
  });
});

describe('core/v1 Events keep the legacy rules only', () => {
  it('no type or metadata checks; with an eventTime the reporting fields are required', async () => {
    const minimal = {
      metadata: { name: 'v1' },
      type: 'Bogus',
      involvedObject: { kind: 'Pod', name: 'p', namespace: NS },
    };
    expect((await call(server.url, 'POST', V, { body: minimal })).status).toBe(201);
    expect(
      (await call(server.url, 'PATCH', `${V}/v1`, { body: { reason: 'changed' }, contentType: MERGE }))
        .status,
    ).toBe(200);
    const fields = (
      await causesOf(V, {
        metadata: { name: 'v2' },
        eventTime: '2024-01-01T00:00:00.000000Z',
        involvedObject: { kind: 'Pod', name: 'p', namespace: NS },
      })
    ).map(([f]) => f);
    expect(fields).toEqual([
      'reportingController',
      'reportingController',
      'reportingController',
      'reportingInstance',
      'action',
      'reason',
    ]);
  });
});
