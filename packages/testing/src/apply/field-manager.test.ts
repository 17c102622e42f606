import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { applyMergePatch } from '../patch/merge-patch.js';
import { exchange, loadTranscript, type Exchange } from '../replay/transcripts.js';
import {
  ApplyConflictError,
  recordUpdate,
  serverSideApply,
  type ManagedFieldsEntry,
} from './field-manager.js';

type Obj = Record<string, unknown> & {
  metadata: { managedFields?: ManagedFieldsEntry[] } & Record<string, unknown>;
};
const t10 = loadTranscript('10');
const t11 = loadTranscript('11');
const t12 = loadTranscript('12');

const bodyOf = (ex: Exchange): Obj => ex.response?.body as Obj;
const timeOf = (o: Obj): string => o.metadata.managedFields?.[0]?.time ?? '';
const managerOf = (ex: Exchange): string =>
  new URL(ex.request.path, 'http://x').searchParams.get('fieldManager') ?? 'wire-record';
const subresourceOf = (ex: Exchange): { subresource?: string } =>
  new URL(ex.request.path, 'http://x').pathname.endsWith('/status') ? { subresource: 'status' } : {};
const withoutMeta = (o: Obj): unknown => {
  const { metadata: _m, ...rest } = o;
  return rest;
};

/** The Widget CRD of the transcripts (12), whose version schema the server passes for Widgets. */
const widgetSchema: Record<string, unknown> =
  (
    t12.exchanges[0]?.request.body as {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    }
  ).spec.versions[0]?.schema.openAPIV3Schema ?? {};

/** Replays the apply of `ex` on `live` (the previous response) the way the server would call us. */
function replayApply(ex: Exchange, live: Obj | undefined): Obj {
  const expected = bodyOf(ex);
  const apiVersion = String(expected.apiVersion ?? live?.apiVersion);
  const widget = apiVersion === 'example.com/v1';
  const status = subresourceOf(ex).subresource === 'status';
  return serverSideApply(live, parseYaml(String(ex.request.body)) as Record<string, unknown>, {
    fieldManager: managerOf(ex),
    force: ex.request.path.includes('force=true'),
    apiVersion,
    now: timeOf(expected),
    ...subresourceOf(ex),
    ...(widget ? { schema: widgetSchema, resetFields: status ? [['spec']] : [['status']] } : {}),
  }) as Obj;
}

describe('serverSideApply replaying the 11 transcript', () => {
  const steps = t11.exchanges;
  const at = (prefix: string): Exchange => exchange(t11, prefix);

  it('creates the object owned by a (201)', () => {
    const ex = at('apply as fieldManager=a');
    const out = replayApply(ex, undefined);
    expect(out.data).toEqual(bodyOf(ex).data);
    expect(out.metadata.managedFields).toEqual(bodyOf(ex).metadata.managedFields);
  });

  it('applying the same again changes nothing, not even the time', () => {
    const first = bodyOf(at('apply as fieldManager=a'));
    const out = serverSideApply(first, parseYaml(String(at('apply the same again').request.body)) as Obj, {
      fieldManager: 'a',
      force: false,
      apiVersion: 'v1',
      now: '2030-01-01T00:00:00Z',
    }) as Obj;
    expect(out).toEqual(first);
  });

  it('a conflicting apply by b fails with the real message and causes (409)', () => {
    const ex = at('apply a conflicting value');
    const status = ex.response?.body as { message: string; details: { causes: unknown } };
    let caught: unknown;
    try {
      replayApply(ex, bodyOf(at('apply the same again')));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ApplyConflictError);
    expect((caught as ApplyConflictError).message).toBe(status.message);
    expect((caught as ApplyConflictError).causes).toEqual(status.details.causes);
    expect((caught as ApplyConflictError).conflicts).toEqual([
      { manager: 'a', managerDescription: '"a"', field: '.data.key' },
    ]);
  });

  const sequence: [string, string][] = [
    ['apply the same as b with force=true', 'apply the same again'],
    ['apply with a JSON body', 'apply the same as b with force=true'],
    ['apply as a without data.other', 'apply with a JSON body'],
    ['apply to a Widget', ''],
    ['apply to the Widget /status', 'apply to a Widget'],
  ];
  it.each(sequence)('%s: same object and managedFields as the real server', (label, previous) => {
    const ex = at(label);
    const out = replayApply(ex, previous === '' ? undefined : bodyOf(at(previous)));
    expect(withoutMeta(out)).toEqual(withoutMeta(bodyOf(ex)));
    expect(out.metadata.managedFields).toEqual(bodyOf(ex).metadata.managedFields);
  });

  it('merge patches by c and by the User-Agent manager are recorded as Update entries', () => {
    for (const [label, previous] of [
      ['a merge patch with fieldManager=c', 'apply as a without data.other'],
      ['a merge patch without fieldManager', 'a merge patch with fieldManager=c'],
    ] as const) {
      const ex = at(label);
      const prev = bodyOf(at(previous));
      const next = applyMergePatch(prev, ex.request.body) as Obj;
      const entries = recordUpdate(prev, next, {
        fieldManager: managerOf(ex),
        apiVersion: 'v1',
        now: timeOf(prev),
      });
      expect(entries).toEqual(bodyOf(ex).metadata.managedFields);
    }
    expect(steps.length).toBeGreaterThan(10);
  });
});

