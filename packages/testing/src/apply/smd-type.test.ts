/**
 * The types server-side apply reads from the schemas (`smd-type.ts`), as kube-openapi's
 * `schemaconv/smd.go` builds them for the real server: from the recorded v1.24 schemas of the
 * built-in kinds and from CRD schemas alike.
 */
import { describe, expect, it } from 'vitest';

import { AdminClient } from '../cluster/admin-client.js';
import { startApiServer } from '../server.js';
import { goForm } from './go-form.js';
import { DEDUCED, kindType, type SmdType } from './smd-type.js';

function at(type: SmdType, path: readonly string[]): SmdType | undefined {
  let t: SmdType | undefined = type;
  for (const step of path) t = step === '*' ? t?.list?.item : (t?.map?.field(step)?.type ?? t?.map?.element);
  return t;
}

describe('built-in kinds: list and map semantics from the recorded schemas', () => {
  const deployment = kindType('apps/v1', 'Deployment');
  const pod = ['spec', 'template', 'spec'];
  it.each([
    [[...pod, 'containers'], false, ['name']],
    [[...pod, 'containers', '*', 'ports'], false, ['containerPort', 'protocol']],
    [[...pod, 'containers', '*', 'env'], false, ['name']],
    [[...pod, 'containers', '*', 'args'], true, []],
    [[...pod, 'tolerations'], true, []],
    [[...pod, 'volumes'], false, ['name']],
    [['metadata', 'finalizers'], false, []],
    [['metadata', 'ownerReferences'], false, ['uid']],
    [['status', 'conditions'], false, ['type']],
  ] as const)('Deployment %j: atomic %s, keys %j', (path, atomic, keys) => {
    const list = at(deployment, path)?.list;
    expect(list?.atomic).toBe(atomic);
    expect(list?.keys).toEqual(keys);
  });

  it('structType=atomic (LabelSelector, OwnerReference, ObjectReference) and granular maps', () => {
    expect(at(deployment, ['spec', 'selector'])?.map?.atomic).toBe(true);
    expect(at(deployment, ['metadata', 'ownerReferences', '*'])?.map?.atomic).toBe(true);
    expect(at(kindType('v1', 'Event'), ['involvedObject'])?.map?.atomic).toBe(true);
    expect(at(deployment, ['metadata', 'labels'])?.map?.atomic).toBe(false);
    expect(at(deployment, ['metadata', 'labels'])?.map?.fieldNames).toEqual([]);
  });

  it('the protocol key of ports defaults to TCP (the schema default SMD fills keys with)', () => {
    const port = at(deployment, [...pod, 'containers', '*', 'ports', '*']);
    expect(port?.map?.field('protocol')?.default).toBe('TCP');
  });

  it('the Go form of an empty Deployment: value structs, null for nil required fields', () => {
    expect(goForm(undefined, deployment)).toEqual({
      metadata: { creationTimestamp: null },
      spec: {
        selector: null,
        template: { metadata: { creationTimestamp: null }, spec: { containers: null } },
        strategy: {},
      },
      status: {},
    });
    expect(goForm(undefined, kindType('v1', 'Event'))).toMatchObject({
      involvedObject: {},
      reportingComponent: '',
      reportingInstance: '',
      eventTime: null,
    });
  });

  it('a kind without a recorded schema is deduced', () => {
    expect(kindType('v1', 'NoSuchKind')).toBe(DEDUCED);
  });
});

describe('custom resources: x-kubernetes-* extensions of the CRD schema', () => {
  const t = kindType('example.com/v1', 'Widget', {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          set: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
          map: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['a', 'b'],
            items: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
          },
          atomic: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
          plain: { type: 'array', items: { type: 'string' } },
          atomicMap: {
            type: 'object',
            'x-kubernetes-map-type': 'atomic',
            additionalProperties: { type: 'string' },
          },
          free: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { inner: { type: 'object', properties: { x: { type: 'string' } } } },
          },
          intOrString: { 'x-kubernetes-int-or-string': true },
          embedded: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
        },
      },
    },
  });
  it('list types', () => {
    expect(at(t, ['spec', 'set'])?.list).toMatchObject({ atomic: false, keys: [] });
    expect(at(t, ['spec', 'map'])?.list).toMatchObject({ atomic: false, keys: ['a', 'b'] });
    expect(at(t, ['spec', 'atomic'])?.list?.atomic).toBe(true);
    expect(at(t, ['spec', 'plain'])?.list?.atomic).toBe(true);
  });

  it('map types, preserved unknown fields inherited by inline children, deduced int-or-string', () => {
    expect(at(t, ['spec', 'atomicMap'])?.map?.atomic).toBe(true);
    expect(at(t, ['spec', 'free'])?.map?.element).toBe(DEDUCED);
    expect(at(t, ['spec', 'free', 'inner'])?.map?.element).toBe(DEDUCED);
    expect(at(t, ['spec'])?.map?.element).toBeUndefined();
    expect(at(t, ['spec', 'intOrString'])).toBe(DEDUCED);
  });

  it('metadata is ObjectMeta, at the root and in embedded resources', () => {
    expect(at(t, ['metadata', 'finalizers'])?.list).toMatchObject({ atomic: false, keys: [] });
    expect(at(t, ['spec', 'embedded', 'metadata', 'ownerReferences'])?.list?.keys).toEqual(['uid']);
  });
});

describe('every served built-in kind has its recorded schema', () => {
  it('no kind the embedded server serves falls back to deduced types (a value struct would get a `.`)', async () => {
    const server = await startApiServer({ logger: { error: () => undefined } });
    try {
      const client = new AdminClient({ url: server.url, token: server.token });
      const groups = (await client.request('GET', '/apis')).body as {
        groups: { versions: { groupVersion: string }[] }[];
      };
      const paths = [
        '/api/v1',
        ...groups.groups.flatMap((g) => g.versions.map((v) => `/apis/${v.groupVersion}`)),
      ];
      const missing: string[] = [];
      for (const path of paths) {
        const list = (await client.request('GET', path)).body as {
          groupVersion: string;
          resources: { name: string; kind: string }[];
        };
        for (const r of list.resources)
          if (!r.name.includes('/') && kindType(list.groupVersion, r.kind) === DEDUCED)
            missing.push(`${list.groupVersion} ${r.kind}`);
      }
      expect(missing).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('a review kind: spec is a value struct, so a SelfSubjectAccessReview owns no `.` of it (authorization/v1 types.go)', () => {
    const t = kindType('authorization.k8s.io/v1', 'SelfSubjectAccessReview');
    expect(goForm(undefined, t)).toMatchObject({ spec: {}, status: { allowed: false } });
  });
});
