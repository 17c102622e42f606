/**
 * The layers of the v1.24 field manager around structured-merge-diff, each test naming its file in
 * `apiserver/pkg/endpoints/handlers/fieldmanager/`: managedFields a client writes, resets, the
 * before-first-apply owner, the cap on Update entries, kubectl's last-applied forgiveness, reset
 * fields, entry times, and the errors of an apply the server cannot read.
 */
import { describe, expect, it } from 'vitest';

import { ApplyConflictError, ApplyError, recordUpdate, serverSideApply } from './field-manager.js';
import type { ManagedFieldsEntry } from './managed-fields.js';

type Obj = Record<string, unknown> & {
  metadata: Record<string, unknown> & { managedFields?: ManagedFieldsEntry[] };
};
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';

const cm = (data: Record<string, string>, meta: Record<string, unknown> = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'd', ...meta },
  data,
});
const stored = (o: Obj): Obj => ({ ...o, metadata: { ...o.metadata, uid: 'u-1' } });
const apply = (
  live: Obj | undefined,
  config: Obj,
  manager: string,
  extra: Record<string, unknown> = {},
): Obj =>
  serverSideApply(live, config, {
    fieldManager: manager,
    force: false,
    apiVersion: 'v1',
    now: T0,
    ...extra,
  }) as Obj;
const owners = (
  o: { metadata: { managedFields?: ManagedFieldsEntry[] } } | ManagedFieldsEntry[],
): Record<string, unknown> =>
  Object.fromEntries(
    (Array.isArray(o) ? o : (o.metadata.managedFields ?? [])).map((e) => [
      `${e.manager} ${e.operation}`,
      e.fieldsV1,
    ]),
  );

describe('managedFields a client writes (fieldmanager.go decodeLiveOrNew)', () => {
  const live = stored(apply(undefined, cm({ a: '1', b: '1' }), 'a'));
  const crafted: ManagedFieldsEntry[] = [
    {
      manager: 'x',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:a': {} } },
    },
  ];

  it('are kept as given when they decode, and the write moves only what it changed', () => {
    const next = { ...cm({ a: '1', b: '2' }), metadata: { ...live.metadata, managedFields: crafted } };
    expect(recordUpdate(live, next, { fieldManager: 'u', apiVersion: 'v1', now: T0 })).toEqual([
      crafted[0],
      {
        manager: 'u',
        operation: 'Update',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:b': {} } },
      },
    ]);
  });

  it('are ignored when they do not decode, and on a subresource', () => {
    const bad = {
      ...live,
      metadata: { ...live.metadata, managedFields: [{ manager: 'x', operation: 'Patch' }] },
    };
    expect(owners(recordUpdate(live, bad, { fieldManager: 'u', apiVersion: 'v1', now: T0 }))).toEqual(
      owners(live),
    );
    const sub = { ...live, metadata: { ...live.metadata, managedFields: crafted } };
    expect(
      owners(
        recordUpdate(live, sub, { fieldManager: 'u', apiVersion: 'v1', now: T0, subresource: 'status' }),
      ),
    ).toEqual(owners(live));
  });

  it('[{}] resets them; updates of an object without entries are not tracked (skipnonapplied.go)', () => {
    const reset = { ...live, metadata: { ...live.metadata, managedFields: [{}] } };
    expect(recordUpdate(live, reset, { fieldManager: 'u', apiVersion: 'v1', now: T0 })).toEqual([]);
    const untracked = stored(cm({ a: '2' }));
    expect(
      recordUpdate(untracked, cm({ a: '3' }, { uid: 'u-1' }), {
        fieldManager: 'u',
        apiVersion: 'v1',
        now: T0,
      }),
    ).toEqual([]);
  });

  it("entries at another group's apiVersion cannot be converted and are dropped (update.go IsMissingVersionError)", () => {
    const foreign = { ...crafted[0], manager: 'old', apiVersion: 'apps/v1' } as ManagedFieldsEntry;
    const next = {
      ...cm({ a: '1', b: '1' }),
      metadata: { ...live.metadata, managedFields: [foreign, ...crafted] },
    };
    expect(
      recordUpdate(live, next, { fieldManager: 'u', apiVersion: 'v1', now: T0 }).map((e) => e.manager),
    ).toEqual(['x']);
  });
});

describe('an object without entries (skipnonapplied.go)', () => {
  it('gets a before-first-apply entry owning what it holds, which the next apply can conflict with', () => {
    const untracked = stored(cm({ a: '1' }));
    expect(() => apply(untracked, cm({ a: '2' }), 'b')).toThrow(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a',
    );
    expect(owners(apply(untracked, cm({ a: '1', z: '9' }), 'b'))).toEqual({
      'b Apply': { 'f:data': { 'f:a': {}, 'f:z': {} } },
      'before-first-apply Update': { 'f:data': { '.': {}, 'f:a': {} } },
    });
  });
});