describe('recordUpdate replaying the 10 and 12 transcripts', () => {
  const chain = (t: typeof t10, labels: [string, string | undefined][]): void => {
    for (const [label, previous] of labels) {
      const ex = exchange(t, label);
      const next = bodyOf(ex);
      const prev = previous === undefined ? undefined : bodyOf(exchange(t, previous));
      const entries = recordUpdate(prev, next, {
        fieldManager: 'wire-record',
        apiVersion: String(next.apiVersion),
        now: timeOf(next),
        ...subresourceOf(ex),
      });
      expect(entries, label).toEqual(next.metadata.managedFields);
    }
  };

  it('ConfigMap create, merge patch (null removes ownership), JSON patch, strategic merge patch (10)', () => {
    chain(t10, [
      ['create s10-cm', undefined],
      ['merge patch (application/merge-patch+json)', 'create s10-cm'],
      [
        'JSON patch (application/json-patch+json): add and replace',
        'merge patch (application/merge-patch+json)',
      ],
      [
        'strategic merge patch (application/strategic-merge-patch+json)',
        'JSON patch (application/json-patch+json): add and replace',
      ],
      ['merge patch that changes nothing', 'strategic merge patch (application/strategic-merge-patch+json)'],
    ]);
  });

  it('custom resource create, spec PUT, /status PUT, status patch, label patch (12)', () => {
    chain(t12, [
      ['create Widget s12-w', undefined],
      ['PUT with a spec change', 'create Widget s12-w'],
      ['PUT /status with a status and a spec change', 'PUT with a spec change'],
      ['merge patch /status', 'PUT /status with a status and a spec change'],
      ['metadata-only change (label)', 'merge patch /status'],
      ['create a Widget with an unknown field', undefined],
    ]);
  });

  it('metadata is an ObjectMeta everywhere: finalizers are a set, ownerReferences keyed by uid (13, 14)', () => {
    const t13 = loadTranscript('13');
    const t14 = loadTranscript('14');
    for (const ex of [
      exchange(t13, 'create Widget s13-w with finalizer'),
      exchange(t13, 'create ConfigMap s13-cm with a finalizer'),
      exchange(t14, '[Background] create child'),
    ]) {
      const next = bodyOf(ex);
      // The request had `data: {}` or none; Go's omitempty makes both the same for a ConfigMap.
      const withEmpty = next.kind === 'ConfigMap' ? { ...next, data: {} } : next;
      const entries = recordUpdate(undefined, withEmpty, {
        fieldManager: 'wire-record',
        apiVersion: String(next.apiVersion),
        now: timeOf(next),
      });
      expect(entries, ex.label).toEqual(next.metadata.managedFields);
    }
  });

  it('Event references are atomic and Event.source is a value struct (18)', () => {
    const t18 = loadTranscript('18');
    for (const label of ['create an events.k8s.io/v1 Event', 'create a core/v1 Event']) {
      const next = bodyOf(exchange(t18, label));
      const entries = recordUpdate(undefined, next, {
        fieldManager: 'wire-record',
        apiVersion: String(next.apiVersion),
        now: timeOf(next),
      });
      expect(entries, label).toEqual(next.metadata.managedFields);
    }
  });

  it('unknown fields dropped by the server are not owned (03)', () => {
    const ex = exchange(loadTranscript('03'), 'unknown fields are dropped silently');
    const next = bodyOf(ex);
    expect(
      recordUpdate(undefined, next, { fieldManager: 'wire-record', apiVersion: 'v1', now: timeOf(next) }),
    ).toEqual(next.metadata.managedFields);
  });
});

