import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { InvalidArgumentError } from '@rxkube/core';
import type { TestBackend } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';

import { KubeClient } from '../client/kube-client.js';
import type { KubeObject } from '../types.js';
import { CrdNotEstablishedError } from './crd-not-established-error.js';
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
} from './custom-resource-definition.js';
import { crdReadiness, ensureCrd } from './ensure-crd.js';
import { InvalidCrdError } from './invalid-crd-error.js';

let cluster: TestBackend;
let client: KubeClient;

const GADGET_YAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList }
  versions:
    - name: v1
      served: true
      storage: true
      subresources: { status: {} }
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              required: [size]
              properties:
                size: { type: integer, minimum: 1 }
            status:
              type: object
              properties:
                phase: { type: string }
`;

type Gadget = KubeObject<{ size: number; color?: string }, { phase?: string }>;

const CRDS = 'customresourcedefinitions.apiextensions.k8s.io';

async function crdOf(name: string): Promise<KubeObject | undefined> {
  return (await cluster.get(CRDS, undefined, name)) as KubeObject | undefined;
}

/** name → resourceVersion of every CRD: unchanged means nothing was written. */
async function crds(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const o of await cluster.list(CRDS)) out[o.metadata.name ?? ''] = o.metadata.resourceVersion ?? '';
  return out;
}

describeEachBackend(
  'ensureCrd against the API server',
  (b) => {
    beforeAll(() => {
      cluster = b.cluster;
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterAll(() => {
      client.close();
    });

    it('installs a CRD from YAML text, waits for Established, and the client serves the kind at once', async () => {
      const { crd, resources } = await ensureCrd(client, GADGET_YAML, { pollIntervalMs: 5 });
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
      expect(resources.map((r) => [r.group, r.version, r.plural, r.namespaced])).toEqual([
        ['example.com', 'v1', 'gadgets', true],
      ]);
      const created = await client.create<Gadget>({
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g1', namespace: 'default' },
        spec: { size: 2 },
      });
      expect(created.metadata.uid).toBeTruthy();
      // written by server-side apply, as the field manager
      const managers = ((await crdOf('gadgets.example.com'))?.metadata.managedFields ?? []) as {
        manager: string;
        operation: string;
      }[];
      expect(managers).toContainEqual(expect.objectContaining({ manager: 'rxkube', operation: 'Apply' }));
    });

    it('updates an existing CRD: a new field is kept and a new version is served when it resolves', async () => {
      const v1 = stringify({
        ...parseGadget(),
      });
      await ensureCrd(client, v1, { pollIntervalMs: 5 });
      const updated = parseGadget();
      const v1Schema = updated.spec.versions[0]?.schema?.openAPIV3Schema;
      (v1Schema!.properties!['spec']!.properties ??= {})['color'] = { type: 'string' };
      updated.spec.versions.push({
        ...structuredClone(updated.spec.versions[0]!),
        name: 'v2',
        storage: false,
      });
      const { resources, crd } = await ensureCrd(client, updated, {
        fieldManager: 'gadget-operator',
        pollIntervalMs: 5,
      });
      expect(resources.map((r) => r.version)).toEqual(['v1', 'v2']);
      expect(crd.spec.versions.map((v) => v.name)).toEqual(['v1', 'v2']);
      const g = await client.create<Gadget>({
        apiVersion: 'example.com/v2',
        kind: 'Gadget',
        metadata: { name: 'g2', namespace: 'default' },
        spec: { size: 3, color: 'red' },
      });
      expect(g.spec?.color).toBe('red'); // not pruned: the new schema is in force
    });

    it('reads a file path', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'rxkube-crd-'));
      try {
        const file = join(dir, 'crd.yaml');
        await writeFile(
          file,
          GADGET_YAML.replaceAll('gadget', 'doohickey').replaceAll('Gadget', 'Doohickey'),
        );
        const { resources } = await ensureCrd(client, file, { pollIntervalMs: 5 });
        expect(resources[0]?.plural).toBe('doohickeys');
        await expect(ensureCrd(client, join(dir, 'missing.yaml'))).rejects.toThrow(
          /reading it failed: ENOENT/,
        );
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('refuses an invalid CRD locally, naming every field, without sending anything', async () => {
      const before = await crds();
      const bad = parseGadget();
      bad.metadata.name = 'gadgets.wrong.com';
      bad.spec.scope = 'Namespace' as 'Namespaced';
      bad.spec.versions.push({ name: 'v2', served: false, storage: true });
      const e = await ensureCrd(client, bad).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InvalidCrdError);
      const err = e as InvalidCrdError;
      expect(err.source).toBe('local');
      expect(err.causes.map((c) => c.field)).toEqual([
        'metadata.name',
        'spec.scope',
        'spec.versions[1].schema.openAPIV3Schema',
        'spec.versions',
      ]);
      expect(err.message).toContain(
        'must be spec.names.plural + "." + spec.group = "gadgets.example.com"; got "gadgets.wrong.com"',
      );
      expect(err.message).toContain('must have exactly one version marked storage: true; found 2');
      expect(await crds()).toEqual(before);
    });

    it('reports a 422 of the server as InvalidCrdError with the server causes', async () => {
      // Only the server checks the 253-character limit of metadata.name.
      const group = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(52)}.example.com`;
      const bad = parseGadget();
      bad.spec.group = group;
      bad.spec.names = { plural: 'widgets', kind: 'Widget' };
      bad.metadata.name = `widgets.${group}`;
      expect(bad.metadata.name.length).toBeGreaterThan(253);
      const e = await ensureCrd(client, bad).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InvalidCrdError);
      const err = e as InvalidCrdError;
      expect(err.source).toBe('server');
      expect(err.causes.length).toBeGreaterThan(0);
      expect(err.causes).toEqual([
        {
          field: 'metadata.name',
          reason: 'FieldValueInvalid',
          message: expect.stringContaining('must be no more than 253 characters') as string,
        },
      ]);
      expect(err.message).toContain('refused by the API server (422 Invalid)');
      expect(err.cause).toBeDefined();
      expect(await crdOf(bad.metadata.name)).toBeUndefined();
    });

    it('rejects with NamesNotAccepted and the condition message when the kind is taken in the group', async () => {
      const clash = parseGadget();
      clash.metadata.name = 'gizmos.example.com';
      clash.spec.names = { plural: 'gizmos', kind: 'Gadget' };
      const e = await ensureCrd(client, clash, { pollIntervalMs: 5 }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(CrdNotEstablishedError);
      expect((e as CrdNotEstablishedError).reason).toBe('NamesNotAccepted');
      // the list kind is checked last and its conflict reported (apiextensions-apiserver's
      // pkg/controller/status/naming_controller.go)
      expect((e as CrdNotEstablishedError).detail).toBe('"GadgetList" is already in use');
    });

    it('refuses malformed input and options with InvalidArgumentError', async () => {
      await expect(ensureCrd(client, 'a: [1\nb: 2')).rejects.toThrow(/must be valid YAML/);
      await expect(ensureCrd(client, `${GADGET_YAML}\n---\n${GADGET_YAML}`)).rejects.toThrow(
        /exactly one YAML document.*it has 2/,
      );
      await expect(ensureCrd(client, GADGET_YAML, { timeoutMs: 0 })).rejects.toThrow(InvalidArgumentError);
      await expect(ensureCrd(client, '- a\n- b\n')).rejects.toThrow(/must be a YAML mapping/);
    });
  },
  // no controller of kube-controller-manager takes part: the API server alone, as envtest's default
  { controllerManager: false },
);

