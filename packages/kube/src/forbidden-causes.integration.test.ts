/**
 * Every Forbidden cause the API server answers the writes rxkube makes with, provoked on the
 * server and classified from its own words (`classifyForbidden`): an RBAC denial, the
 * OwnerReferencesPermissionEnforcement admission plugin's two refusals (both fixed by a grant the
 * message names), RBAC's escalation check on a RoleBinding (fixed by `bind`), ResourceQuota's
 * refusal (both backends), and on the real server the admission plugin the embedded one does not
 * run (PodSecurity). Each grant the message names is then made and the same write passes — the
 * message says the truth.
 *
 * Sources of the server's words (kube-apiserver v1.24): `plugin/pkg/admission/gc/gc_admission.go`
 * ("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set
 * finalizers on", "cannot set an ownerRef on a resource you can't delete"),
 * `pkg/registry/rbac/validation/rule.go` `ConfirmNoEscalation` ("is attempting to grant RBAC
 * permissions not currently held"), `plugin/pkg/admission/resourcequota/controller.go` ("exceeded
 * quota"), `pod-security-admission/admission/admission.go` ("violates PodSecurity").
 */
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { clientAs, limitedUsers, permit } from './client/backends.test.helper.js';
import { KubeClient } from './client/kube-client.js';
import { forbiddenCause, isForbidden, KubeApiError } from './errors.js';
import type { KubeObject } from './types.js';

const NS = 'forbidden-causes';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const users = limitedUsers({ fop: 'forbidden-operator' });
const USER = 'forbidden-operator';

/** The error `write` rejects with (fails the test when it resolves). */
async function refusal(write: Promise<unknown>): Promise<KubeApiError> {
  try {
    await write;
  } catch (e) {
    if (e instanceof KubeApiError) return e;
    throw e;
  }
  throw new Error('expected the write to be refused');
}

/**
 * Resolves once `write` passes. A real RBAC authorizer reads its informer cache, so a fresh grant
 * takes effect a moment later; only a 403 is retried.
 */
async function passes(label: string, write: () => Promise<unknown>): Promise<void> {
  await waitFor(label, async () => {
    try {
      await write();
      return true;
    } catch (e) {
      if (isForbidden(e)) return false;
      throw e;
    }
  });
}

