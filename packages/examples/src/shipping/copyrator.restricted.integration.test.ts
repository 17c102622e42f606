/**
 * copyrator with exactly its shipped RBAC (deploy/rbac.yaml, from rxkube rbac), run as its
 * Deployment runs it (rxkube run's module loading, leader election on, the lease in
 * rxkube-system, the ServiceAccount's token), through copyrator's own demo scenario with an admin
 * playing the user. The API server enforces RBAC from the applied rbac.yaml and records every
 * request in its audit log: none may be refused, each must be allowed by rbac.yaml's own bindings,
 * and the scenario must exercise what copyrator declares it needs.
 */
import type { KubeObject, Manager } from '@rxkube/kube';
import type { BackendName } from '@rxkube/testing';
import { selectedBackends } from '@rxkube/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCopyratorDemo } from '../../copyrator/src/demo.js';
import { COPY_PERMISSIONS } from '../../copyrator/src/operator.js';
import { RULE_LABEL, RULE_TYPE } from '../../copyrator/src/rule-types.js';
import { grantKey } from './grants.js';
import { OPERATOR_NAMESPACE, SHIPPED_EXAMPLES } from './manifests.js';
import type { RestrictedOperator } from './restricted-operator.js';
import { startRestrictedOperator } from './restricted-operator.js';

const copyrator = SHIPPED_EXAMPLES.find((e) => e.name === 'copyrator');

/**
 * Grants the scenario may leave unused, and why. Anything else unused is a grant nobody needs.
 */
const MAY_STAY_UNUSED: Readonly<Record<string, string>> = {
  [grantKey({ group: 'events.k8s.io', resource: 'events', verb: 'patch' })]:
    'an Event repeated within its series window is patched; the scenario may not repeat one',
  [grantKey({ group: 'copyrator.rxkube.io', resource: 'copyratorrules/finalizers', verb: 'update' })]:
    'derived because it writes and watches Secrets and ConfigMaps (a child path); copies carry no ownerReference, which managerRbac cannot see',
  [grantKey({ group: 'copyrator.rxkube.io', resource: 'copyratorrules', verb: 'get' })]:
    'the status sink re-reads the rule after a 409 conflict only',
  [grantKey({
    group: 'coordination.k8s.io',
    resource: 'leases',
    verb: 'get',
    namespace: OPERATOR_NAMESPACE,
  })]: 'the elector reads the Lease only when creating it conflicted',
};

