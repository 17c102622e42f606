/**
 * The rules `managerRbac` generates, granted to an operator and nothing more, on an API server
 * that enforces RBAC with the OwnerReferencesPermissionEnforcement admission plugin on (as
 * OpenShift does by default): a controller whose children come back through `watches` (not
 * `owns`) applies them with `ctx.applyChildren` — controller references with
 * `blockOwnerDeletion` — and none of its writes is refused. Without `update` on the owner's
 * `<plural>/finalizers` every child write is refused (issue 18 item 2).
 */
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { clientAs, limitedUsers } from '../client/backends.test.helper.js';
import { KubeClient } from '../client/kube-client.js';
import { isForbidden } from '../errors.js';
import type { KubeObject } from '../types.js';
import { Manager } from './manager.js';
import { managerRbac } from './rbac.js';

const NS = 'rbac-children';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const USER = 'children-operator';
const users = limitedUsers({ cop: USER });

/** Registers the controller under test: ConfigMaps labelled `parent=yes` get a Secret child each. */
function register(mgr: Manager): void {
  mgr.add(
    'parents',
    {
      for: CM,
      labelSelector: 'parent=yes',
      watches: [
        {
          resource: SECRET,
          map: (s: KubeObject) =>
            (s.metadata.ownerReferences ?? [])
              .filter((r) => r.kind === 'ConfigMap')
              .map((r) => ({ namespace: s.metadata.namespace ?? '', name: r.name })),
        },
      ],
      permissions: [{ apiGroups: [''], resources: ['secrets'], verbs: ['create', 'patch', 'delete'] }],
    },
    async (_request, ctx) => {
      const child: KubeObject & { stringData: Record<string, string> } = {
        ...SECRET,
        metadata: { name: `${ctx.object.metadata.name ?? ''}-child` },
        stringData: { k: 'v' },
      };
      await ctx.applyChildren([child], { childTypes: [SECRET] });
      return Action.awaitChange();
    },
  );
}

describeEachBackend(
  'generated RBAC under OwnerReferencesPermissionEnforcement',
  (b) => {
    let admin: KubeClient;
    beforeAll(async () => {
      admin = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    });
    afterAll(async () => {
      await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
      admin.close();
    });

    it('children applied and watched through `watches` are created with exactly the generated rules', async () => {
      // the rules, from a manager as `rxkube rbac` builds it (the admin's discovery)
      const described = new Manager({ client: admin, name: 'children', logLevel: 'silent' });
      register(described);
      const { rules } = await managerRbac(described);
      expect(rules).toContainEqual({
        apiGroups: [''],
        resources: ['configmaps/finalizers'],
        verbs: ['update'],
      });
      const rbac = 'rbac.authorization.k8s.io';
      await admin.create({
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'children-operator' },
        rules: rules.map((r) => ({ ...r })),
      });
      await admin.create({
        apiVersion: `${rbac}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'children-operator' },
        roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'children-operator' },
        subjects: [{ apiGroup: rbac, kind: 'User', name: USER }],
      });
      const op = clientAs(b.cluster, 'cop');
      // a real RBAC authorizer reads its informer cache: the grant takes effect a moment later
      await waitFor('the grant in effect', async () => {
        try {
          await op.list(SECRET, { namespace: NS });
          return true;
        } catch (e) {
          if (isForbidden(e)) return false;
          throw e;
        }
      });
      const mgr = new Manager({ client: op, name: 'children', logLevel: 'silent' });
      register(mgr);
      const results: { key: string; error?: unknown }[] = [];
      mgr.results$.subscribe((r) => results.push(r));
      await mgr.start();
      try {
        for (const name of ['a', 'b']) {
          await admin.create({ ...CM, metadata: { name, namespace: NS, labels: { parent: 'yes' } } });
        }
        await waitFor('both children created', async () => {
          const secrets = await b.cluster.list('secrets', NS);
          return ['a-child', 'b-child'].every((n) => secrets.some((s) => s.metadata.name === n));
        });
        const child = await b.cluster.get('secrets', NS, 'a-child');
        expect(child?.metadata.ownerReferences).toMatchObject([
          { kind: 'ConfigMap', name: 'a', controller: true, blockOwnerDeletion: true },
        ]);
        expect(results.filter((r) => r.error !== undefined).map((r) => String(r.error))).toEqual([]);
      } finally {
        await mgr.stop();
        op.close();
      }
    });
  },
  {
    embedded: { ...users.options.embedded, enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'] },
    real: { ...users.options.real, enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'] },
  },
);
