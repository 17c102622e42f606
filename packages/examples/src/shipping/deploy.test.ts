/**
 * The checked-in `<example>/deploy/` folders: generated and not drifted (rbac.yaml is what
 * `rxkube rbac` prints for the controllers as registered now), parseable, complete Kubernetes
 * objects, and a Deployment with the production settings SHIPPING.md promises. When kubectl is
 * installed, `kubectl kustomize` builds every folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exampleFile } from '../paths.js';
import { generateDeploy, operatorModule, rxkubeRbac } from './generate.js';
import { grantsFor } from './grants.js';
import type { Manifest } from './manifests.js';
import {
  HEALTH_PORT,
  METRICS_PORT,
  OPERATOR_NAMESPACE,
  SHIPPED_EXAMPLES,
  SHUTDOWN_DEADLINE_SECONDS,
  deployFiles,
  parseManifests,
} from './manifests.js';

const deployDir = (name: string): string => fileURLToPath(exampleFile(name, 'deploy'));
const read = (name: string, file: string): string =>
  readFileSync(exampleFile(name, `deploy/${file}`), 'utf8');
const manifests = (name: string, file: string): Manifest[] =>
  parseManifests(read(name, file), `${name}/deploy/${file}`);

function kubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
}
interface PodSpec {
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  securityContext?: Record<string, unknown>;
  containers: Container[];
}

describe.each(SHIPPED_EXAMPLES.map((e) => [e.name, e] as const))('%s/deploy', (name, example) => {
  it('is exactly what generate.ts writes now (rbac.yaml = rxkube rbac for the current registration)', async () => {
    const generated = await generateDeploy(example);
    const onDisk = readdirSync(deployDir(name)).sort();
    expect(onDisk, `regenerate: node packages/examples/dist/src/shipping/generate.js ${name}`).toEqual(
      [...generated.keys()].sort(),
    );
    for (const [file, text] of generated) {
      expect(
        read(name, file),
        `${name}/deploy/${file} drifted: run node packages/examples/dist/src/shipping/generate.js ${name}`,
      ).toBe(text);
    }
  }, 30_000);

  it('rbac.yaml holds the objects rxkube rbac prints, in order', async () => {
    const printed = parseManifests(await rxkubeRbac(name), 'rxkube rbac');
    expect(manifests(name, 'rbac.yaml')).toEqual(printed);
  }, 30_000);

  it('every file parses and every object has apiVersion, kind and metadata.name', () => {
    for (const file of deployFiles(example)) {
      const objects = manifests(name, file);
      expect(objects.length, file).toBeGreaterThan(0);
    }
    expect(existsSync(operatorModule(name)), `${name}/src/operator exists`).toBe(true);
  });

  it('binds the rules to the ServiceAccount the Deployment uses, the lease Role in rxkube-system', () => {
    const rbac = manifests(name, 'rbac.yaml');
    const sa = rbac.find((o) => o.kind === 'ServiceAccount');
    expect(sa?.metadata).toEqual({ name, namespace: OPERATOR_NAMESPACE });
    const grants = grantsFor(rbac, name, OPERATOR_NAMESPACE);
    // get/update on the operator's own Lease by name; create cannot be restricted by name
    expect(
      grants.filter((g) => g.resource === 'leases').map((g) => [g.verb, g.namespace, g.resourceNames]),
    ).toEqual([
      ['get', OPERATOR_NAMESPACE, [name]],
      ['update', OPERATOR_NAMESPACE, [name]],
      ['create', OPERATOR_NAMESPACE, undefined],
    ]);
    expect(grants.some((g) => g.resource !== 'leases' && g.namespace !== undefined)).toBe(false);
    const [deployment] = manifests(name, 'deployment.yaml');
    const pod = (deployment?.['spec'] as { template: { spec: PodSpec } }).template.spec;
    expect(pod.serviceAccountName).toBe(sa?.metadata.name);
  });

  it('crd.yaml is ../crd.yaml, applied before the operator; rbac.yaml grants get and patch on that CRD only', () => {
    const crdGrants = grantsFor(manifests(name, 'rbac.yaml'), name, OPERATOR_NAMESPACE).filter(
      (g) => g.group === 'apiextensions.k8s.io',
    );
    if (example.crd === undefined) {
      expect(existsSync(fileURLToPath(exampleFile(name, 'crd.yaml')))).toBe(false);
      expect(crdGrants).toEqual([]);
      return;
    }
    const original = parseManifests(readFileSync(exampleFile(name, 'crd.yaml'), 'utf8'), `${name}/crd.yaml`);
    expect(manifests(name, 'crd.yaml')).toEqual(original);
    expect(original[0]?.metadata.name).toBe(example.crd);
    // no `create`: resourceNames cannot restrict it, so kustomize applies the CRD (crd.yaml) ahead
    expect(crdGrants.map((g) => [g.resource, g.verb, g.resourceNames])).toEqual([
      ['customresourcedefinitions', 'get', [example.crd]],
      ['customresourcedefinitions', 'patch', [example.crd]],
    ]);
  });

  it('the Deployment runs rxkube run on the example, with election, probes, metrics, limits and the restricted context', () => {
    const [deployment, ...rest] = manifests(name, 'deployment.yaml');
    expect(rest).toEqual([]);
    expect(deployment?.kind).toBe('Deployment');
    expect(deployment?.metadata.namespace).toBe(OPERATOR_NAMESPACE);
    const spec = deployment?.['spec'] as { replicas: number; template: { spec: PodSpec } };
    expect(spec.replicas).toBeGreaterThanOrEqual(2);
    const pod = spec.template.spec;
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(SHUTDOWN_DEADLINE_SECONDS);
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers).toHaveLength(1);
    const c = pod.containers[0]!;
    expect(c.args).toEqual(['run', `dist/${name}/src/operator.js`]);
    const env = new Map((c.env ?? []).map((e) => [e.name, e]));
    expect(env.get('POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(env.get('POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
    expect(env.get('RXKUBE_LEADER_ELECT')?.value).toBe('true');
    expect(env.get('RXKUBE_HEALTH_PORT')?.value).toBe(String(HEALTH_PORT));
    expect(env.get('RXKUBE_METRICS_PORT')?.value).toBe(String(METRICS_PORT));
    const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
    expect(ports.get('metrics')).toBe(METRICS_PORT);
    expect(ports.get('health')).toBe(HEALTH_PORT);
    expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'health' });
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'health' });
    expect(Object.keys(c.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(c.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(c.securityContext).toEqual({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it.skipIf(!kubectl())('kubectl kustomize builds it: Namespace, CRD, RBAC, Deployment', () => {
    const out = execFileSync('kubectl', ['kustomize', deployDir(name)], { encoding: 'utf8' });
    const kinds = parseManifests(out, `kubectl kustomize ${name}/deploy`).map((o) => o.kind);
    expect(new Set(kinds)).toEqual(
      new Set([
        'Namespace',
        ...(example.crd !== undefined ? ['CustomResourceDefinition'] : []),
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'Deployment',
      ]),
    );
    expect(out).toContain(`image: rxkube/${name}:`);
  });
});
