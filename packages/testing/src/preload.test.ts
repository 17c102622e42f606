/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
/**
 * Kinds added at start (`startApiServer({ kinds })`), CRDs and objects created at start
 * (`startApiServer({ crds, objects })`, `rxkube-apiserver -f`), and the errors that name what to fix.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseArgs } from './cli.js';
import { call } from './internal/test-client.js';
import { PreloadError, readManifests } from './preload.js';
import { KindDefinitionError } from './registry/custom-kinds.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

const quiet = { error: (): undefined => undefined };

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
      },
    ],
  },
};

describe('kinds added at start', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({
      logger: quiet,
      kinds: [
        {
          group: 'storage.k8s.io',
          version: 'v1',
          // a built-in the server does not serve (cluster-scoped, installed with a CSI driver)
          kind: 'CSIDriver',
          plural: 'csidrivers',
          shortNames: ['csid'],
          scope: 'Cluster',
          schema: {
            type: 'object',
            properties: {
              provisioner: { type: 'string' },
              parameters: { type: 'object', additionalProperties: { type: 'string' } },
            },
          },
        },
        {
          group: 'snapshot.example.com',
          version: 'v1',
          kind: 'Snapshot',
          plural: 'snapshots',
          scope: 'Namespaced',
          subresources: { status: true },
          printerColumns: [{ name: 'Source', type: 'string', jsonPath: '.spec.source' }],
        },
      ],
    });
  });
  afterAll(() => server.stop());

  it('serves them with discovery, as built-ins in a built-in group and as custom resources elsewhere', async () => {
    const storage = await call(server.url, 'GET', '/apis/storage.k8s.io/v1');
    // beside the served CSIStorageCapacity and StorageClass, in kube-apiserver's (alphabetical) order
    expect(storage.body.resources).toEqual([
      expect.objectContaining({
        name: 'csidrivers',
        singularName: '',
        namespaced: false,
        kind: 'CSIDriver',
        shortNames: ['csid'],
      }),
      expect.objectContaining({ name: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true }),
      expect.objectContaining({ name: 'storageclasses', kind: 'StorageClass', namespaced: false }),
    ]);
    const snap = await call(server.url, 'GET', '/apis/snapshot.example.com/v1');
    expect(snap.body.resources.map((r: any) => [r.name, r.singularName])).toEqual([
      ['snapshots', 'snapshot'],
      ['snapshots/status', ''],
    ]);
  });

  it('validates, prunes and strategic-merge-patches a built-in-group kind by its schema', async () => {
    const sc = '/apis/storage.k8s.io/v1/csidrivers';
    const bad = await call(server.url, 'POST', sc, { body: { metadata: { name: 'x' }, provisioner: 3 } });
    expect(bad.status).toBe(422);
    const created = await call(server.url, 'POST', sc, {
      body: { metadata: { name: 'fast' }, provisioner: 'p', typo: 1 },
    });
    expect(created.status).toBe(201);
    expect(created.body.typo).toBeUndefined();
    const patched = await call(server.url, 'PATCH', `${sc}/fast`, {
      contentType: 'application/strategic-merge-patch+json',
      body: { parameters: { type: 'ssd' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.parameters).toEqual({ type: 'ssd' });
  });

  it('keeps status apart behind the status subresource, counts generation, prints its columns, publishes OpenAPI', async () => {
    const path = '/apis/snapshot.example.com/v1/namespaces/default/snapshots';
    const created = await call(server.url, 'POST', path, {
      body: {
        apiVersion: 'snapshot.example.com/v1',
        kind: 'Snapshot',
        metadata: { name: 's' },
        spec: { source: 'pvc-a' },
        status: { ready: true },
      },
    });
    expect(created.body.status).toBeUndefined();
    expect(created.body.metadata.generation).toBe(1);
    const table = await call(server.url, 'GET', path, {
      accept: 'application/json;as=Table;g=meta.k8s.io;v=v1',
    });
    expect(table.body.rows[0].cells.slice(0, 2)).toEqual(['s', 'pvc-a']);
    const v3 = await call(server.url, 'GET', '/openapi/v3/apis/snapshot.example.com/v1');
    expect(
      v3.body.components.schemas['com.example.snapshot.v1.Snapshot']['x-kubernetes-group-version-kind'],
    ).toEqual([{ group: 'snapshot.example.com', kind: 'Snapshot', version: 'v1' }]);
  });

  it('refuses a definition that cannot be served, naming the field', async () => {
    await expect(
      startApiServer({
        logger: quiet,
        kinds: [
          { group: 'example.com', version: 'v1', kind: 'thing', plural: 'things', scope: 'Namespaced' },
        ],
      }),
    ).rejects.toThrow(
      new KindDefinitionError(
        'kinds[0] (thing): kind "thing" must be CamelCase, starting with an upper-case letter',
      ),
    );
    await expect(
      startApiServer({
        logger: quiet,
        kinds: [
          { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', scope: 'Namespaced' },
        ],
      }),
    ).rejects.toThrow('kinds[0] (Deployment): deployments.apps/v1 is already served; remove it from kinds');
  });
});

describe('CRDs and objects created at start', () => {
  it('creates the CRDs, waits until they are served, then the objects, Namespaces first', async () => {
    const server = await startApiServer({
      logger: quiet,
      crds: [widgetCrd],
      objects: [
        {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w', namespace: 'team' },
          spec: { size: 2 },
        },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } },
      ],
    });
    try {
      expect(server.object('widgets.example.com', 'team', 'w')?.['spec']).toEqual({ size: 2 });
      expect(server.object('configmaps', 'default', 'c')?.metadata.managedFields).toEqual([
        expect.objectContaining({ manager: 'rxkube-apiserver', operation: 'Update' }),
      ]);
    } finally {
      await server.stop();
    }
  });

  it('fails the start naming the object and the reason', async () => {
    await expect(
      startApiServer({
        logger: quiet,
        objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } }],
      }),
    ).rejects.toThrow(PreloadError);
    await expect(
      startApiServer({
        logger: quiet,
        objects: [{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }],
      }),
    ).rejects.toThrow(
      'objects[0] (Widget w): the server does not serve Widget in example.com/v1; list its CRD in crds (or -f), or add it with kinds',
    );
  });
});

describe('rxkube-apiserver -f', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-manifests-'));
    writeFileSync(join(dir, 'a-crd.yaml'), JSON.stringify(widgetCrd));
    writeFileSync(
      join(dir, 'b-objects.yaml'),
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: w, namespace: team}\n',
    );
    writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a folder: YAML streams, Lists expanded, CRDs apart, other files ignored', () => {
    const m = readManifests([dir]);
    expect(m.crds.map((c) => c.metadata.name)).toEqual(['widgets.example.com']);
    expect(m.objects.map((o) => `${String(o['kind'])}/${String(o.metadata.name)}`)).toEqual([
      'Namespace/team',
      'Widget/w',
    ]);
    expect(parseArgs(['-f', dir]).objects).toHaveLength(2);
  });

  it('names a missing path', () => {
    expect(() => parseArgs(['-f', join(dir, 'nope')])).toThrow(
      `-f ${join(dir, 'nope')}: no such file or folder`,
    );
  });
});
