/**
 * namespace-watcher, widget, echo-server and deployment-notifier, each run as its Deployment runs
 * it with exactly its shipped RBAC (see restricted-operator.ts), through a short scenario of what
 * it does — an admin playing the user — and then stopped gracefully: no request refused (401/403)
 * from start to lease release (the API server enforces RBAC from the applied rbac.yaml, with
 * OwnerReferencesPermissionEnforcement on), every request allowed by rbac.yaml's own bindings, no
 * reconcile error, /readyz passing.
 */
import { readFileSync } from 'node:fs';
import type { KubeObject } from '@rxkube/kube';
import type { BackendName } from '@rxkube/testing';
import { selectedBackends } from '@rxkube/testing';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { exampleFile } from '../paths.js';
import { grantKey } from './grants.js';
import type { ShippedExample } from './manifests.js';
import { SHIPPED_EXAMPLES } from './manifests.js';
import type { RestrictedOperator } from './restricted-operator.js';
import { startRestrictedOperator } from './restricted-operator.js';

const example = (name: string): ShippedExample => {
  const e = SHIPPED_EXAMPLES.find((x) => x.name === name);
  if (e === undefined) throw new Error(`${name} is not among SHIPPED_EXAMPLES`);
  return e;
};

interface Obj extends KubeObject {
  spec?: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    notified?: Record<string, string>;
    conditions?: { type: string; status: string }[];
  };
}
const ready = (o: Obj | undefined): boolean =>
  o?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true &&
  o.status.observedGeneration === o.metadata.generation;

/** Applies an example's sample.yaml as the user. */
async function applySample(op: RestrictedOperator, name: string): Promise<void> {
  for (const doc of parseAllDocuments(readFileSync(exampleFile(name, 'sample.yaml'), 'utf8'))) {
    const o = doc.toJS() as KubeObject | null;
    if (o !== null) await op.admin.apply(o, { fieldManager: 'kubectl', force: true });
  }
}

/** Event recorder grants a short scenario may not exercise. */
const EVENT_RECORDER: Readonly<Record<string, string>> = {
  [grantKey({ group: 'events.k8s.io', resource: 'events', verb: 'patch' })]:
    'an Event repeated within its series window is patched; the scenario may not repeat one',
};

/** The status sink's `get`: a re-read after a 409 only. */
const statusReread = (group: string, resource: string): Record<string, string> => ({
  [grantKey({ group, resource, verb: 'get' })]:
    'the status sink re-reads the object after a 409 conflict only',
});

/** `update` on the owner's finalizers: an authorization check of the admission plugin, not a request. */
const ownerFinalizers = (group: string, resource: string): Record<string, string> => ({
  [grantKey({ group, resource: `${resource}/finalizers`, verb: 'update' })]:
    'OwnerReferencesPermissionEnforcement checks it when a child with blockOwnerDeletion is created; it is no request of its own',
});

/**
 * Stops the operator (drain, lease release) and checks nothing was refused along the way, and that
 * every grant rbac.yaml carries was used — or is in `mayStayUnused` with the reason the scenario
 * cannot show it (each reason naming a grant rbac.yaml has).
 */
async function expectUnrefused(
  op: RestrictedOperator,
  mayStayUnused: Readonly<Record<string, string>>,
): Promise<void> {
  const port = op.mgr.ports[0];
  const readyz = await fetch(`http://127.0.0.1:${port}/readyz?verbose`);
  expect(readyz.status, await readyz.text()).toBe(200);
  expect(await op.mgr.stop()).toMatchObject({ drained: true });
  expect(op.refused()).toEqual([]);
  expect(op.allowedOutsideItsRbac()).toEqual([]);
  expect(op.unusedGrants().filter((k) => mayStayUnused[k] === undefined)).toEqual([]);
  const granted = new Set(op.grants.map((g) => grantKey(g)));
  expect(Object.keys(mayStayUnused).filter((k) => !granted.has(k))).toEqual([]);
  // setup's mgr.ensureCrd updated the CRD (applied ahead by the admin, as kustomize does) with the
  // operator's own token: one server-side apply, allowed by rbac.yaml's get/patch on that name
  const crd = op.example.crd;
  expect(
    op
      .requests()
      .filter((r) => r.resource?.resource === 'customresourcedefinitions' && r.verb !== 'get')
      .map((r) => [r.verb, r.resource?.name, r.status]),
  ).toEqual(crd !== undefined ? [['patch', crd, 200]] : []);
  expect(op.results.filter((r) => r.error !== undefined).map((r) => String(r.error))).toEqual([]);
  // the lease was used: created (and released) in rxkube-system with the operator's token
  expect(
    op.requests().some((r) => r.resource?.resource === 'leases' && r.verb === 'create' && r.status === 201),
  ).toBe(true);
}

