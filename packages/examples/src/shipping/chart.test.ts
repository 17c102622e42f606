/**
 * copyrator's Helm chart, rendered without helm (`helm-lite.ts`, the subset of Go templates the
 * chart uses): generated parts not drifted, every template renders to parseable Kubernetes
 * objects for the default and the other supported values, the rendered RBAC equals the generated
 * deploy RBAC, probes and metrics are wired, refused combinations fail the render, and the
 * rendered workload objects are accepted by the API server.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { KubeClient } from '@rxkube/kube';
import { startApiServer } from '@rxkube/testing';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { exampleFile } from '../paths.js';
import { CHART_GENERATED } from './chart.js';
import { generateChart, generateDeploy } from './generate.js';
import type { RenderContext } from './helm-lite.js';
import { HelmLite, TemplateFailure } from './helm-lite.js';
import type { Manifest } from './manifests.js';
import { OPERATOR_NAMESPACE, SHIPPED_EXAMPLES, parseManifests } from './manifests.js';

const chartFile = (path: string): string => readFileSync(exampleFile('copyrator', `chart/${path}`), 'utf8');
const chart = parse(chartFile('Chart.yaml')) as { name: string; version: string; appVersion: string };
const defaults = parse(chartFile('values.yaml')) as Record<string, unknown>;
const templateNames = readdirSync(exampleFile('copyrator', 'chart/templates')).filter(
  (f) => !f.startsWith('.'),
);
const renderer = new HelmLite(Object.fromEntries(templateNames.map((f) => [f, chartFile(`templates/${f}`)])));

type Values = Record<string, unknown>;
function merge(base: Values, over: Values): Values {
  const out: Values = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = base[k];
    out[k] =
      v !== null && typeof v === 'object' && !Array.isArray(v) && b !== null && typeof b === 'object'
        ? merge(b as Values, v as Values)
        : v;
  }
  return out;
}

/** `helm template <release> -n <namespace> --set …`: every manifest template, parsed. */
function render(
  overrides: Values = {},
  release = { Name: 'copyrator', Namespace: OPERATOR_NAMESPACE },
): Map<string, Manifest[]> {
  const context: RenderContext = {
    Values: merge(defaults, overrides),
    Release: { ...release, Service: 'Helm' },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion },
  };
  const out = new Map<string, Manifest[]>();
  for (const t of templateNames.filter((f) => !f.startsWith('_') && f.endsWith('.yaml'))) {
    out.set(t, parseManifests(renderer.render(t, context), `templates/${t}`));
  }
  renderer.render('NOTES.txt', context);
  return out;
}
const all = (rendered: Map<string, Manifest[]>): Manifest[] => [...rendered.values()].flat();
const withoutLabels = (o: Manifest): Manifest => {
  const { labels: _labels, ...metadata } = o.metadata;
  return { ...o, metadata };
};
const deployManifests = (file: string): Manifest[] =>
  parseManifests(readFileSync(exampleFile('copyrator', `deploy/${file}`), 'utf8'), file);

interface Container {
  image: string;
  args: string[];
  env: { name: string; value?: string }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: unknown };
  readinessProbe: { httpGet: unknown };
  resources: unknown;
  securityContext: unknown;
}
interface DeploymentSpec {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: {
    metadata: { labels: Record<string, string> };
    spec: {
      serviceAccountName: string;
      terminationGracePeriodSeconds: number;
      securityContext: unknown;
      containers: Container[];
    };
  };
}
const deploymentOf = (objects: readonly Manifest[]): DeploymentSpec => {
  const d = objects.find((o) => o.kind === 'Deployment');
  if (d === undefined) throw new Error('no Deployment rendered');
  return d['spec'] as DeploymentSpec;
};
const envOf = (c: Container) => Object.fromEntries(c.env.map((e) => [e.name, e.value]));

