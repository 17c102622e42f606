/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
// metadata.generation per type, as measured on a real kube-apiserver v1.24 and written in the
// registry strategies: custom resources (apiextensions-apiserver/pkg/registry/customresource/strategy.go:
// everything but metadata, and but status when the status subresource is on), Deployments
// (pkg/registry/apps/deployment/strategy.go: spec or annotations), CRDs (spec), deletion with
// finalizers (apiserver/pkg/registry/generic/registry/store.go), types without generation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'gen';
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

async function installCrd(group: string, status: boolean): Promise<string> {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(status ? { subresources: { status: {} } } : {}),
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  expect(
    (await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd }))
      .status,
  ).toBe(201);
  const path = `/apis/${group}/v1/namespaces/${NS}/widgets`;
  for (let i = 0; i < 100 && (await call(server.url, 'GET', path)).status !== 200; i++) {
    await new Promise((r) => setImmediate(r));
  }
  return path;
}

/** Applies each merge patch in turn and answers the generation after each. */
async function generations(path: string, patches: [unknown, string?][]): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const [body, sub] of patches) {
    const r = await call(server.url, 'PATCH', `${path}${sub ?? ''}`, { body, contentType: MERGE });
    out.push(r.status === 200 ? r.body.metadata.generation : r.status);
  }
  return out;
}

const META_STEPS: [unknown, string?][] = [
  [{ metadata: { labels: { l: 'x' } } }],
  [{ metadata: { annotations: { n: 'x' } } }],
  [{ metadata: { finalizers: ['example.com/f'] } }],
];

describe('custom resources', () => {
  it('with a status subresource: spec changes bump, status and metadata do not, deletion does', async () => {
    const W = await installCrd('gs.example.com', true);
    await call(server.url, 'POST', W, {
      body: { apiVersion: 'gs.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { a: 1 } },
    });
    expect(
      await generations(`${W}/w`, [
        ...META_STEPS,
        [{ spec: { a: 2 } }],
        [{ status: { x: 1 } }],
        [{ status: { y: 2 } }, '/status'],
      ]),
    ).toEqual([1, 1, 1, 2, 2, 2]);
    expect((await call(server.url, 'DELETE', `${W}/w`)).body.metadata.generation).toBe(3);
  });

  it('without one: a status change bumps the generation like the spec', async () => {
    const W = await installCrd('gn.example.com', false);
    await call(server.url, 'POST', W, {
      body: { apiVersion: 'gn.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { a: 1 } },
    });
    expect(
      await generations(`${W}/w`, [...META_STEPS, [{ spec: { a: 2 } }], [{ status: { x: 1 } }]]),
    ).toEqual([1, 1, 1, 2, 3]);
  });
});

describe('built-in kinds', () => {
  it('Deployments: spec and annotation changes bump, labels and status do not; /scale bumps', async () => {
    const D = `/apis/apps/v1/namespaces/${NS}/deployments`;
    const dep = {
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    expect((await call(server.url, 'POST', D, { body: dep })).body.metadata.generation).toBe(1);
    expect(
      await generations(`${D}/d`, [
        [{ metadata: { labels: { l: 'x' } } }],
        [{ metadata: { annotations: { n: 'x' } } }],
        [{ metadata: { annotations: { n: 'x' } } }],
        [{ spec: { replicas: 3 } }],
        [{ status: { observedGeneration: 3 } }, '/status'],
        [{ spec: { replicas: 4 } }, '/scale'],
      ]),
    ).toEqual([1, 2, 2, 3, 3, undefined]);
    expect((await call(server.url, 'GET', `${D}/d`)).body.metadata.generation).toBe(4);
  });

  it('CRDs bump on spec changes only', async () => {
    await installCrd('gc.example.com', false);
    const C = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.gc.example.com';
    expect(await generations(C, [...META_STEPS, [{ spec: { names: { shortNames: ['wg'] } } }]])).toEqual([
      1, 1, 1, 2,
    ]);
  });

  it('ConfigMaps, Services, Namespaces and Leases have no generation', async () => {
    const cases: [string, unknown, unknown][] = [
      [
        `/api/v1/namespaces/${NS}/configmaps`,
        { metadata: { name: 'c' }, data: { a: '1' } },
        { data: { a: '2' } },
      ],
      [
        `/api/v1/namespaces/${NS}/services`,
        { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } },
        { spec: { ports: [{ port: 81 }] } },
      ],
      ['/api/v1/namespaces', { metadata: { name: 'gen-ns' } }, { metadata: { labels: { x: 'y' } } }],
      [
        `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`,
        { metadata: { name: 'l' }, spec: {} },
        { spec: { holderIdentity: 'y' } },
      ],
    ];
    for (const [path, body, patch] of cases) {
      const c = await call(server.url, 'POST', path, { body });
      const name = c.body.metadata.name as string;
      const r = await call(server.url, 'PATCH', `${path}/${name}`, { body: patch, contentType: MERGE });
      expect([c.body.metadata.generation, r.body.metadata.generation]).toEqual([undefined, undefined]);
    }
  });
});
