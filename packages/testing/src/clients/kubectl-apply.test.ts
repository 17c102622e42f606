/**
 * `kubectl apply --server-side` (the binary of this machine, its default flags) against each test
 * backend: creation, a conflict between field managers and `--force-conflicts`, the migration of a
 * client-side-applied object (kubectl 1.32 upgrades its managedFields with a JSON patch, the
 * v1.24 server forgives kubectl's conflicts on last-applied fields: `lastappliedmanager.go`),
 * containers merged by key across managers, and CRD conditions applied through `--subresource=status`
 * by two managers. Every expectation was read from a real kube-apiserver v1.24 and holds on both
 * backends.
 */
import { expect } from 'vitest';

import type { KObj } from '../store/object.js';
import { kubectlSuite } from './suite.js';

const NS = 'ssa-kubectl';

/**
 * managedFields without times, by manager; the real backend's kube-controller-manager writes
 * Deployment statuses (the embedded server does not simulate rollouts here), so its entry is left out.
 */
function owners(obj: KObj | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of (obj?.metadata.managedFields ?? []) as Record<string, unknown>[]) {
    if (e['manager'] === 'kube-controller-manager') continue;
    const sub = typeof e['subresource'] === 'string' ? `/${e['subresource']}` : '';
    out[`${String(e['manager'])} ${String(e['operation'])}${sub}`] = e['fieldsV1'];
  }
  return out;
}