function scenarios(backend: BackendName, timeoutMs: number): void {
  it(
    'namespace-watcher: welcomes a new namespace, removes the welcome on opt-out',
    async () => {
      const op = await startRestrictedOperator(example('namespace-watcher'), { backend });
      try {
        const welcome = () => op.cluster.get('configmaps', 'team-a', 'rxkube-welcome');
        await op.admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
        await op.until('welcome ConfigMap in team-a', async () => (await welcome()) !== undefined);
        await op.admin.patch(
          { apiVersion: 'v1', kind: 'Namespace', name: 'team-a' },
          { type: 'merge', body: { metadata: { labels: { 'rxkube.io/welcome': 'false' } } } },
        );
        await op.until(
          'welcome ConfigMap removed after opt-out',
          async () => (await welcome()) === undefined,
        );
        await expectUnrefused(op, {
          [grantKey({ group: '', resource: 'namespaces/finalizers', verb: 'update' })]:
            'derived because it writes and watches ConfigMaps (a child path); its welcome ConfigMaps carry no ownerReference, which managerRbac cannot see',
        });
      } finally {
        await op.stop();
      }
    },
    timeoutMs,
  );

  it(
    'widget: sample Widgets get their inventory and Ready, a deleted one is cleaned up',
    async () => {
      const op = await startRestrictedOperator(example('widget'), { backend });
      try {
        const widget = async (n: string) =>
          (await op.cluster.get('widgets.example.com', 'default', n)) as Obj | undefined;
        await applySample(op, 'widget');
        await op.until(
          'both sample Widgets Ready with an inventory',
          async () =>
            ready(await widget('small')) &&
            ready(await widget('large')) &&
            (await op.cluster.get('configmaps', 'default', 'widget-large-inventory')) !== undefined,
        );
        await op.admin.delete({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          namespace: 'default',
          name: 'large',
        });
        await op.until(
          'Widget large gone (finalizer released)',
          async () => (await widget('large')) === undefined,
        );
        await expectUnrefused(op, {
          ...EVENT_RECORDER,
          ...statusReread('example.com', 'widgets'),
          ...ownerFinalizers('example.com', 'widgets'),
        });
      } finally {
        await op.stop();
      }
    },
    timeoutMs,
  );

  it(
    'echo-server: the sample gets its Deployment and Service and turns Ready; unexposing prunes the Service',
    async () => {
      const op = await startRestrictedOperator(example('echo-server'), {
        backend,
        simulateDeployments: true,
      });
      try {
        const echo = async () =>
          (await op.cluster.get('echoservers.example.com', 'default', 'hello')) as Obj | undefined;
        const services = async () =>
          (await op.cluster.list('services', 'default')).filter((s) => s.metadata.name !== 'kubernetes');
        await applySample(op, 'echo-server');
        await op.until(
          'EchoServer hello Ready with a Deployment and a Service',
          async () =>
            ready(await echo()) &&
            (await op.cluster.list('deployments.apps', 'default')).length === 1 &&
            (await services()).length === 1,
        );
        await op.admin.patch(
          { apiVersion: 'example.com/v1', kind: 'EchoServer', namespace: 'default', name: 'hello' },
          { type: 'merge', body: { spec: { expose: false } } },
        );
        await op.until(
          'the Service pruned',
          async () => (await services()).length === 0 && ready(await echo()),
        );
        await expectUnrefused(op, {
          ...statusReread('example.com', 'echoservers'),
          ...ownerFinalizers('example.com', 'echoservers'),
          [grantKey({ group: 'apps', resource: 'deployments', verb: 'delete' })]:
            'applyChildren prunes a Deployment the desired children no longer have; the scenario prunes the Service only',
        });
      } finally {
        await op.stop();
      }
    },
    timeoutMs,
  );

  it(
    'deployment-notifier: baselines the sample Deployment, records an image change as notified',
    async () => {
      const op = await startRestrictedOperator(example('deployment-notifier'), { backend });
      try {
        const notifier = async () =>
          (await op.cluster.get('deploymentnotifiers.notify.rxkube.io', 'default', 'web-images')) as
            Obj | undefined;
        await applySample(op, 'deployment-notifier');
        await op.until(
          'baseline recorded',
          async () => (await notifier())?.status?.notified?.['web/app'] === 'nginx:1.26',
        );
        await op.admin.patch(
          { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
          {
            type: 'strategic',
            body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } } },
          },
        );
        await op.until(
          'the new image notified',
          async () => (await notifier())?.status?.notified?.['web/app'] === 'nginx:1.27',
        );
        await expectUnrefused(op, {
          ...EVENT_RECORDER,
          [grantKey({ group: 'events.k8s.io', resource: 'events', verb: 'create' })]:
            'the recorder emits Events on failures only (webhook errors); the scenario has none',
          ...statusReread('notify.rxkube.io', 'deploymentnotifiers'),
        });
      } finally {
        await op.stop();
      }
    },
    timeoutMs,
  );
}

for (const selection of selectedBackends()) {
  const title = `the other examples with their shipped RBAC (RBAC-enforcing API server, leader election) [${selection.name}]`;
  if (!selection.enabled)
    describe.skip(`${title} — skipped: ${selection.reason ?? 'not selected'}`, () =>
      scenarios(selection.name, 0));
  // a real control plane starts in seconds and its controllers take their time
  else describe(title, () => scenarios(selection.name, selection.name === 'real' ? 180_000 : 60_000));
}