describe('crdReadiness', () => {
  const base = parseGadget();
  const withConditions = (
    conditions: CustomResourceDefinitionCondition[] | null,
  ): CustomResourceDefinition => ({
    ...base,
    status: { conditions },
  });
  it('waits while the server has not set conditions', () => {
    expect(crdReadiness(withConditions(null))).toEqual({
      state: 'waiting',
      waitingFor: 'the API server has not set the Established condition yet',
    });
  });
  it('waits while Established is False, saying why', () => {
    expect(
      crdReadiness(
        withConditions([
          { type: 'NamesAccepted', status: 'True' },
          {
            type: 'Established',
            status: 'False',
            reason: 'Installing',
            message: 'the initial names have been accepted',
          },
        ]),
      ),
    ).toEqual({
      state: 'waiting',
      waitingFor: 'Established is False (Installing: the initial names have been accepted)',
    });
  });
  it('is rejected when NamesAccepted is False, even if Established is stale True', () => {
    expect(
      crdReadiness(
        withConditions([
          {
            type: 'NamesAccepted',
            status: 'False',
            reason: 'NameConflict',
            message: '"gizmos" is already in use',
          },
          { type: 'Established', status: 'True' },
        ]),
      ),
    ).toEqual({ state: 'rejected', message: '"gizmos" is already in use' });
  });
  it('is established when Established is True', () => {
    expect(crdReadiness(withConditions([{ type: 'Established', status: 'True' }]))).toEqual({
      state: 'established',
    });
  });
});

function parseGadget(): CustomResourceDefinition {
  return parseYaml(GADGET_YAML) as CustomResourceDefinition;
}