describe('at most ten Update entries (capmanagers.go)', () => {
  it('merges the oldest into ancient-changes', () => {
    let obj = stored(cm({}));
    obj = {
      ...obj,
      metadata: {
        ...obj.metadata,
        managedFields: recordUpdate(undefined, cm({ k: 'v' }), {
          fieldManager: 'creator',
          apiVersion: 'v1',
          now: T0,
        }),
      },
    };
    for (let i = 0; i < 11; i++) {
      const next = { ...obj, data: { ...(obj['data'] as object), [`k${String(i)}`]: 'v' } };
      const time = `2026-01-01T00:00:${String(10 + i)}Z`;
      obj = {
        ...next,
        metadata: {
          ...next.metadata,
          managedFields: recordUpdate(obj, next, {
            fieldManager: `u${String(i).padStart(2, '0')}`,
            apiVersion: 'v1',
            now: time,
          }),
        },
      };
    }
    const entries = obj.metadata.managedFields ?? [];
    expect(entries).toHaveLength(10);
    // creator, u00 and u01 go into the bucket; it takes the time of the last update merged into it
    // ("since it is more recent", capmanagers.go), u01's
    expect(entries[0]).toMatchObject({
      manager: 'ancient-changes',
      operation: 'Update',
      time: '2026-01-01T00:00:11Z',
    });
    expect(entries[0]?.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k': {}, 'f:k0': {}, 'f:k1': {} } });
  });
});

describe('kubectl after client-side apply (lastappliedmanager.go, lastappliedupdater.go)', () => {
  const annotation = 'kubectl.kubernetes.io/last-applied-configuration';
  const lastApplied =
    '{"apiVersion":"v1","data":{"a":"1"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"d"}}\n';
  const live = stored({
    ...cm({ a: '1' }, { annotations: { [annotation]: lastApplied } }),
  });
  live.metadata.managedFields = recordUpdate(undefined, live, {
    fieldManager: 'kubectl-client-side-apply',
    apiVersion: 'v1',
    now: T0,
  });

  it('a field whose live value is the last-applied one is no conflict for kubectl, and the annotation follows', () => {
    const out = apply(live, cm({ a: '2' }), 'kubectl');
    expect(out['data']).toEqual({ a: '2' });
    expect((out.metadata['annotations'] as Record<string, string>)[annotation]).toBe(
      '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"d"}}\n',
    );
    expect(() => apply(live, cm({ a: '2' }), 'someone-else')).toThrow(ApplyConflictError);
  });

  it('a field changed since (the annotation no longer says its value) still conflicts', () => {
    const edited = { ...live, data: { a: 'edited' } };
    edited.metadata = {
      ...live.metadata,
      managedFields: recordUpdate(live, edited, { fieldManager: 'editor', apiVersion: 'v1', now: T0 }),
    };
    expect(() => apply(edited, cm({ a: '2' }), 'kubectl')).toThrow(
      'conflict with "editor" using v1: .data.a',
    );
  });
});

describe('reset fields (GetResetFields as IgnoredFields) and times (managedfieldsupdater.go)', () => {
  const schema = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { a: { type: 'string' } } },
      status: { type: 'object', properties: { s: { type: 'string' } } },
    },
  };
  const w = (spec: object, status?: object): Obj => ({
    apiVersion: 'example.com/v1',
    kind: 'W',
    metadata: { name: 'w' },
    spec,
    ...(status ? { status } : {}),
  });
  const opts = { apiVersion: 'example.com/v1', schema, resetFields: [['status']] };

  it("status in a main-resource apply is nobody's", () => {
    expect(owners(apply(undefined, w({ a: '1' }, { s: 'x' }), 'm', opts))).toEqual({
      'm Apply': { 'f:spec': { 'f:a': {} } },
    });
  });

  it("an update's entry time moves only when its set changes; an apply's when anything changed", () => {
    const live = stored(apply(undefined, w({ a: '1' }), 'm', opts));
    const u1 = recordUpdate(live, w({ a: '2' }), {
      fieldManager: 'u',
      apiVersion: 'example.com/v1',
      now: T1,
      schema,
    });
    const after = { ...w({ a: '3' }), metadata: { name: 'w', uid: 'u-1', managedFields: u1 } };
    const u2 = recordUpdate(
      after,
      { ...after },
      { fieldManager: 'u', apiVersion: 'example.com/v1', now: '2030-01-01T00:00:00Z', schema },
    );
    expect(u2.find((e) => e.manager === 'u')?.time).toBe(T1);
    const same = apply(live, w({ a: '1' }), 'm', { ...opts, now: T1 });
    expect(same.metadata.managedFields?.[0]?.time).toBe(T0);
  });
});

describe('applies the server refuses (structuredmerge.go, typed/validate.go)', () => {
  it.each([
    [{ ...cm({ a: '1' }, { managedFields: [] }) }, 400, 'metadata.managedFields must be nil'],
    [
      { ...cm({ a: '1' }), foo: 1 },
      500,
      'failed to create typed patch object: .foo: field not declared in schema',
    ],
  ])('%j → %i %s', (config, code, message) => {
    let caught: unknown;
    try {
      apply(undefined, config, 'm');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ApplyError);
    expect([(caught as ApplyError).code, (caught as ApplyError).message]).toEqual([code, message]);
  });

  it('a live object SMD cannot read (duplicate keys written by an update): 500 on apply, no entries on update', () => {
    const dup = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', uid: 'u' },
      spec: { containers: [{ name: 'c', env: [{ name: 'A' }, { name: 'A' }] }] },
    };
    expect(() =>
      serverSideApply(
        dup,
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
        { fieldManager: 'm', force: false, apiVersion: 'v1', now: T0 },
      ),
    ).toThrow(
      'failed to create typed live object: .spec.containers[name="c"].env: duplicate entries for key [name="A"]',
    );
    const created = recordUpdate(undefined, dup, { fieldManager: 'm', apiVersion: 'v1', now: T0 });
    expect(created).toEqual([]);
  });
});