describe('copyrator Helm chart (rendered by helm-lite; no helm binary here)', () => {
  it('its generated parts are what generate.ts writes now (RBAC from rxkube rbac, the CRD)', async () => {
    const copyrator = SHIPPED_EXAMPLES.find((e) => e.name === 'copyrator')!;
    const generated = generateChart(await generateDeploy(copyrator));
    expect([...generated.keys()]).toEqual([...CHART_GENERATED]);
    for (const [path, text] of generated) {
      expect(chartFile(path), `copyrator/chart/${path} drifted: run generate.js copyrator`).toBe(text);
    }
  }, 30_000);

  it('crds/ holds copyrator/crd.yaml untemplated (Helm does not template crds/)', () => {
    const crd = chartFile(CHART_GENERATED[1]);
    expect(crd).not.toContain('{{');
    expect(parseManifests(crd)).toEqual(
      parseManifests(readFileSync(exampleFile('copyrator', 'crd.yaml'), 'utf8')),
    );
  });

  it('renders every template with the default values to complete Kubernetes objects', () => {
    const rendered = render();
    expect(new Set(all(rendered).map((o) => o.kind))).toEqual(
      new Set([
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'Role',
        'RoleBinding',
        'Deployment',
        'Service',
      ]),
    );
    for (const o of all(rendered)) {
      if (!['ClusterRole', 'ClusterRoleBinding'].includes(o.kind)) {
        expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(OPERATOR_NAMESPACE);
      }
      expect(o.metadata['labels']).toMatchObject({
        'app.kubernetes.io/name': 'copyrator',
        'app.kubernetes.io/instance': 'copyrator',
        'app.kubernetes.io/managed-by': 'Helm',
        'helm.sh/chart': `copyrator-${chart.version}`,
      });
    }
    expect(rendered.get('servicemonitor.yaml')).toEqual([]);
  });

  it('its RBAC is the generated RBAC (deploy/rbac.yaml, the CRD rule included), labels aside', () => {
    const rbacKinds = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'];
    const rendered = all(render())
      .filter((o) => rbacKinds.includes(o.kind))
      .map(withoutLabels);
    expect(rendered).toEqual(deployManifests('rbac.yaml'));
    const clusterRoles = rendered.filter((o) => o.kind === 'ClusterRole');
    expect(clusterRoles.map((o) => o.metadata.name)).toEqual(['copyrator']);
    expect(clusterRoles[0]?.['rules']).toContainEqual({
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: ['copyratorrules.copyrator.rxkube.io'],
      verbs: ['get', 'patch'],
    });
  });

  it('runs the same container as deploy/deployment.yaml: probes on 8081, metrics 8080 named metrics, election on', () => {
    const spec = deploymentOf(all(render()));
    const reference = deploymentOf(deployManifests('deployment.yaml'));
    expect(spec.replicas).toBe(2);
    expect(spec.template.metadata.labels).toMatchObject(spec.selector.matchLabels);
    expect(spec.template.spec.serviceAccountName).toBe('copyrator');
    expect(spec.template.spec.terminationGracePeriodSeconds).toBe(
      reference.template.spec.terminationGracePeriodSeconds,
    );
    expect(spec.template.spec.securityContext).toEqual(reference.template.spec.securityContext);
    const [c] = spec.template.spec.containers;
    const [r] = reference.template.spec.containers;
    expect(c?.image).toBe(`rxkube/copyrator:${chart.appVersion}`);
    for (const key of ['args', 'ports', 'resources', 'securityContext'] as const) {
      expect(c?.[key], key).toEqual(r?.[key]);
    }
    expect(c?.livenessProbe).toEqual(r?.livenessProbe);
    expect(c?.readinessProbe).toEqual(r?.readinessProbe);
    expect(envOf(c!)).toMatchObject({
      ...envOf(r!),
      RXKUBE_LEASE_NAME: 'copyrator',
      RXKUBE_SHUTDOWN_TIMEOUT: '30s',
    });
    const service = render().get('service.yaml')?.[0];
    expect(service?.['spec']).toMatchObject({
      selector: spec.selector.matchLabels,
      ports: [{ name: 'metrics', port: 8080, targetPort: 'metrics' }],
    });
  });

  it('with serviceMonitor.enabled, a ServiceMonitor scrapes the metrics Service by its labels', () => {
    const rendered = render({ serviceMonitor: { enabled: true, labels: { release: 'prom' } } });
    const [monitor] = rendered.get('servicemonitor.yaml') ?? [];
    const [service] = rendered.get('service.yaml') ?? [];
    expect(monitor?.metadata['labels']).toMatchObject({ release: 'prom' });
    const spec = monitor?.['spec'] as {
      selector: { matchLabels: Record<string, string> };
      endpoints: unknown[];
    };
    expect(service?.metadata['labels']).toMatchObject(spec.selector.matchLabels);
    expect(spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s' }]);
  });

  it('follows the release: names, namespace, subjects and the lease', () => {
    const rendered = all(render({}, { Name: 'team-copy', Namespace: 'ops' }));
    const names = rendered.map((o) => o.metadata.name);
    expect(names.every((n) => n.startsWith('team-copy'))).toBe(true);
    const subjects = rendered.flatMap((o) => (o['subjects'] ?? []) as { name: string; namespace: string }[]);
    expect(new Set(subjects.map((s) => `${s.namespace}/${s.name}`))).toEqual(new Set(['ops/team-copy']));
    expect(rendered.find((o) => o.kind === 'Role')?.metadata.namespace).toBe('ops');
    expect(envOf(deploymentOf(rendered).template.spec.containers[0]!)['RXKUBE_LEASE_NAME']).toBe('team-copy');
  });

  it('one replica without leader election: no lease Role, RXKUBE_LEADER_ELECT=false', () => {
    const rendered = all(render({ replicas: 1, leaderElection: { enabled: false } }));
    expect(rendered.filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding')).toEqual([]);
    expect(envOf(deploymentOf(rendered).template.spec.containers[0]!)['RXKUBE_LEADER_ELECT']).toBe('false');
  });

  it.each([
    [{ watchNamespaces: ['team-a'] }, /copyrator watches every namespace/],
    [{ replicas: 2, leaderElection: { enabled: false } }, /needs leaderElection.enabled=true/],
    [{ serviceMonitor: { enabled: true }, metrics: { service: { enabled: false } } }, /scrapes a Service/],
  ])('refuses %j', (values, message) => {
    expect(() => render(values)).toThrow(TemplateFailure);
    expect(() => render(values)).toThrow(message);
  });

  it('the API server accepts the rendered workload objects (with the CRD from crds/)', async () => {
    const server = await startApiServer();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    try {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: OPERATOR_NAMESPACE } });
      const objects = [
        ...parseManifests(chartFile(CHART_GENERATED[1])),
        ...all(render()).filter((o) => ['ServiceAccount', 'Deployment', 'Service'].includes(o.kind)),
      ];
      for (const o of objects) await client.apply(o, { fieldManager: 'helm', force: true });
      expect(server.object('deployments.apps', OPERATOR_NAMESPACE, 'copyrator')).toBeDefined();
      expect(server.object('services', OPERATOR_NAMESPACE, 'copyrator-metrics')).toBeDefined();
    } finally {
      client.close();
      await server.stop();
    }
  });
});
