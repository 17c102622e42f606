/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
/**
 * ResourceQuota and LimitRange (issue 18 §8) on both backends: served, with the defaults
 * kube-apiserver v1.24 stores (the expected specs below were read from the real server), listed,
 * and applied again without a change.
 */
import { beforeAll, expect, it } from 'vitest';

import { call } from '../../internal/test-client.js';
import { describeEachBackend } from '../../vitest/describe-each-backend.js';

const NS = 'namespace-policy';
const LIMITS = `/api/v1/namespaces/${NS}/limitranges`;
const QUOTAS = `/api/v1/namespaces/${NS}/resourcequotas`;

/** A LimitRange item as applied, and as the real server stores it. */
const ITEMS: readonly [string, Record<string, unknown>, Record<string, unknown>][] = [
  [
    'max only',
    { type: 'Container', max: { cpu: '1' } },
    { type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } },
  ],
  [
    'min only',
    { type: 'Container', min: { cpu: '100m' } },
    { type: 'Container', min: { cpu: '100m' }, defaultRequest: { cpu: '100m' } },
  ],
  [
    'min and max',
    { type: 'Container', min: { cpu: '100m' }, max: { cpu: '2' } },
    {
      type: 'Container',
      min: { cpu: '100m' },
      max: { cpu: '2' },
      default: { cpu: '2' },
      defaultRequest: { cpu: '2' },
    },
  ],
  [
    'default only',
    { type: 'Container', default: { cpu: '1' }, maxLimitRequestRatio: { cpu: '2' } },
    {
      type: 'Container',
      default: { cpu: '1' },
      defaultRequest: { cpu: '1' },
      maxLimitRequestRatio: { cpu: '2' },
    },
  ],
  [
    'both given',
    {
      type: 'Container',
      default: { cpu: '500m', memory: '256Mi' },
      defaultRequest: { cpu: '100m', memory: '128Mi' },
    },
    {
      type: 'Container',
      default: { cpu: '500m', memory: '256Mi' },
      defaultRequest: { cpu: '100m', memory: '128Mi' },
    },
  ],
  ['a Pod item (no defaults)', { type: 'Pod', max: { cpu: '2' } }, { type: 'Pod', max: { cpu: '2' } }],
  [
    'a claim item (no defaults)',
    { type: 'PersistentVolumeClaim', min: { storage: '1Gi' } },
    { type: 'PersistentVolumeClaim', min: { storage: '1Gi' } },
  ],
];

describeEachBackend('ResourceQuota and LimitRange', (b) => {
  const auth = () => ({
    headers: { Authorization: `Bearer ${b.cluster.token}` },
    ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
  });
  const send = (method: string, path: string, body?: unknown, contentType?: string) =>
    call(b.cluster.url, method, path, {
      ...(body !== undefined ? { body } : {}),
      ...(contentType ? { contentType } : {}),
      ...auth(),
    });

  beforeAll(async () => {
    expect((await send('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });

  it.each(ITEMS.map(([name, item, stored], i) => [name, item, stored, i] as const))(
    'a LimitRange with %s is stored with the server defaults',
    async (_name, item, stored, i) => {
      const r = await send('POST', LIMITS, {
        apiVersion: 'v1',
        kind: 'LimitRange',
        metadata: { name: `lr-${i}` },
        spec: { limits: [item] },
      });
      expect(r.status, r.text).toBe(201);
      expect(r.body.spec).toEqual({ limits: [stored] });
    },
  );

  it('serves ResourceQuota with an empty status at create, lists both kinds, and a re-apply changes nothing', async () => {
    const created = await send('POST', QUOTAS, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { pods: '10' } },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.spec).toEqual({ hard: { pods: '10' } });
    expect(created.body.status).toEqual({});
    const list = await send('GET', LIMITS);
    expect([list.status, list.body.kind]).toEqual([200, 'LimitRangeList']);
    expect((await send('GET', QUOTAS)).body.kind).toBe('ResourceQuotaList');
    const apply = (name: string) =>
      send(
        'PATCH',
        `${LIMITS}/${name}?fieldManager=op&force=true`,
        {
          apiVersion: 'v1',
          kind: 'LimitRange',
          metadata: { name },
          spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] },
        },
        'application/apply-patch+yaml',
      );
    const first = await apply('applied');
    expect(first.status, first.text).toBe(201);
    const again = await apply('applied');
    expect(again.status, again.text).toBe(200);
    // unchanged, unless the apply fell in a later second than the first: then the real server moves
    // the managedFields time of a defaulted atomic list, and with it the resourceVersion (README)
    const timeMoved =
      again.body.metadata.managedFields?.[0]?.time !== first.body.metadata.managedFields?.[0]?.time;
    expect(again.body.metadata.resourceVersion === first.body.metadata.resourceVersion || timeMoved).toBe(
      true,
    );
    expect(again.body.spec).toEqual({
      limits: [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } }],
    });
  });

  it('a Pod created in a namespace with a LimitRange gets its defaults and the limit-ranger annotation (LimitRanger)', async () => {
    const ns = `${NS}-pods`;
    expect((await send('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    const lr = await send('POST', `/api/v1/namespaces/${ns}/limitranges`, {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'defaults' },
      spec: {
        limits: [
          {
            type: 'Container',
            default: { cpu: '500m', memory: '256Mi' },
            defaultRequest: { cpu: '100m', memory: '128Mi' },
          },
        ],
      },
    });
    expect(lr.status, lr.text).toBe(201);
    const pod = await send('POST', `/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        initContainers: [{ name: 'init', image: 'example.com/init:1' }],
        containers: [
          { name: 'a', image: 'example.com/a:1' },
          { name: 'b', image: 'example.com/b:1', resources: { requests: { cpu: '200m' } } },
          { name: 'c', image: 'example.com/c:1', resources: { limits: { cpu: '1' } } },
        ],
      },
    });
    expect(pod.status, pod.text).toBe(201);
    expect(pod.body.metadata.annotations).toEqual({
      'kubernetes.io/limit-ranger':
        'LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for container a; memory request for container b; cpu, memory limit for container b; memory request for container c; memory limit for container c; cpu, memory request for init container init; cpu, memory limit for init container init',
    });
    const resources = (list: { name: string; resources: unknown }[]) =>
      Object.fromEntries(list.map((c) => [c.name, c.resources]));
    expect(resources(pod.body.spec.containers)).toEqual({
      a: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
      b: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '200m', memory: '128Mi' } },
      // SetDefaults_Pod copied the cpu limit into the requests before LimitRanger ran
      c: { limits: { cpu: '1', memory: '256Mi' }, requests: { cpu: '1', memory: '128Mi' } },
    });
    expect(resources(pod.body.spec.initContainers)).toEqual({
      init: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    });
    expect(pod.body.status.qosClass).toBe('Burstable');
    // a namespace without LimitRanges leaves Pods as they are
    const bare = `${NS}-bare`;
    expect((await send('POST', '/api/v1/namespaces', { metadata: { name: bare } })).status).toBe(201);
    const plain = await send('POST', `/api/v1/namespaces/${bare}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'plain' },
      spec: {
        containers: [
          { name: 'a', image: 'example.com/a:1' },
          { name: 'l', image: 'example.com/l:1', resources: { limits: { cpu: '1', memory: '1Gi' } } },
        ],
      },
    });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.metadata.annotations).toBeUndefined();
    expect(resources(plain.body.spec.containers)).toEqual({
      a: {},
      l: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } },
    });
  });
});
