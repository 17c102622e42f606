import { expect } from 'vitest';
import { parse as parseYaml } from 'yaml';

import type { KObj } from '../store/object.js';
import { kubectlSuite } from './suite.js';

const NS = 'gen';

// kubectl's generators send protobuf bodies (and ask for protobuf answers) with their default flags
kubectlSuite('kubectl create generators', {}, (it) => {
  it('create namespace, in protobuf (kubectl -v=8 shows the content type)', async ({ kubectl, cluster }) => {
    const r = await kubectl.run(['create', 'namespace', NS, '-v=8']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`namespace/${NS} created\n`);
    expect(r.stderr).toContain('Content-Type: application/vnd.kubernetes.protobuf');
    expect(await cluster.get('namespaces', undefined, NS)).toMatchObject({ status: { phase: 'Active' } });
  });

  it('create configmap --from-literal', async ({ kubectl, cluster }) => {
    const r = await kubectl.run([
      'create',
      'configmap',
      'cm1',
      '-n',
      NS,
      '--from-literal=a=b',
      '--from-literal=c=',
    ]);
    expect([r.code, r.stdout]).toEqual([0, 'configmap/cm1 created\n']);
    expect((await cluster.get('configmaps', NS, 'cm1'))?.['data']).toEqual({ a: 'b', c: '' });
  });

  it('create secret generic', async ({ kubectl, cluster }) => {
    const r = await kubectl.run(['create', 'secret', 'generic', 's1', '-n', NS, '--from-literal=user=admin']);
    expect([r.code, r.stdout]).toEqual([0, 'secret/s1 created\n']);
    expect(await cluster.get('secrets', NS, 's1')).toMatchObject({
      type: 'Opaque',
      data: { user: Buffer.from('admin').toString('base64') },
    });
  });

  it('create deployment', async ({ kubectl, cluster }) => {
    const r = await kubectl.run(['create', 'deployment', 'web', '-n', NS, '--image=nginx', '--port=80']);
    expect([r.code, r.stdout]).toEqual([0, 'deployment.apps/web created\n']);
    expect(await cluster.get('deployments.apps', NS, 'web')).toMatchObject({
      metadata: { labels: { app: 'web' }, generation: 1 },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }] }] },
        },
      },
    });
  });

  it('create serviceaccount', async ({ kubectl, cluster }) => {
    const r = await kubectl.run(['create', 'serviceaccount', 'sa1', '-n', NS]);
    expect([r.code, r.stdout]).toEqual([0, 'serviceaccount/sa1 created\n']);
    expect(await cluster.get('serviceaccounts', NS, 'sa1')).toBeDefined();
  });

  it('create service clusterip', async ({ kubectl, cluster }) => {
    const r = await kubectl.run(['create', 'service', 'clusterip', 'svc1', '-n', NS, '--tcp=80:8080']);
    expect([r.code, r.stdout]).toEqual([0, 'service/svc1 created\n']);
    expect(await cluster.get('services', NS, 'svc1')).toMatchObject({
      spec: {
        type: 'ClusterIP',
        selector: { app: 'svc1' },
        ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
      },
    });
  });

  // generators of the kinds operators own (issue 13 §1): served by both backends
  const more: [args: string[], created: string, resource: string][] = [
    [['job', 'j1', '--image=busybox', '--', 'echo', 'hi'], 'job.batch/j1', 'jobs.batch'],
    [
      ['cronjob', 'cj1', '--image=busybox', '--schedule=*/5 * * * *', '--', 'date'],
      'cronjob.batch/cj1',
      'cronjobs.batch',
    ],
    [
      ['role', 'r1', '--verb=get,list', '--resource=pods'],
      'role.rbac.authorization.k8s.io/r1',
      'roles.rbac.authorization.k8s.io',
    ],
    [
      ['rolebinding', 'rb1', '--role=r1', '--user=u1'],
      'rolebinding.rbac.authorization.k8s.io/rb1',
      'rolebindings.rbac.authorization.k8s.io',
    ],
    [
      ['clusterrole', 'gen-cr1', '--verb=get', '--non-resource-url=/healthz'],
      'clusterrole.rbac.authorization.k8s.io/gen-cr1',
      'clusterroles.rbac.authorization.k8s.io',
    ],
    [
      ['clusterrolebinding', 'gen-crb1', '--clusterrole=gen-cr1', '--user=u1'],
      'clusterrolebinding.rbac.authorization.k8s.io/gen-crb1',
      'clusterrolebindings.rbac.authorization.k8s.io',
    ],
    [
      ['ingress', 'ing1', '--rule=foo.com/bar=svc1:8080'],
      'ingress.networking.k8s.io/ing1',
      'ingresses.networking.k8s.io',
    ],
    [
      ['poddisruptionbudget', 'pdb1', '--selector=app=x', '--min-available=1'],
      'poddisruptionbudget.policy/pdb1',
      'poddisruptionbudgets.policy',
    ],
  ];
  for (const [args, created, resource] of more) {
    it(`create ${args[0] ?? ''}`, async ({ kubectl }) => {
      const served = await kubectl.run(['api-resources', '-o', 'name']);
      expect(served.stdout.split('\n'), 'discovery').toContain(resource);
      const namespaced = !args[0]?.startsWith('cluster');
      const r = await kubectl.run(['create', ...(namespaced ? ['-n', NS] : []), ...args]);
      expect([r.code, r.stdout, r.stderr]).toEqual([0, `${created} created\n`, '']);
      const back = await kubectl.json<KObj>(['get', created, ...(namespaced ? ['-n', NS] : [])]);
      expect(back.metadata.name).toBe(created.slice(created.indexOf('/') + 1));
    });
  }

  it('a second create of the same name is AlreadyExists, read from a protobuf Status', async ({
    kubectl,
  }) => {
    const r = await kubectl.run(['create', 'configmap', 'cm1', '-n', NS]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: failed to create configmap: configmaps "cm1" already exists\n');
  });

  it('get -o json / -o yaml read back what was created', async ({ kubectl }) => {
    const cm = await kubectl.json<KObj>(['get', 'configmap', 'cm1', '-n', NS]);
    expect(cm).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'cm1', namespace: NS },
    });
    const list = await kubectl.json<{ items: KObj[] }>([
      'get',
      'configmaps,secrets,serviceaccounts',
      '-n',
      NS,
    ]);
    // a real cluster's controllers add kube-root-ca.crt and the default ServiceAccount
    expect(list.items.map((i) => `${String(i['kind'])}/${i.metadata.name ?? ''}`)).toEqual(
      expect.arrayContaining(['ConfigMap/cm1', 'Secret/s1', 'ServiceAccount/sa1']),
    );
    const yaml = await kubectl.run(['get', 'deployment', 'web', '-n', NS, '-o', 'yaml']);
    expect(yaml.code).toBe(0);
    expect(parseYaml(yaml.stdout)).toMatchObject({ kind: 'Deployment', metadata: { name: 'web' } });
  });

  it('get prints Tables, -o wide too', async ({ kubectl }) => {
    const r = await kubectl.run(['get', 'configmaps', '-n', NS]);
    expect(r.stdout.split('\n')[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
    expect(r.stdout).toMatch(/\ncm1\s+2\s+\d+s\n/);
    const wide = await kubectl.run(['get', 'namespaces', NS, '-o', 'wide']);
    expect(wide.stdout).toMatch(new RegExp(`^NAME\\s+STATUS\\s+AGE\\n${NS}\\s+Active\\s+\\d+s\\n$`));
    const deploy = await kubectl.run(['get', 'deployments', '-n', NS, '-o', 'wide']);
    expect([deploy.code, deploy.stderr]).toEqual([0, '']);
    expect(deploy.stdout).toContain('web');
  });

  it('describe each kind', async ({ kubectl }) => {
    const cases: [string, RegExp][] = [
      // kubectl describe prints the keys in Go map order (random): `a` may come after `c`
      ['configmap/cm1', /Data\n====\n(?:c:\n----\n\n+)?a:\n----\nb\n/],
      ['secret/s1', /Type:\s+Opaque\n[\s\S]*user:\s+5 bytes/],
      ['deployment/web', /Selector:\s+app=web\n[\s\S]*Image:\s+nginx/],
      ['serviceaccount/sa1', /Name:\s+sa1/],
      ['service/svc1', /Selector:\s+app=svc1\n[\s\S]*TargetPort:\s+8080\/TCP/],
    ];
    for (const [what, pattern] of cases) {
      const r = await kubectl.run(['describe', what, '-n', NS]);
      expect([r.code, r.stderr], what).toEqual([0, '']);
      expect(r.stdout, what).toMatch(pattern);
    }
    const ns = await kubectl.run(['describe', 'namespace', NS]);
    expect(ns.stdout).toMatch(/Status:\s+Active/);
  });
});