function suite(backend: BackendName): void {
  let op: RestrictedOperator;
  let converged = false;
  const demoLog: string[] = [];

  // The scenario runs once; its failures become the first test's (so the refusal test still
  // shows which requests were refused).
  beforeAll(async () => {
    if (copyrator === undefined) throw new Error('copyrator is not among SHIPPED_EXAMPLES');
    op = await startRestrictedOperator(copyrator, { backend });
    try {
      // The demo writes through the client it is given and waits on results$: hand it the admin
      // (the user) and the operator's results; the operator itself writes only with its own token.
      const asUser = { client: op.admin, results$: op.mgr.results$ } as unknown as Manager;
      converged = await runCopyratorDemo(asUser, (line) => demoLog.push(line), { stepTimeoutMs: 10_000 });
      // The demo deletes the ConfigMap rule; delete the Secret rule too (the finalizer's cleanup).
      await op.admin.delete({ ...RULE_TYPE, name: 'registry-credentials' });
      await op.until('registry-credentials copies deleted and the rule gone', async () => {
        const secrets = (await op.cluster.list('secrets')).filter(
          (s) => (s as KubeObject).metadata.labels?.[RULE_LABEL] === 'registry-credentials',
        );
        return (
          secrets.length === 0 && (await op.cluster.list('copyratorrules.copyrator.rxkube.io')).length === 0
        );
      });
    } catch (error) {
      converged = false;
      demoLog.push(String(error));
    }
  }, 240_000);
  afterAll(async () => {
    await op?.stop();
  }, 60_000);

  it('converges through its own demo scenario', () => {
    expect(converged, demoLog.join('\n')).toBe(true);
  });

  it('is never refused: no 401/403 answer, no reconcile error, /readyz passes', async () => {
    expect(op.refused()).toEqual([]);
    expect(op.results.filter((r) => r.error !== undefined).map((r) => String(r.error))).toEqual([]);
    expect(op.mgr.readinessChecks().map((c) => [c.name, c.check()])).toEqual(
      op.mgr.readinessChecks().map((c) => [c.name, { ok: true }]),
    );
    const port = op.mgr.ports[0];
    const readyz = await fetch(`http://127.0.0.1:${port}/readyz?verbose`);
    expect(readyz.status, await readyz.text()).toBe(200);
  });

  it('leads through the Lease copyrator in rxkube-system (the lease Role)', async () => {
    const lease = (await op.cluster.get('leases.coordination.k8s.io', OPERATOR_NAMESPACE, 'copyrator')) as
      (KubeObject & { spec?: { holderIdentity?: string } }) | undefined;
    // In the pod the identity starts with POD_NAME (process.env); here it is this host's name.
    expect(lease?.spec?.holderIdentity).toBe(op.mgr.identity);
  });

  it('used only what the manifests grant (allowed by rbac.yaml’s own bindings, and in its grants)', () => {
    expect(op.allowedOutsideItsRbac()).toEqual([]);
    const granted = new Set(op.grants.map((g) => grantKey(g)));
    const outside = op
      .requests()
      .filter((r) => r.resource !== undefined)
      .filter((r) => {
        const res = r.resource!;
        const resource = res.subresource !== undefined ? `${res.resource}/${res.subresource}` : res.resource;
        const base = { group: res.group, resource, verb: r.verb };
        return (
          !granted.has(grantKey(base)) &&
          !(res.namespace !== undefined && granted.has(grantKey({ ...base, namespace: res.namespace })))
        );
      });
    expect(outside.map((r) => `${r.verb} ${r.url}`)).toEqual([]);
  });

  it('updated its own CRD with its own token (mgr.ensureCrd in setup; the CRD was applied ahead)', () => {
    const crdRequests = op
      .requests()
      .filter((r) => r.resource?.resource === 'customresourcedefinitions')
      .map((r) => [r.verb, r.resource?.name, r.status]);
    // one server-side apply, then reads until Established — on that name only, never refused
    expect(crdRequests.filter(([verb]) => verb !== 'get')).toEqual([['patch', copyrator?.crd, 200]]);
    expect(crdRequests.filter(([verb]) => verb === 'get')).toContainEqual(['get', copyrator?.crd, 200]);
    expect(new Set(crdRequests.map(([, name, status]) => `${name} ${status}`))).toEqual(
      new Set([`${copyrator?.crd} 200`]),
    );
  });

  it('exercised every verb of COPY_PERMISSIONS on ConfigMaps and Secrets', () => {
    const used = (resource: string, verb: string): boolean =>
      op.requests().some(
        (r) =>
          r.resource?.group === '' &&
          r.resource.resource === resource &&
          r.resource.subresource === undefined &&
          (verb === 'create'
            ? // server-side apply creating the copy: a PATCH answered 201 Created
              r.verb === 'create' || (r.verb === 'patch' && r.status === 201)
            : r.verb === verb),
      );
    const missing: string[] = [];
    for (const rule of COPY_PERMISSIONS) {
      for (const resource of rule.resources) {
        for (const verb of rule.verbs) {
          if (!used(resource, verb)) missing.push(`${verb} ${resource}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('stops gracefully, releasing the Lease (update) unrefused, and left unused only grants with a known reason', async () => {
    expect(await op.mgr.stop()).toMatchObject({ drained: true, cancelled: 0 });
    expect(op.refused()).toEqual([]);
    expect(op.unusedGrants().filter((k) => MAY_STAY_UNUSED[k] === undefined)).toEqual([]);
    // and no reason above is stale: each names a grant rbac.yaml has
    const granted = new Set(op.grants.map((g) => grantKey(g)));
    expect(Object.keys(MAY_STAY_UNUSED).filter((k) => !granted.has(k))).toEqual([]);
  });
}

for (const selection of selectedBackends()) {
  const title = `copyrator with its shipped RBAC (RBAC-enforcing API server, leader election, audit log) [${selection.name}]`;
  if (!selection.enabled)
    describe.skip(`${title} — skipped: ${selection.reason ?? 'not selected'}`, () => suite(selection.name));
  else describe(title, () => suite(selection.name));
}