const configMap = (data: Record<string, string>): string =>
  [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: cm',
    `  namespace: ${NS}`,
    'data:',
    ...Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`),
  ].join('\n');

const WIDGETS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
          status:
            type: object
            properties:
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type, status]
                  properties:
                    type: {type: string}
                    status: {type: string}
`;

// kubectl validates a manifest on the client: each manager's Deployment names the selector too
const deployment = (container: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${NS}
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
${container}`;

kubectlSuite('kubectl apply --server-side', {}, (it) => {
  it('creates an object owned by the manager kubectl', async ({ kubectl, cluster }) => {
    expect((await kubectl.run(['create', 'namespace', NS])).code).toBe(0);
    const r = await kubectl.run(['apply', '--server-side', '-f', '-'], {
      input: configMap({ a: '1', b: '1' }),
    });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'configmap/cm serverside-applied\n', '']);
    expect(owners(await cluster.get('configmaps', NS, 'cm'))).toEqual({
      'kubectl Apply': { 'f:data': { 'f:a': {}, 'f:b': {} } },
    });
  });

  it('another manager changing a value conflicts; --force-conflicts takes it over', async ({
    kubectl,
    cluster,
  }) => {
    const other = ['apply', '--server-side', '--field-manager=other', '-f', '-'];
    const refused = await kubectl.run(other, { input: configMap({ a: '9' }) });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: Apply failed with 1 conflict: conflict with "kubectl": .data.a\n',
    );
    expect(refused.stderr).toContain('re-run the apply\n  command with the `--force-conflicts` flag.');
    const forced = await kubectl.run([...other, '--force-conflicts'], { input: configMap({ a: '9' }) });
    expect([forced.code, forced.stdout]).toEqual([0, 'configmap/cm serverside-applied\n']);
    const cm = await cluster.get('configmaps', NS, 'cm');
    expect(cm?.['data']).toEqual({ a: '9', b: '1' });
    expect(owners(cm)).toEqual({
      'kubectl Apply': { 'f:data': { 'f:b': {} } },
      'other Apply': { 'f:data': { 'f:a': {} } },
    });
  });

  it('after client-side apply: no conflict on last-applied fields, managedFields migrated', async ({
    kubectl,
    cluster,
  }) => {
    const manifest = (a: string): string => configMap({ a, b: '1' }).replaceAll('name: cm', 'name: csa');
    const csa = await kubectl.run(['apply', '-f', '-'], { input: manifest('1') });
    expect([csa.code, csa.stdout]).toEqual([0, 'configmap/csa created\n']);
    expect(owners(await cluster.get('configmaps', NS, 'csa'))).toEqual({
      'kubectl-client-side-apply Update': {
        'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
        'f:metadata': {
          'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
        },
      },
    });
    const ssa = await kubectl.run(['apply', '--server-side', '-f', '-'], { input: manifest('2') });
    expect([ssa.code, ssa.stdout, ssa.stderr]).toEqual([0, 'configmap/csa serverside-applied\n', '']);
    const cm = await cluster.get('configmaps', NS, 'csa');
    expect(cm?.['data']).toEqual({ a: '2', b: '1' });
    // lastappliedupdater.go keeps the annotation following what kubectl applies
    expect(cm?.metadata.annotations).toEqual({
      'kubectl.kubernetes.io/last-applied-configuration': `{"apiVersion":"v1","data":{"a":"2","b":"1"},"kind":"ConfigMap","metadata":{"name":"csa","namespace":"${NS}"}}\n`,
    });
    expect(owners(cm)).toEqual({
      'kubectl Apply': { 'f:data': { 'f:a': {}, 'f:b': {} } },
      'kubectl-last-applied Apply': {
        'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
      },
    });
  });

  it('two managers add ports and env to the same container: merged by key', async ({ kubectl, cluster }) => {
    const a = deployment(
      '      - name: app\n        image: nginx:1\n        ports:\n        - containerPort: 80\n        env:\n        - {name: A, value: "1"}\n',
    );
    const b = deployment(
      '      - name: app\n        ports:\n        - {containerPort: 8080, name: metrics}\n        env:\n        - {name: B, value: "2"}\n',
    );
    for (const [manager, manifest] of [
      ['team-a', a],
      ['team-b', b],
    ] as const) {
      const r = await kubectl.run(['apply', '--server-side', `--field-manager=${manager}`, '-f', '-'], {
        input: manifest,
      });
      expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deployment.apps/web serverside-applied\n', '']);
    }
    const d = await cluster.get('deployments.apps', NS, 'web');
    const spec = d?.['spec'] as { template: { spec: { containers: Record<string, unknown>[] } } };
    expect(spec.template.spec.containers.map((c) => [c['image'], c['ports'], c['env']])).toEqual([
      [
        'nginx:1',
        [
          { containerPort: 80, protocol: 'TCP' },
          { containerPort: 8080, name: 'metrics', protocol: 'TCP' },
        ],
        [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      ],
    ]);
    const container = (own: Record<string, unknown>): unknown => ({
      'f:spec': {
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:name': {}, ...own } } },
        },
      },
    });
    expect(owners(d)).toEqual({
      'team-a Apply': container({
        'f:image': {},
        'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
        'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
      }),
      'team-b Apply': container({
        'f:env': { 'k:{"name":"B"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
        'f:ports': {
          'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:name': {} },
        },
      }),
    });
  });

  it('--subresource=status by two managers: conditions merged by type', async ({ kubectl, cluster }) => {
    expect((await kubectl.run(['apply', '--server-side', '-f', '-'], { input: WIDGETS })).code).toBe(0);
    const established = await kubectl.run([
      'wait',
      '--for=condition=Established',
      'crd/gadgets.example.com',
      '--timeout=30s',
    ]);
    expect(established.code, established.stderr).toBe(0);
    const gadget = (body: string): string =>
      `apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: ${NS}\n${body}`;
    // discovery of the new group may lag behind Established: retry the first apply until it maps
    let created = await kubectl.run(['apply', '--server-side', '-f', '-'], {
      input: gadget('spec:\n  size: 1\n'),
    });
    for (let i = 0; i < 20 && created.stderr.includes('no matches for kind'); i++)
      created = await kubectl.run(['apply', '--server-side', '-f', '-'], {
        input: gadget('spec:\n  size: 1\n'),
      });
    expect([created.code, created.stderr]).toEqual([0, '']);
    for (const [manager, type, status] of [
      ['ready', 'Ready', 'True'],
      ['synced', 'Synced', 'False'],
    ] as const) {
      const r = await kubectl.run(
        ['apply', '--server-side', '--subresource=status', `--field-manager=${manager}`, '-f', '-'],
        { input: gadget(`status:\n  conditions:\n  - {type: ${type}, status: "${status}"}\n`) },
      );
      expect([r.code, r.stdout, r.stderr]).toEqual([0, 'gadget.example.com/g serverside-applied\n', '']);
    }
    const g = await cluster.get('gadgets.example.com', NS, 'g');
    expect(g?.['status']).toEqual({
      conditions: [
        { status: 'True', type: 'Ready' },
        { status: 'False', type: 'Synced' },
      ],
    });
    const condition = (type: string): unknown => ({
      'f:status': { 'f:conditions': { [`k:{"type":"${type}"}`]: { '.': {}, 'f:status': {}, 'f:type': {} } } },
    });
    expect(owners(g)).toEqual({
      'kubectl Apply': { 'f:spec': { 'f:size': {} } },
      'ready Apply/status': condition('Ready'),
      'synced Apply/status': condition('Synced'),
    });
  }, 60_000);
});