describe('serverSideApply and recordUpdate on lists', () => {
  const now = '2026-01-01T00:00:00Z';
  const later = '2026-01-01T00:01:00Z';
  const pod = (containers: unknown[], finalizers?: string[]): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', ...(finalizers ? { finalizers } : {}) },
    spec: { containers },
  });

  it('owns associative list items by key with a "." member, and sets by value', () => {
    const out = serverSideApply(undefined, pod([{ name: 'app', image: 'a:1' }], ['x']), {
      fieldManager: 'm',
      force: false,
      apiVersion: 'v1',
      now,
    }) as Obj;
    expect(out.metadata.managedFields?.[0]?.fieldsV1).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"x"': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
    });
  });

  it('reports conflicts inside list items with SMD paths, and force moves them', () => {
    const live = serverSideApply(undefined, pod([{ name: 'app', image: 'a:1' }]), {
      fieldManager: 'm',
      force: false,
      apiVersion: 'v1',
      now,
    });
    const opts = { fieldManager: 'other', force: false, apiVersion: 'v1', now: later };
    expect(() => serverSideApply(live, pod([{ name: 'app', image: 'a:2' }]), opts)).toThrow(
      'Apply failed with 1 conflict: conflict with "m": .spec.containers[name="app"].image',
    );
    const forced = serverSideApply(live, pod([{ name: 'app', image: 'a:2' }]), {
      ...opts,
      force: true,
    }) as Obj;
    const entries = forced.metadata.managedFields ?? [];
    expect(entries.map((e) => e.manager)).toEqual(['m', 'other']);
    expect(entries[0]?.fieldsV1).toEqual({
      'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:name': {} } } },
    });
  });

  it('removes list items a manager stops applying, keeping items others own', () => {
    const opts = { fieldManager: 'm', force: false, apiVersion: 'v1', now };
    let live = serverSideApply(undefined, pod([{ name: 'a' }, { name: 'b' }]), opts);
    live = serverSideApply(live, pod([{ name: 'b' }, { name: 'c' }]), { ...opts, fieldManager: 'n' });
    const out = serverSideApply(live, pod([]), opts) as Obj & { spec: { containers: unknown[] } };
    // the Go form of a Container always has its value struct `resources`
    expect(out.spec.containers).toEqual([
      { name: 'b', resources: {} },
      { name: 'c', resources: {} },
    ]);
  });

  it('lists multiple conflicts grouped by manager, with Update managers "using" their version', () => {
    const cm = (data: Record<string, string>): Record<string, unknown> => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data,
    });
    const created = cm({ x: '1', y: '1' });
    const live = {
      ...created,
      metadata: {
        name: 'c',
        managedFields: recordUpdate(undefined, created, { fieldManager: 'kubectl', apiVersion: 'v1', now }),
      },
    };
    expect(() =>
      serverSideApply(live, cm({ x: '2', y: '2' }), {
        fieldManager: 'ssa',
        force: false,
        apiVersion: 'v1',
        now,
      }),
    ).toThrow('Apply failed with 2 conflicts: conflicts with "kubectl" using v1:\n- .data.x\n- .data.y');
  });

  it('a /status apply owns what it applies but the reset spec (customresource/status_strategy.go GetResetFields)', () => {
    const out = serverSideApply(
      { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: 'w', uid: 'u' }, spec: { a: 1 } },
      {
        apiVersion: 'example.com/v1',
        kind: 'W',
        metadata: { name: 'w', labels: { q: '1' } },
        spec: { a: 2 },
        status: { s: 'x' },
      },
      {
        fieldManager: 's',
        force: false,
        apiVersion: 'example.com/v1',
        now,
        subresource: 'status',
        resetFields: [['spec']],
        schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', properties: { a: { type: 'integer' } } },
            status: { type: 'object', properties: { s: { type: 'string' } } },
          },
        },
      },
    ) as Obj;
    // the merge is the whole config; the endpoint's strategy then keeps only status (the engine).
    // The object had no entries, so a before-first-apply Update would own what it held, but the
    // reset spec is nobody's through /status (skipnonapplied.go, IgnoredFields).
    expect(out.status).toEqual({ s: 'x' });
    expect(out.metadata.managedFields).toEqual([
      {
        manager: 's',
        operation: 'Apply',
        apiVersion: 'example.com/v1',
        time: now,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:q': {} } }, 'f:status': { 'f:s': {} } },
        subresource: 'status',
      },
    ]);
  });

  it('honours x-kubernetes-list-type map keys from a CRD schema', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['id'],
              items: { type: 'object' },
            },
          },
        },
      },
    };
    const out = serverSideApply(
      undefined,
      {
        apiVersion: 'example.com/v1',
        kind: 'W',
        metadata: { name: 'w' },
        spec: { items: [{ id: 1, v: 'a' }] },
      },
      { fieldManager: 'm', force: false, apiVersion: 'example.com/v1', now, schema },
    ) as Obj;
    expect(out.metadata.managedFields?.[0]?.fieldsV1).toEqual({
      'f:spec': { 'f:items': { 'k:{"id":1}': { '.': {}, 'f:id': {}, 'f:v': {} } } },
    });
  });

  it('rejects non-objects and empty managers with a TypeError naming the argument', () => {
    expect(() =>
      serverSideApply(undefined, 'x' as unknown as Record<string, unknown>, {
        fieldManager: 'm',
        force: false,
        apiVersion: 'v1',
        now,
      }),
    ).toThrow(/the applied configuration must be a JSON object/);
    expect(() => recordUpdate(undefined, {}, { fieldManager: '', apiVersion: 'v1', now })).toThrow(
      /opts.fieldManager/,
    );
  });
});

