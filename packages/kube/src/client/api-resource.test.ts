import { InvalidArgumentError } from '@rxkube/core';
import { describe, expect, it } from 'vitest';

import { makeApiResource, parseApiVersion, resourcePath } from './api-resource.js';

const configMaps = makeApiResource({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: ['get', 'list'],
  subresources: [],
  shortNames: ['cm'],
});
const widgets = makeApiResource({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
  verbs: [],
  subresources: ['status'],
  shortNames: [],
});
const namespaces = makeApiResource({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  verbs: [],
  subresources: ['status', 'finalize'],
  shortNames: [],
});

describe('resourcePath', () => {
  it('builds core and named-group paths for collections, objects and subresources', () => {
    expect(configMaps.apiVersion).toBe('v1');
    expect(widgets.apiVersion).toBe('example.com/v1');
    expect(configMaps.path()).toBe('/api/v1/configmaps');
    expect(configMaps.path({ namespace: 'a' })).toBe('/api/v1/namespaces/a/configmaps');
    expect(configMaps.path({ namespace: 'a', name: 'b' })).toBe('/api/v1/namespaces/a/configmaps/b');
    expect(widgets.path({ namespace: 'a', name: 'w', subresource: 'status' })).toBe(
      '/apis/example.com/v1/namespaces/a/widgets/w/status',
    );
    expect(namespaces.path({ name: 'kube-system', subresource: 'finalize' })).toBe(
      '/api/v1/namespaces/kube-system/finalize',
    );
  });

  it('percent-encodes segments', () => {
    expect(resourcePath(configMaps, { namespace: 'a', name: 'x:y?z#' })).toBe(
      '/api/v1/namespaces/a/configmaps/x%3Ay%3Fz%23',
    );
  });

  it('refuses a namespace on a cluster-scoped kind, bad segments and a subresource without a name', () => {
    expect(() => namespaces.path({ namespace: 'a' })).toThrow(/Namespace is cluster-scoped/);
    expect(() => configMaps.path({ namespace: 'a', name: '' })).toThrow(InvalidArgumentError);
    expect(() => configMaps.path({ namespace: 'a', name: 'a/b' })).toThrow(/without "\/"/);
    expect(() => configMaps.path({ namespace: '..' })).toThrow(InvalidArgumentError);
    expect(() => widgets.path({ namespace: 'a', subresource: 'status' })).toThrow(/needs a name/);
  });

  it('is frozen, verbs and subresources included', () => {
    expect(Object.isFrozen(widgets)).toBe(true);
    expect(Object.isFrozen(widgets.subresources)).toBe(true);
  });
});

describe('parseApiVersion', () => {
  it('splits group and version and refuses malformed ones', () => {
    expect(parseApiVersion('v1', 'op')).toEqual({ group: '', version: 'v1' });
    expect(parseApiVersion('apps/v1', 'op')).toEqual({ group: 'apps', version: 'v1' });
    for (const bad of ['', 'a/b/c', '/v1', 'apps/', 42, undefined]) {
      expect(() => parseApiVersion(bad, 'op')).toThrow(/op: apiVersion must/);
    }
  });
});