describeEachBackend(
  'Forbidden causes of the writes rxkube makes',
  (b) => {
    let admin: KubeClient;
    let op: KubeClient;
    let owner: KubeObject;

    beforeAll(async () => {
      admin = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      op = clientAs(b.cluster, 'fop');
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      await permit(admin, {
        user: USER,
        namespace: NS,
        group: '',
        resources: ['configmaps'],
        verbs: ['get', 'create', 'patch'],
      });
      owner = await admin.create({ ...CM, metadata: { name: 'owner', namespace: NS } });
      await passes('the operator can create ConfigMaps', () =>
        op.create({ ...CM, metadata: { name: 'probe', namespace: NS } }),
      );
    });
    afterAll(async () => {
      op.close();
      await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
      admin.close();
    });

    const child = (name: string, blockOwnerDeletion: boolean): KubeObject => ({
      ...CM,
      metadata: {
        name,
        namespace: NS,
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: owner.metadata.uid ?? '',
            controller: true,
            blockOwnerDeletion,
          },
        ],
      },
    });

    it('an RBAC denial is rbac and names the rule to grant', async () => {
      const e = await refusal(op.list({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS }));
      expect(forbiddenCause(e)).toBe('rbac');
      expect(e.message).toContain(
        'Grant it with a Role rule { apiGroups: [""], resources: ["secrets"], verbs: ["list"] }',
      );
    });

    it('blockOwnerDeletion without update on the owner’s finalizers names that grant, which fixes it', async () => {
      const e = await refusal(op.create(child('blocking-child', true)));
      expect(e.status.message).toContain(
        "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on",
      );
      expect(forbiddenCause(e)).toBe('owner-references');
      expect(e.message).not.toContain('not an RBAC problem');
      expect(e.message).toContain(
        'a Role rule { apiGroups: [""], resources: ["configmaps/finalizers"], verbs: ["update"] } (owner ConfigMap "owner")',
      );
      // a reference that does not block owner deletion needs no grant
      await op.create(child('non-blocking-child', false));
      // the grant the message names
      await permit(admin, {
        user: USER,
        namespace: NS,
        group: '',
        resources: ['configmaps/finalizers'],
        verbs: ['update'],
      });
      await passes('the blocking child created after the grant', () =>
        op.create(child('blocking-child', true)),
      );
    });

    it('changing ownerReferences on an update without delete on the object names that grant, which fixes it', async () => {
      await op.create({ ...CM, metadata: { name: 'adopted', namespace: NS } });
      const adopt = () =>
        op.patch(
          { ...CM, namespace: NS, name: 'adopted' },
          {
            type: 'merge',
            body: { metadata: { ownerReferences: child('adopted', false).metadata.ownerReferences } },
          },
        );
      const e = await refusal(adopt());
      expect(e.status.message).toContain("cannot set an ownerRef on a resource you can't delete");
      expect(forbiddenCause(e)).toBe('owner-references');
      expect(e.message).not.toContain('not an RBAC problem');
      expect(e.message).toContain('{ apiGroups: [""], resources: ["configmaps"], verbs: ["delete"] }');
      await permit(admin, {
        user: USER,
        namespace: NS,
        group: '',
        resources: ['configmaps'],
        verbs: ['delete'],
      });
      await passes('the adoption after the grant', adopt);
    });

    it('a RoleBinding to a role whose permissions the writer does not hold is escalation, fixed by bind on that role', async () => {
      await admin.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'secret-reader', namespace: NS },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
      });
      await permit(admin, {
        user: USER,
        namespace: NS,
        group: 'rbac.authorization.k8s.io',
        resources: ['rolebindings'],
        verbs: ['create'],
      });
      const bind = () =>
        op.create({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'read-secrets', namespace: NS },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' },
          subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: NS }],
        });
      let e: KubeApiError | undefined;
      await waitFor('the RoleBinding create reaches the escalation check', async () => {
        e = await refusal(bind());
        return forbiddenCause(e) !== 'rbac';
      });
      expect(e?.status.message).toContain('is attempting to grant RBAC permissions not currently held');
      expect(forbiddenCause(e)).toBe('escalation');
      expect(e?.message).toContain(
        'resources: ["roles"], resourceNames: ["<the roleRef name>"], verbs: ["bind"]',
      );
      expect(e?.message).not.toContain('not an RBAC problem');
      await permit(admin, {
        user: USER,
        namespace: NS,
        group: 'rbac.authorization.k8s.io',
        resources: ['roles'],
        resourceNames: ['secret-reader'],
        verbs: ['bind'],
      });
      await passes('the RoleBinding after the bind grant', bind);
    });

    it('an exhausted ResourceQuota is quota, not RBAC', async () => {
      await admin.create({
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'no-secrets', namespace: NS },
        spec: { hard: { 'count/secrets': '0' } },
      });
      await waitFor('the quota controller computed the quota', async () => {
        const q = (await b.cluster.get('resourcequotas', NS, 'no-secrets')) as
          { status?: { hard?: Record<string, string> } } | undefined;
        return q?.status?.hard?.['count/secrets'] !== undefined;
      });
      const e = await refusal(
        admin.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: NS } }),
      );
      expect(e.status.message).toContain('exceeded quota');
      expect(forbiddenCause(e)).toBe('quota');
      expect(e.message).toContain('This is not an RBAC problem');
    });

    b.itOn('real', 'PodSecurity admission is kube-apiserver’s')(
      'a Pod violating the namespace’s PodSecurity level is admission, not RBAC',
      async () => {
        await admin.create({
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: `${NS}-psa`, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } },
        });
        try {
          const e = await refusal(
            admin.create({
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: { name: 'p', namespace: `${NS}-psa` },
              spec: { containers: [{ name: 'c', image: 'busybox' }] },
            }),
          );
          expect(e.status.message).toContain('violates PodSecurity');
          expect(forbiddenCause(e)).toBe('admission');
          expect(e.message).toContain('This is not an RBAC problem');
        } finally {
          await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: `${NS}-psa` });
        }
      },
    );
  },
  {
    embedded: { ...users.options.embedded, enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'] },
    real: { ...users.options.real, enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'] },
  },
);
