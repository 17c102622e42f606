/**
 * `kubectl apply --server-side` (an Apply patch: `application/apply-patch+yaml`), conflicts between
 * field managers and `--force-conflicts`, the migration of a client-side applied object to
 * server-side apply (kubectl's `csaupgrade`: `k8s.io/client-go/util/csaupgrade/upgrade.go`, a JSON
 * patch of `managedFields` before the apply), and `--dry-run=server`, on each test backend; outputs
 * recorded with `same()` are compared between the backends at the end.
 */
import { expect } from 'vitest';

import type { ManagedFieldsEntry } from '../apply/field-manager.js';
import type { KObj } from '../store/object.js';
import type { Kubectl } from './kubectl.js';
import { kubectlSuite } from './suite.js';

const NS = 'ssa';

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, ...(Object.keys(labels).length > 0 ? { labels } : {}) },
    data,
  });

/** Managers of an object and the operation of each, in the server's order. */
async function managers(kubectl: Kubectl, name: string): Promise<string[]> {
  const cm = await kubectl.json<KObj>(['get', 'configmap', name, '-n', NS, '--show-managed-fields']);
  return ((cm.metadata.managedFields ?? []) as ManagedFieldsEntry[]).map(
    (m) => `${m.manager ?? ''}/${m.operation ?? ''}`,
  );
}

/** The fields a manager owns, as the server reports them. */
async function owned(kubectl: Kubectl, name: string, manager: string): Promise<unknown> {
  const cm = await kubectl.json<KObj>(['get', 'configmap', name, '-n', NS, '--show-managed-fields']);
  return (cm.metadata.managedFields as ManagedFieldsEntry[] | undefined)?.find((m) => m.manager === manager)
    ?.fieldsV1;
}

// apply/apply.go: the conflict message kubectl prints around the server's Status
const conflictHelp = (what: string, fields: string): string =>
  `error: Apply failed with ${what}: ${fields}
Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the \`--force-conflicts\` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: racks.example.com}
spec:
  group: example.com
  names: {kind: Rack, plural: racks, singular: rack}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              slots:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    size: {type: integer}
              tags:
                type: array
                x-kubernetes-list-type: atomic
                items: {type: string}
`;

const rack = (slots: string, tags: string): string =>
  `apiVersion: example.com/v1\nkind: Rack\nmetadata: {name: r, namespace: ${NS}}\nspec: {slots: ${slots}${tags === '' ? '' : `, tags: ${tags}`}}\n`;