describe('properties', () => {
  const now = '2026-01-01T00:00:00Z';
  const data = fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), fc.string({ maxLength: 3 }), { maxKeys: 6 });
  const cm = (d: Record<string, string>): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c' },
    data: d,
  });

  it('after a sequence of applies by one manager, the object holds exactly the last config', () => {
    fc.assert(
      fc.property(fc.array(data, { minLength: 1, maxLength: 5 }), (configs) => {
        let live: Record<string, unknown> | undefined;
        for (const d of configs)
          live = serverSideApply(live, cm(d), { fieldManager: 'm', force: false, apiVersion: 'v1', now });
        const last = configs[configs.length - 1] ?? {};
        expect((live as { data?: unknown }).data ?? {}).toEqual(last);
      }),
    );
  });

  it('an update owns exactly the keys it changed; other managers keep the rest', () => {
    fc.assert(
      fc.property(data, data, (before, after) => {
        const prev = {
          ...cm(before),
          metadata: {
            name: 'c',
            managedFields: recordUpdate(undefined, cm(before), {
              fieldManager: 'one',
              apiVersion: 'v1',
              now,
            }),
          },
        };
        const entries = recordUpdate(prev, cm(after), { fieldManager: 'two', apiVersion: 'v1', now });
        const owned = (m: string): string[] =>
          Object.keys(
            (entries.find((e) => e.manager === m)?.fieldsV1['f:data'] ?? {}) as Record<string, unknown>,
          ).filter((k) => k !== '.');
        const changed = Object.keys(after).filter((k) => before[k] !== after[k]);
        expect(owned('two').sort()).toEqual(changed.map((k) => `f:${k}`).sort());
        const kept = Object.keys(before).filter((k) => k in after && before[k] === after[k]);
        expect(owned('one').sort()).toEqual(kept.map((k) => `f:${k}`).sort());
      }),
    );
  });
});
