/**
 * "Nothing more": every (group, resource, verb) the shipped RBAC grants is traced back to a line
 * of the operator's registration — a watch, the status sink, the finalizer, the Event recorder,
 * leader election, a declared `permissions` rule, or a CRD `setup` installed with `mgr.ensureCrd`
 * (`mgr.installedCrds`). The reasons are derived here from the registered options, independently
 * of `managerRbac`, and must cover the grants exactly (nothing unexplained, nothing missing).
 */
import { readFileSync } from 'node:fs';
import { loadOperatorModule } from '@rxkube/cli';
import type { Manager, ResourceType } from '@rxkube/kube';
import { KubeClient } from '@rxkube/kube';
import { startApiServer } from '@rxkube/testing';
import { describe, expect, it } from 'vitest';
import { exampleFile } from '../paths.js';
import { operatorModule } from './generate.js';
import { grantKey, grantsFor } from './grants.js';
import { OPERATOR_NAMESPACE, SHIPPED_EXAMPLES, parseManifests } from './manifests.js';

const groupOf = (t: ResourceType): string => (t.apiVersion.includes('/') ? t.apiVersion.split('/')[0]! : '');

/** grantKey → why the operator needs it. */
async function reasons(mgr: Manager): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const add = (
    group: string,
    resource: string,
    verbs: readonly string[],
    why: string,
    namespace?: string,
  ) => {
    for (const verb of verbs) {
      const key = grantKey({ group, resource, verb, ...(namespace !== undefined ? { namespace } : {}) });
      out.set(key, [...(out.get(key) ?? []), why]);
    }
  };
  const plural = async (t: ResourceType) => (await mgr.client.discovery.resolve(t)).plural;
  for (const t of mgr.targets()) {
    add(
      groupOf(t.resource),
      await plural(t.resource),
      ['list', 'watch'],
      `watch of ${t.resource.kind} (list, then watch; never a get)`,
    );
  }
  for (const c of mgr.registered) {
    const group = groupOf(c.options.for);
    const resource = await plural(c.options.for);
    if (c.options.status !== undefined) {
      add(
        group,
        `${resource}/status`,
        ['patch'],
        `${c.name}: status sink (merge patch of the status subresource)`,
      );
      add(group, resource, ['get'], `${c.name}: status sink re-reads after a 409`);
    }
    if (c.options.finalizer !== undefined) {
      add(group, resource, ['patch'], `${c.name}: finalizer add/remove (JSON patch)`);
    }
    if ((c.options.owns ?? []).length > 0) {
      add(
        group,
        `${resource}/finalizers`,
        ['update'],
        `${c.name}: owned children's blockOwnerDeletion (OwnerReferencesPermissionEnforcement)`,
      );
    }
    // a kind it writes (declared) and watches back through `watches`: a child path too
    const written = new Set(
      (c.options.permissions ?? [])
        .filter((r) => r.verbs.some((v) => ['create', 'update', 'patch'].includes(v)))
        .flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((x) => `${g}/${x}`))),
    );
    for (const w of c.options.watches ?? []) {
      if (written.has(`${groupOf(w.resource)}/${await plural(w.resource)}`)) {
        add(
          group,
          `${resource}/finalizers`,
          ['update'],
          `${c.name}: writes and watches ${w.resource.kind}: children's blockOwnerDeletion (OwnerReferencesPermissionEnforcement)`,
        );
      }
    }
    if (c.options.events === true) {
      add('events.k8s.io', 'events', ['create', 'patch'], `${c.name}: Event recorder (events.k8s.io/v1)`);
    }
    for (const rule of c.options.permissions ?? []) {
      for (const g of rule.apiGroups) {
        for (const r of rule.resources) add(g, r, rule.verbs, `${c.name}: declared permission`);
      }
    }
  }
  for (const crd of mgr.installedCrds) {
    add(
      'apiextensions.k8s.io',
      'customresourcedefinitions',
      ['get', 'patch'],
      `setup: mgr.ensureCrd of ${crd} (server-side apply, then reads until Established)`,
    );
  }
  if (mgr.elector !== undefined) {
    add(
      'coordination.k8s.io',
      'leases',
      ['get', 'create', 'update'],
      'leader election (acquire, renew, release)',
      mgr.elector.leaseNamespace,
    );
  }
  return out;
}

/**
 * Runs `use` with the example's Manager after `setup`, built as
 * `rxkube rbac --leader-elect --operator-namespace rxkube-system` builds it.
 */
async function withManager<T>(name: string, use: (mgr: Manager) => T | Promise<T>): Promise<T> {
  const server = await startApiServer();
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  try {
    const runnable = await loadOperatorModule(operatorModule(name));
    const mgr = await runnable.manager({
      client,
      name: runnable.name ?? name,
      logLevel: 'silent',
      leaderElection: { leaseNamespace: OPERATOR_NAMESPACE },
    });
    return await use(mgr);
  } finally {
    client.close();
    await server.stop();
  }
}

/** What `<name>/deploy/rbac.yaml` grants the operator's ServiceAccount. */
const shippedRbac = (name: string) =>
  grantsFor(
    parseManifests(readFileSync(exampleFile(name, 'deploy/rbac.yaml'), 'utf8')),
    name,
    OPERATOR_NAMESPACE,
  );

describe.each(SHIPPED_EXAMPLES.map((e) => [e.name, e] as const))('%s RBAC', (name, example) => {
  it('grants exactly what its registration explains, each grant with a reason', async () => {
    await withManager(name, async (mgr) => {
      const why = await reasons(mgr);
      const granted = new Set(shippedRbac(name).map((g) => grantKey(g)));
      expect(
        [...granted].filter((k) => !why.has(k)),
        'granted without a reason',
      ).toEqual([]);
      expect(
        [...why.keys()].filter((k) => !granted.has(k)),
        'needed but not granted',
      ).toEqual([]);
    });
  }, 30_000);

  it('on CRDs: get and patch on the one setup() installs with mgr.ensureCrd, by name, never create', async () => {
    await withManager(name, (mgr) => {
      const crdGrants = shippedRbac(name).filter((g) => g.resource === 'customresourcedefinitions');
      expect(mgr.installedCrds).toEqual(example.crd !== undefined ? [example.crd] : []);
      expect(crdGrants.map((g) => [g.verb, g.resourceNames])).toEqual(
        example.crd !== undefined
          ? [
              ['get', [example.crd]],
              ['patch', [example.crd]],
            ]
          : [],
      );
    });
  }, 30_000);
});
