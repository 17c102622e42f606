import { InvalidArgumentError } from '@rxkube/core';
import { describe, expect, it } from 'vitest';

import type { KubeObject } from '../types.js';
import { AlreadyOwnedError, setControllerReference } from './set-controller-reference.js';

const widget: KubeObject = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'uid-w' },
};
const cm = (metadata: KubeObject['metadata'] = { name: 'c', namespace: 'ns' }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata,
  data: { a: '1' },
});
const widgetRef = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  name: 'w',
  uid: 'uid-w',
  controller: true,
  blockOwnerDeletion: true,
};

describe('setControllerReference', () => {
  it('adds a controller reference and leaves both arguments untouched', () => {
    const child = cm();
    const frozen = JSON.stringify(child);
    const out = setControllerReference(widget, child);
    expect(out.metadata.ownerReferences).toEqual([widgetRef]);
    expect(out['data']).toEqual({ a: '1' });
    expect(JSON.stringify(child)).toBe(frozen);
  });

  it('keeps other (non-controller) references', () => {
    const other = { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'uid-s' };
    const out = setControllerReference(widget, cm({ name: 'c', namespace: 'ns', ownerReferences: [other] }));
    expect(out.metadata.ownerReferences).toEqual([other, widgetRef]);
  });

  it('replaces the reference to the same object (other version, re-created owner with a new uid)', () => {
    const old = { ...widgetRef, apiVersion: 'example.com/v1beta1', uid: 'old-uid' };
    const out = setControllerReference(widget, cm({ name: 'c', namespace: 'ns', ownerReferences: [old] }));
    expect(out.metadata.ownerReferences).toEqual([widgetRef]);
  });

  it('refuses a child controlled by another object with AlreadyOwnedError', () => {
    const other = { ...widgetRef, name: 'other', uid: 'uid-o' };
    const e: unknown = (() => {
      try {
        return setControllerReference(widget, cm({ name: 'c', namespace: 'ns', ownerReferences: [other] }));
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(AlreadyOwnedError);
    expect((e as AlreadyOwnedError).existing).toEqual(other);
    expect((e as AlreadyOwnedError).message).toContain(
      'ConfigMap ns/c is already controlled by Widget "other"',
    );
  });

  it('a different kind of the same name in another group is another object', () => {
    const foreign = { ...widgetRef, apiVersion: 'other.io/v1' };
    expect(() =>
      setControllerReference(widget, cm({ name: 'c', namespace: 'ns', ownerReferences: [foreign] })),
    ).toThrow(AlreadyOwnedError);
  });

  it('refuses cross-namespace and cluster-scoped children of a namespaced owner', () => {
    expect(() => setControllerReference(widget, cm({ name: 'c', namespace: 'elsewhere' }))).toThrow(
      /must equal the owner's namespace "ns": cross-namespace owner references are not allowed/,
    );
    expect(() => setControllerReference(widget, cm({ name: 'c' }))).toThrow(
      /a cluster-scoped object cannot be owned by a namespaced Widget/,
    );
  });

  it('lets a cluster-scoped owner own namespaced and cluster-scoped children', () => {
    const clusterOwner: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Cluster',
      metadata: { name: 'k', uid: 'u' },
    };
    expect(
      setControllerReference(clusterOwner, cm({ name: 'c', namespace: 'any' })).metadata.ownerReferences,
    ).toHaveLength(1);
    expect(setControllerReference(clusterOwner, cm({ name: 'c' })).metadata.ownerReferences).toHaveLength(1);
  });

  it('refuses an owner without uid, kind or apiVersion', () => {
    expect(() =>
      setControllerReference({ ...widget, metadata: { name: 'w', namespace: 'ns' } }, cm()),
    ).toThrow(InvalidArgumentError);
    expect(() =>
      setControllerReference({ ...widget, metadata: { name: 'w', namespace: 'ns' } }, cm()),
    ).toThrow(/owner\.metadata\.uid must be a non-empty string/);
    const { kind: _k, ...noKind } = widget;
    expect(() => setControllerReference(noKind as KubeObject, cm())).toThrow(/owner\.kind/);
  });
});
