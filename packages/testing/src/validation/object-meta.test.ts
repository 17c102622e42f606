// Expected messages were read from a real kube-apiserver v1.24.0; the rules follow
// k8s.io/apimachinery/pkg/api/validation/objectmeta.go and k8s.io/kubernetes/pkg/apis/core/validation.
import { describe, expect, it } from 'vitest';

import {
  metaUpdateCauses,
  validateAnnotations,
  validateFinalizers,
  validateKubeFinalizerNames,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
} from './object-meta.js';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('validateAnnotations (objectmeta.go ValidateAnnotations)', () => {
  it('checks keys lower-cased but shows them as given', () => {
    expect(validateAnnotations({ 'Example.com/Upper': 'x' })).toEqual([]);
    expect(validateAnnotations({ 'bad key': 'x' })).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "bad key": ${NAME_PART}`,
        field: 'metadata.annotations',
      },
    ]);
  });

  it('limits keys and values together to 256 KiB', () => {
    expect(validateAnnotations({ a: 'x'.repeat(256 * 1024 - 1) })).toEqual([]);
    expect(validateAnnotations({ a: 'x'.repeat(256 * 1024) })).toEqual([
      {
        reason: 'FieldValueTooLong',
        message: 'Too long: must have at most 262144 bytes',
        field: 'metadata.annotations',
      },
    ]);
  });
});

describe('validateOwnerReferences (objectmeta.go ValidateOwnerReferences)', () => {
  it('requires apiVersion with a version, kind, name and uid', () => {
    expect(validateOwnerReferences([{}]).map((c) => [c.field, c.message])).toEqual([
      ['metadata.ownerReferences.apiVersion', 'Invalid value: "": version must not be empty'],
      ['metadata.ownerReferences.kind', 'Invalid value: "": kind must not be empty'],
      ['metadata.ownerReferences.name', 'Invalid value: "": name must not be empty'],
      ['metadata.ownerReferences.uid', 'Invalid value: "": uid must not be empty'],
    ]);
    expect(validateOwnerReferences([{ apiVersion: 'a/b/c', kind: 'X', name: 'x', uid: '1' }])).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "a/b/c": version must not be empty',
        field: 'metadata.ownerReferences.apiVersion',
      },
    ]);
  });

  it('refuses core Events as owners and a second controller, printing Go values', () => {
    const causes = validateOwnerReferences([
      { apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' },
      { apiVersion: 'v1', kind: 'X', name: 'x', uid: '2', controller: true },
      { apiVersion: 'v1', kind: 'Z', name: 'z', uid: '4', controller: true },
    ]);
    expect(causes[0]?.message).toBe(
      'Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"1", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
    );
    expect(causes[1]?.field).toBe('metadata.ownerReferences');
    // the real server prints pointer addresses; ours are arbitrary too
    expect(causes[1]?.message?.replace(/0xc[0-9a-f]+/g, '0x…')).toBe(
      'Invalid value: []v1.OwnerReference{v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"1", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{APIVersion:"v1", Kind:"X", Name:"x", UID:"2", Controller:(*bool)(0x…), BlockOwnerDeletion:(*bool)(nil)}, v1.OwnerReference{APIVersion:"v1", Kind:"Z", Name:"z", UID:"4", Controller:(*bool)(0x…), BlockOwnerDeletion:(*bool)(nil)}}: Only one reference can have Controller set to true. Found "true" in references for x and z',
    );
  });
});

describe('finalizers', () => {
  it('apimachinery: qualified names, never orphan and foregroundDeletion together', () => {
    expect(validateFinalizers(['example.com/ok', 'kubernetes', 'nodomain'])).toEqual([]);
    expect(validateFinalizers(['orphan', 'foregroundDeletion'])).toEqual([
      {
        reason: 'FieldValueInvalid',
        message:
          'Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
        field: 'metadata.finalizers',
      },
    ]);
    expect(validateFinalizers(['bad finalizer'])[0]?.message).toBe(
      `Invalid value: "bad finalizer": ${NAME_PART}`,
    );
  });

  it('core: a name without a domain must be a standard one, reported per index', () => {
    expect(
      validateKubeFinalizerNames(['kubernetes', 'orphan', 'foregroundDeletion', 'x.io/y', 'nodomain']),
    ).toEqual([
      {
        reason: 'FieldValueInvalid',
        message:
          'Invalid value: "nodomain": name is neither a standard finalizer name nor is it fully qualified',
        field: 'metadata.finalizers[4]',
      },
    ]);
  });
});

describe('validateObjectMeta (create)', () => {
  it('lists causes in apimachinery order: names, labels, annotations, owners, finalizers, then core checks', () => {
    const fields = validateObjectMeta(
      {
        name: 'Bad',
        labels: { 'x y': 'z' },
        annotations: { 'p q': 'r' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: '', uid: '1' }],
        finalizers: ['nodomain'],
      },
      'subdomain',
      'core',
    ).map((c) => c.field);
    expect(fields).toEqual([
      'metadata.name',
      'metadata.labels',
      'metadata.annotations',
      'metadata.ownerReferences.name',
      'metadata.finalizers[0]',
    ]);
    expect(validateObjectMeta({ name: 'a', finalizers: ['nodomain'] }, 'subdomain', 'generic')).toEqual([]);
  });
});

describe('validateObjectMetaUpdate (update)', () => {
  const old = { name: 'a', namespace: 'n', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' };

  it('reports immutable uid, deletionTimestamp and grace period with Go values', () => {
    const causes = validateObjectMetaUpdate(
      { ...old, uid: 'u2', deletionTimestamp: '2000-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 },
      old,
      'generic',
    );
    expect(causes.map((c) => [c.field, c.message])).toEqual([
      ['metadata.uid', 'Invalid value: "u2": field is immutable'],
      ['metadata.deletionTimestamp', 'Invalid value: 2000-01-01 00:00:00 +0000 UTC: field is immutable'],
      ['metadata.deletionGracePeriodSeconds', 'Invalid value: 30: field is immutable'],
    ]);
  });

  it('forbids new finalizers on a deleting object, sorted like sets.String', () => {
    const deleting = { ...old, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['a.io/x'] };
    expect(
      validateObjectMetaUpdate(
        { ...deleting, finalizers: ['c.io/z', 'a.io/x', 'b.io/y'] },
        deleting,
        'generic',
      ),
    ).toEqual([
      {
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y", "c.io/z"}',
        field: 'metadata.finalizers',
      },
    ]);
  });
});

describe('metaUpdateCauses: one cause per validation pass, as measured per kind on v1.24', () => {
  const old = { name: 'a', namespace: 'n', uid: 'u1' };
  const bad = { ...old, labels: { 'bad key': 'x' }, finalizers: ['nodomain'] };
  const fields = (v: Parameters<typeof metaUpdateCauses>[3], status = false): string[] =>
    metaUpdateCauses(bad, old, 'subdomain', v, status).map((c) => c.field ?? '');

  it('ConfigMap-like (update+create, core): labels four times, finalizer index twice', () => {
    expect(fields({ flavor: 'core', onUpdate: 'update+create' })).toEqual([
      'metadata.labels',
      'metadata.labels',
      'metadata.labels',
      'metadata.finalizers[0]',
      'metadata.labels',
      'metadata.finalizers[0]',
    ]);
  });

  it('Deployment-like (update, core): labels three times, finalizer index once', () => {
    expect(fields({ flavor: 'core', onUpdate: 'update' })).toEqual([
      'metadata.labels',
      'metadata.labels',
      'metadata.labels',
      'metadata.finalizers[0]',
    ]);
  });

  it('custom resources and Leases (update, generic): labels three times, no finalizer check', () => {
    expect(fields({ flavor: 'generic', onUpdate: 'update' })).toEqual([
      'metadata.labels',
      'metadata.labels',
      'metadata.labels',
    ]);
  });

  it('core/v1 Events (none): only the generic passes', () => {
    expect(fields({ flavor: 'core', onUpdate: 'none' })).toEqual(['metadata.labels', 'metadata.labels']);
  });
});
