/**
 * `kubectl apply -f` (client-side: the last-applied annotation and the three-way merge of
 * `k8s.io/kubectl/pkg/cmd/apply/patcher.go` — strategic merge for built-in kinds, JSON merge for
 * custom resources), `apply -f dir/`, `create -f`, `replace -f` and `replace --force`, with
 * kubectl's default flags, on each test backend; outputs recorded with `same()` are compared
 * between the backends at the end.
 */
import { dirname } from 'node:path';

import { expect } from 'vitest';
import { parse as parseYaml } from 'yaml';

import type { ManagedFieldsEntry } from '../apply/field-manager.js';
import type { KObj } from '../store/object.js';
import { normalizeOutput } from './normalize.js';
import type { Kubectl } from './kubectl.js';
import { kubectlSuite } from './suite.js';

const NS = 'manifests';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const deployment = (image: string, extra: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${NS}
  labels: {app: web, tier: front}
  annotations: {note: first}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  strategy: {type: Recreate}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: ${image}
        args: [--a, --b]
        ports: [{containerPort: 80, name: http}, {containerPort: 443, name: https}]
        env: [{name: "X", value: "1"}, {name: "Y", value: "2"}]
${extra}`;

const changed = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${NS}
  labels: {app: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: nginx:1.26
        args: [--b]
        ports: [{containerPort: 443, name: https}]
        env: [{name: "Y", value: "2"}]
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets, singular: gadget}
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
              size: {type: integer}
              parts: {type: array, items: {type: string}}
              owner: {type: string}
`;

/** What apply decides, without the status a Deployment controller writes (the backends' differ in timing). */
async function specOf(kubectl: Kubectl): Promise<string> {
  const r = await kubectl.run([
    'get',
    'deployment',
    'web',
    '-n',
    NS,
    '-o',
    'jsonpath={.metadata.labels}{"\\n"}{.metadata.annotations}{"\\n"}{.metadata.generation}{"\\n"}{.spec}',
  ]);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return normalizeOutput(r.stdout);
}

/** The fields kubectl-client-side-apply owns (an Update manager: every field its PATCH set). */
async function applyFields(kubectl: Kubectl): Promise<unknown> {
  const live = await kubectl.json<KObj>(['get', 'deployment', 'web', '-n', NS, '--show-managed-fields']);
  return (live.metadata.managedFields as ManagedFieldsEntry[] | undefined)?.find(
    (m) => m.manager === 'kubectl-client-side-apply',
  )?.fieldsV1;
}

// simulated rollouts on both backends, so both write the Deployment's revision annotation
kubectlSuite('kubectl apply, create -f, replace', { simulateDeployments: true }, (it) => {
  it('apply -f creates, then says unchanged, and records the last-applied configuration', async ({
    kubectl,
    cluster,
    same,
  }) => {
    expect((await kubectl.run(['create', 'namespace', NS])).code).toBe(0);
    const file = kubectl.file('web.yaml', deployment('nginx:1.25', ''));
    const created = await kubectl.run(['apply', '-f', file]);
    expect([created.code, created.stdout, created.stderr]).toEqual([0, 'deployment.apps/web created\n', '']);
    const again = await kubectl.run(['apply', '-f', file]);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, 'deployment.apps/web unchanged\n', '']);
    const live = await cluster.get('deployments.apps', NS, 'web');
    // the manifest as kubectl read it
    expect(JSON.parse(live?.metadata.annotations?.[LAST_APPLIED] ?? '{}')).toEqual(
      parseYaml(deployment('nginx:1.25', '')),
    );
    same('created deployment', await specOf(kubectl));
  });

  it('apply -f of a changed manifest removes what the file no longer has and keeps what others set', async ({
    kubectl,
    cluster,
    same,
  }) => {
    // someone else's changes: a label and an env var the file never had
    expect((await kubectl.run(['label', 'deployment', 'web', '-n', NS, 'owner=ops'])).code).toBe(0);
    expect((await kubectl.run(['set', 'env', 'deployment/web', '-n', NS, 'Z=3'])).code).toBe(0);
    const r = await kubectl.run(['apply', '-f', kubectl.file('web.yaml', changed)]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deployment.apps/web configured\n', '']);
    const live = await cluster.get('deployments.apps', NS, 'web');
    expect(live?.metadata.labels).toEqual({ app: 'web', owner: 'ops' });
    expect(Object.keys(live?.metadata.annotations ?? {})).not.toContain('note');
    // removed from the file: back to the defaults
    expect(live).toMatchObject({
      spec: {
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      },
    });
    const main = (
      live as unknown as { spec: { template: { spec: { containers: Record<string, unknown>[] } } } }
    ).spec.template.spec.containers[0];
    expect(main).toMatchObject({
      image: 'nginx:1.26',
      args: ['--b'],
      ports: [{ containerPort: 443, name: 'https', protocol: 'TCP' }],
      // Y kept from the file, Z kept from `set env`, X removed
      env: [
        { name: 'Y', value: '2' },
        { name: 'Z', value: '3' },
      ],
    });
    // kubectl adds an empty annotations map when the file has none
    const file = parseYaml(changed) as KObj;
    expect(JSON.parse(live?.metadata.annotations?.[LAST_APPLIED] ?? '{}')).toEqual({
      ...file,
      metadata: { ...file.metadata, annotations: {} },
    });
    same('after the change', await specOf(kubectl));
  });

  // recorded from kube-apiserver v1.24 (structured-merge-diff v4: an atomic LabelSelector, empty
  // structs as leaves, no "." for the containers list of an update)
  it('the client-side apply manager owns what its patches set, as the real server records it', async ({
    kubectl,
  }) => {
    const port = (p: number) => `k:{"containerPort":${String(p)},"protocol":"TCP"}`;
    expect(await applyFields(kubectl)).toEqual({
      'f:metadata': {
        'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
        'f:labels': { '.': {}, 'f:app': {} },
      },
      'f:spec': {
        'f:progressDeadlineSeconds': {},
        'f:replicas': {},
        'f:revisionHistoryLimit': {},
        'f:selector': {},
        'f:strategy': {
          'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} },
          'f:type': {},
        },
        'f:template': {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"main"}': {
                '.': {},
                'f:args': {},
                'f:env': { '.': {}, 'k:{"name":"Y"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                'f:image': {},
                'f:imagePullPolicy': {},
                'f:name': {},
                'f:ports': {
                  '.': {},
                  [port(443)]: { '.': {}, 'f:containerPort': {}, 'f:name': {}, 'f:protocol': {} },
                },
                'f:resources': {},
                'f:terminationMessagePath': {},
                'f:terminationMessagePolicy': {},
              },
            },
            'f:dnsPolicy': {},
            'f:restartPolicy': {},
            'f:schedulerName': {},
            'f:securityContext': {},
            'f:terminationGracePeriodSeconds': {},
          },
        },
      },
    });
  });

  it('apply -f dir/ applies every .yaml, .yml and .json file of the folder (not recursively), in name order', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const dir = dirname(
      kubectl.file(
        'dir/a.yaml',
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ${NS}}\ndata: {k: v}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ${NS}}\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]\n`,
      ),
    );
    kubectl.file(
      'dir/b.json',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: NS } }),
    );
    kubectl.file(
      'dir/c.yml',
      `apiVersion: v1\nkind: Secret\nmetadata: {name: c, namespace: ${NS}}\nstringData: {password: hunter2}\n`,
    );
    kubectl.file('dir/README.md', 'not a manifest\n');
    kubectl.file(
      'dir/nested/d.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: ${NS}}\n`,
    );
    const r = await kubectl.run(['apply', '-f', dir]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe('configmap/a created\nservice/s created\nconfigmap/b created\nsecret/c created\n');
    expect(await cluster.get('configmaps', NS, 'd')).toBeUndefined();
    const again = await kubectl.run(['apply', '-f', dir]);
    // stringData is write-only (the server folds it into data), so the Secret differs from its file every time
    expect(again.stdout).toBe(
      'configmap/a unchanged\nservice/s unchanged\nconfigmap/b unchanged\nsecret/c configured\n',
    );
    // -R reads the sub-folder too
    const recursive = await kubectl.run(['apply', '-R', '-f', dir]);
    expect(recursive.stdout).toContain('configmap/d created\n');
    same('apply dir', r.stdout + again.stdout + recursive.stdout);
  });

  it('apply -f of a changed custom resource sends a JSON merge patch (custom kinds have no strategic merge)', async ({
    kubectl,
    cluster,
    same,
  }) => {
    expect((await kubectl.run(['apply', '-f', kubectl.file('crd.yaml', CRD)])).code).toBe(0);
    const established = await kubectl.run([
      'wait',
      '--for=condition=Established',
      'crd/gadgets.example.com',
      '--timeout=30s',
    ]);
    expect(established.code, established.stderr).toBe(0);
    const v1 = kubectl.file(
      'g.yaml',
      `apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: ${NS}}\nspec: {size: 1, parts: [a, b], owner: me}\n`,
    );
    // discovery of a new group: the first apply may race kubectl's cached discovery, so retry once
    let first = await kubectl.run(['apply', '-f', v1]);
    if (first.code !== 0) first = await kubectl.run(['apply', '-f', v1]);
    expect([first.code, first.stdout, first.stderr]).toEqual([0, 'gadget.example.com/g created\n', '']);
    const v2 = kubectl.file(
      'g.yaml',
      `apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: ${NS}}\nspec: {size: 2, parts: [c]}\n`,
    );
    const second = await kubectl.run(['apply', '-f', v2, '-v=8']);
    expect([second.code, second.stdout]).toEqual([0, 'gadget.example.com/g configured\n']);
    // the OpenAPI document offers no strategic merge for the kind, so kubectl falls back to JSON merge
    expect(second.stderr).toContain('Content-Type: application/merge-patch+json');
    expect(second.stderr).not.toContain('Content-Type: application/strategic-merge-patch+json');
    // lists are replaced whole, the removed field is removed
    expect((await cluster.get('gadgets.example.com', NS, 'g'))?.['spec']).toEqual({ size: 2, parts: ['c'] });
    same('custom resource apply', first.stdout + second.stdout);
  });

  it('create -f creates each object once; a second create is AlreadyExists', async ({ kubectl, same }) => {
    const file = kubectl.file(
      'c1.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: ${NS}, annotations: {x: "1"}}\ndata: {k: v}\n`,
    );
    const r = await kubectl.run(['create', '-f', file]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'configmap/c1 created\n', '']);
    const again = await kubectl.run(['create', '-f', file]);
    expect(again.code).toBe(1);
    expect(again.stderr.replaceAll(file, 'c1.yaml')).toBe(
      'Error from server (AlreadyExists): error when creating "c1.yaml": configmaps "c1" already exists\n',
    );
    // create records no last-applied configuration
    const got = await kubectl.json<KObj>(['get', 'configmap', 'c1', '-n', NS]);
    expect(got.metadata.annotations).toEqual({ x: '1' });
    same('create -f', r.stdout + again.stderr.replaceAll(file, 'c1.yaml'));
  });

  it('replace -f replaces the whole object; a stale resourceVersion is a Conflict; a missing object NotFound', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const before = await cluster.get('configmaps', NS, 'c1');
    const file = kubectl.file(
      'c1.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: ${NS}}\ndata: {k: w}\n`,
    );
    const r = await kubectl.run(['replace', '-f', file]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'configmap/c1 replaced\n', '']);
    const after = await cluster.get('configmaps', NS, 'c1');
    expect(after?.['data']).toEqual({ k: 'w' });
    // the annotation the file does not have is gone: replace is a PUT of the file
    expect(after?.metadata.annotations).toBeUndefined();
    expect(after?.metadata.uid).toBe(before?.metadata.uid);
    const stale = kubectl.file(
      'stale.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: ${NS}, resourceVersion: "${before?.metadata.resourceVersion ?? ''}"}\ndata: {k: x}\n`,
    );
    const conflict = await kubectl.run(['replace', '-f', stale]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr.replaceAll(stale, 'stale.yaml')).toBe(
      'Error from server (Conflict): error when replacing "stale.yaml": Operation cannot be fulfilled on configmaps "c1": the object has been modified; please apply your changes to the latest version and try again\n',
    );
    const missing = kubectl.file(
      'missing.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: missing, namespace: ${NS}}\n`,
    );
    const notFound = await kubectl.run(['replace', '-f', missing]);
    expect(notFound.code).toBe(1);
    expect(notFound.stderr.replaceAll(missing, 'missing.yaml')).toBe(
      'Error from server (NotFound): error when replacing "missing.yaml": configmaps "missing" not found\n',
    );
    same(
      'replace',
      [
        r.stdout,
        conflict.stderr.replaceAll(stale, 'stale.yaml'),
        notFound.stderr.replaceAll(missing, 'missing.yaml'),
      ].join(''),
    );
  });

  it('replace --force deletes and creates again (a new uid), also where nothing existed', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const before = await cluster.get('configmaps', NS, 'c1');
    const file = kubectl.file(
      'c1.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: ${NS}}\ndata: {k: forced}\n`,
    );
    const r = await kubectl.run(['replace', '--force', '-f', file]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'configmap "c1" deleted\nconfigmap/c1 replaced\n', '']);
    const after = await cluster.get('configmaps', NS, 'c1');
    expect(after?.['data']).toEqual({ k: 'forced' });
    expect(after?.metadata.uid).not.toBe(before?.metadata.uid);
    const fresh = kubectl.file(
      'fresh.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fresh, namespace: ${NS}}\n`,
    );
    const created = await kubectl.run(['replace', '--force', '-f', fresh]);
    expect([created.code, created.stdout, created.stderr]).toEqual([0, 'configmap/fresh replaced\n', '']);
    // a Deployment: deleted (its ReplicaSets with it, in the background) and created again
    const web = await cluster.get('deployments.apps', NS, 'web');
    const redeploy = await kubectl.run(['replace', '--force', '-f', kubectl.file('web.yaml', changed)]);
    expect([redeploy.code, redeploy.stdout, redeploy.stderr]).toEqual([
      0,
      'deployment.apps "web" deleted\ndeployment.apps/web replaced\n',
      '',
    ]);
    const again = await cluster.get('deployments.apps', NS, 'web');
    expect(again?.metadata.uid).not.toBe(web?.metadata.uid);
    expect(again?.metadata.generation).toBe(1);
    same('replace --force', r.stdout + created.stdout + redeploy.stdout);
  });
});