kubectlSuite('kubectl apply --server-side', {}, (it) => {
  it('creates, then applies again unchanged, owned by the "kubectl" Apply manager', async ({
    kubectl,
    cluster,
    same,
  }) => {
    expect((await kubectl.run(['create', 'namespace', NS])).code).toBe(0);
    const file = kubectl.file('a.json', configMap('a', { k: 'v', shared: 'x' }, { app: 'a' }));
    const r = await kubectl.run(['apply', '--server-side', '-f', file]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'configmap/a serverside-applied\n', '']);
    const again = await kubectl.run(['apply', '--server-side', '-f', file]);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, 'configmap/a serverside-applied\n', '']);
    expect(await managers(kubectl, 'a')).toEqual(['kubectl/Apply']);
    expect(await owned(kubectl, 'a', 'kubectl')).toEqual({
      'f:data': { 'f:k': {}, 'f:shared': {} },
      'f:metadata': { 'f:labels': { 'f:app': {} } },
    });
    // server-side apply writes no last-applied annotation
    expect((await cluster.get('configmaps', NS, 'a'))?.metadata.annotations).toBeUndefined();
    same('created', r.stdout + again.stdout);
  });

  it('another manager changing an owned field is a conflict (exit 1) naming field and manager', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const file = kubectl.file('b.json', configMap('a', { shared: 'y', other: 'o' }));
    const r = await kubectl.run(['apply', '--server-side', '--field-manager=other', '-f', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(conflictHelp('1 conflict', 'conflict with "kubectl": .data.shared'));
    // nothing written
    expect((await cluster.get('configmaps', NS, 'a'))?.['data']).toEqual({ k: 'v', shared: 'x' });
    // the same value is no conflict: both managers own it
    const coOwn = kubectl.file('c.json', configMap('a', { shared: 'x', other: 'o' }));
    const ok = await kubectl.run(['apply', '--server-side', '--field-manager=other', '-f', coOwn]);
    expect([ok.code, ok.stdout, ok.stderr]).toEqual([0, 'configmap/a serverside-applied\n', '']);
    expect(await managers(kubectl, 'a')).toEqual(['kubectl/Apply', 'other/Apply']);
    expect(await owned(kubectl, 'a', 'other')).toEqual({ 'f:data': { 'f:other': {}, 'f:shared': {} } });
    same('conflict', r.stderr + ok.stdout);
  });

  it('--force-conflicts takes the field over; the first manager no longer owns it', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const file = kubectl.file('b.json', configMap('a', { shared: 'y', other: 'o' }));
    const r = await kubectl.run([
      'apply',
      '--server-side',
      '--field-manager=other',
      '--force-conflicts',
      '-f',
      file,
    ]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'configmap/a serverside-applied\n', '']);
    expect((await cluster.get('configmaps', NS, 'a'))?.['data']).toEqual({ k: 'v', shared: 'y', other: 'o' });
    expect(await owned(kubectl, 'a', 'kubectl')).toEqual({
      'f:data': { 'f:k': {} },
      'f:metadata': { 'f:labels': { 'f:app': {} } },
    });
    // kubectl's manifest without `shared`: the field stays, as "other" owns it
    const smaller = kubectl.file('a.json', configMap('a', { k: 'v' }, { app: 'a' }));
    const applied = await kubectl.run(['apply', '--server-side', '-f', smaller]);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await cluster.get('configmaps', NS, 'a'))?.['data']).toEqual({ k: 'v', shared: 'y', other: 'o' });
    // a field only kubectl owned and its manifest drops is removed
    const fewer = kubectl.file('a.json', configMap('a', {}, { app: 'a' }));
    expect((await kubectl.run(['apply', '--server-side', '-f', fewer])).code).toBe(0);
    expect((await cluster.get('configmaps', NS, 'a'))?.['data']).toEqual({ shared: 'y', other: 'o' });
    same('force', r.stdout + applied.stdout);
  });

  it('a client-side applied object moves to server-side apply: kubectl takes over its fields', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const v1 = kubectl.file('m.json', configMap('m', { a: '1', b: '2' }, { app: 'm' }));
    const csa = await kubectl.run(['apply', '-f', v1]);
    expect([csa.code, csa.stdout, csa.stderr]).toEqual([0, 'configmap/m created\n', '']);
    expect(await managers(kubectl, 'm')).toEqual(['kubectl-client-side-apply/Update']);
    // the same manifest server-side: kubectl applies it, applies the last-applied annotation as
    // "kubectl-last-applied", then rewrites managedFields (csaupgrade: the client-side manager's
    // fields become kubectl's Apply) and applies again, so nothing conflicts
    const ssa = await kubectl.run(['apply', '--server-side', '-f', v1]);
    expect([ssa.code, ssa.stdout, ssa.stderr]).toEqual([0, 'configmap/m serverside-applied\n', '']);
    expect(await managers(kubectl, 'm')).toEqual(['kubectl/Apply', 'kubectl-last-applied/Apply']);
    expect(await owned(kubectl, 'm', 'kubectl')).toEqual({
      'f:data': { 'f:a': {}, 'f:b': {} },
      'f:metadata': { 'f:labels': { 'f:app': {} } },
    });
    expect(await owned(kubectl, 'm', 'kubectl-last-applied')).toEqual({
      'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
    });
    // the proof of the takeover: a field dropped from the manifest is removed
    const v2 = kubectl.file('m.json', configMap('m', { a: '1' }, { app: 'm' }));
    const dropped = await kubectl.run(['apply', '--server-side', '-f', v2]);
    expect([dropped.code, dropped.stdout, dropped.stderr]).toEqual([
      0,
      'configmap/m serverside-applied\n',
      '',
    ]);
    const live = await cluster.get('configmaps', NS, 'm');
    expect(live?.['data']).toEqual({ a: '1' });
    expect(live?.metadata.labels).toEqual({ app: 'm' });
    // kept in step with the manifest, for a later client-side apply
    expect(
      JSON.parse(live?.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? ''),
    ).toEqual(JSON.parse(configMap('m', { a: '1' }, { app: 'm' })));
    same('migration', csa.stdout + ssa.stdout + dropped.stdout);
  });

  it('--dry-run=server answers what apply would do and stores nothing', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const d = kubectl.file('d.json', configMap('d', { a: '1' }));
    expect((await kubectl.run(['apply', '--server-side', '-f', d])).code).toBe(0);
    const before = await cluster.get('configmaps', NS, 'd');
    const file = kubectl.file('d-dry.json', configMap('d', { a: 'dry' }));
    const r = await kubectl.run([
      'apply',
      '--server-side',
      '--dry-run=server',
      '-f',
      file,
      '-o',
      'jsonpath={.data.a}',
    ]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'dry', '']);
    const fresh = kubectl.file('n-dry.json', configMap('n', { a: 'dry' }));
    const created = await kubectl.run(['apply', '--server-side', '--dry-run=server', '-f', fresh]);
    expect([created.code, created.stdout, created.stderr]).toEqual([
      0,
      'configmap/n serverside-applied (server dry run)\n',
      '',
    ]);
    const csa = await kubectl.run(['apply', '--dry-run=server', '-f', fresh]);
    expect([csa.code, csa.stdout, csa.stderr]).toEqual([0, 'configmap/n created (server dry run)\n', '']);
    expect(await cluster.get('configmaps', NS, 'n')).toBeUndefined();
    const after = await cluster.get('configmaps', NS, 'd');
    expect(after?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    expect(after?.['data']).toEqual({ a: '1' });
    same('dry run', r.stdout + created.stdout + csa.stdout);
  });

  // structured-merge-diff: x-kubernetes-list-type of a CRD schema (apiextensions' schema to SMD types)
  it('list-type map entries of two managers merge by key; an atomic list conflicts (CRD schema)', async ({
    kubectl,
    cluster,
    same,
  }) => {
    expect(
      (await kubectl.run(['apply', '--server-side', '-f', kubectl.file('rack-crd.yaml', CRD)])).code,
    ).toBe(0);
    const established = await kubectl.run([
      'wait',
      '--for=condition=Established',
      'crd/racks.example.com',
      '--timeout=60s',
    ]);
    expect(established.code, established.stderr).toBe(0);
    const a = await kubectl.run([
      'apply',
      '--server-side',
      '--field-manager=a',
      '-f',
      kubectl.file('rack-a.yaml', rack('[{name: one, size: 1}]', '[x]')),
    ]);
    expect([a.code, a.stdout, a.stderr]).toEqual([0, 'rack.example.com/r serverside-applied\n', '']);
    const b = await kubectl.run([
      'apply',
      '--server-side',
      '--field-manager=b',
      '-f',
      kubectl.file('rack-b.yaml', rack('[{name: two, size: 2}]', '')),
    ]);
    expect([b.code, b.stdout, b.stderr]).toEqual([0, 'rack.example.com/r serverside-applied\n', '']);
    expect((await cluster.get('racks.example.com', NS, 'r'))?.['spec']).toEqual({
      slots: [
        { name: 'one', size: 1 },
        { name: 'two', size: 2 },
      ],
      tags: ['x'],
    });
    // an atomic list is owned whole: another value is a conflict on the list itself
    const tags = await kubectl.run([
      'apply',
      '--server-side',
      '--field-manager=b',
      '-f',
      kubectl.file('rack-b.yaml', rack('[{name: two, size: 2}]', '[q]')),
    ]);
    expect(tags.code).toBe(1);
    expect(tags.stderr).toBe(conflictHelp('1 conflict', 'conflict with "a": .spec.tags'));
    // a drops its entry: only b's stays
    const dropped = await kubectl.run([
      'apply',
      '--server-side',
      '--field-manager=a',
      '-f',
      kubectl.file('rack-a.yaml', rack('[]', '[x]')),
    ]);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect((await cluster.get('racks.example.com', NS, 'r'))?.['spec']).toEqual({
      slots: [{ name: 'two', size: 2 }],
      tags: ['x'],
    });
    same('list types', a.stdout + b.stdout + tags.stderr);
  });
});
