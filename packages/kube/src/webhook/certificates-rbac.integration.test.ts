/**
 * The RBAC `managerRbac` generates for self-managed webhook certificates, granted to an operator
 * and nothing more: its webhook server creates the CA Secret, injects the caBundle into its
 * webhook configuration at start, and renews the certificate (get + update on the Secret) — none
 * of it refused; another Secret of that namespace stays out of reach.
 */
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { clientAs, limitedUsers } from '../client/backends.test.helper.js';
import { KubeClient } from '../client/kube-client.js';
import { isForbidden } from '../errors.js';
import { Manager } from '../manager/manager.js';
import { managerRbac } from '../manager/rbac.js';
import { ensureWebhookCertificates } from './ensure-certificates.js';
import { allowed } from './types.js';
import type { SelfManagedCertificates, WebhookServerOptions } from './webhook-server.js';
import { WebhookServer } from './webhook-server.js';

const NS = 'cert-rbac';
const USER = 'cert-operator';
const users = limitedUsers({ certop: USER });
const CONFIG = 'cert-rbac-op';
const certificates: SelfManagedCertificates = {
  secret: { namespace: NS, name: 'cert-rbac-certs' },
  hosts: ['127.0.0.1'],
  inject: { validating: [CONFIG] },
};
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
const rbacGroup = 'rbac.authorization.k8s.io';

describeEachBackend(
  'generated RBAC of self-managed webhook certificates',
  (b) => {
    let admin: KubeClient;
    beforeAll(async () => {
      admin = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      // a configuration that matches nothing: only its caBundle matters here
      await admin.create({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: CONFIG },
        webhooks: [
          {
            name: 'v.cert-rbac.example.com',
            clientConfig: { url: 'https://127.0.0.1:1/validate' },
            rules: [
              { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
            ],
            namespaceSelector: { matchLabels: { 'cert-rbac': 'never' } },
            failurePolicy: 'Ignore',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      } as never);
    });
    afterAll(async () => {
      await admin
        .delete({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          name: CONFIG,
        })
        .catch(() => undefined);
      await admin.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
      admin.close();
    });

    it('creates the Secret, injects the caBundle and renews with exactly the generated rules', async () => {
      const options: Omit<WebhookServerOptions, 'log' | 'registry'> = {
        host: '127.0.0.1',
        port: 0,
        tls: { selfManaged: certificates },
      };
      const described = new Manager({ client: admin, name: 'cert-op', logLevel: 'silent' });
      described.webhooks(options).validate(CM, () => allowed());
      const grants = await managerRbac(described);
      expect(grants.certificateNamespace).toBe(NS);
      await admin.create({
        apiVersion: `${rbacGroup}/v1`,
        kind: 'ClusterRole',
        metadata: { name: 'cert-operator' },
        rules: grants.rules.map((r) => ({ ...r })),
      } as never);
      await admin.create({
        apiVersion: `${rbacGroup}/v1`,
        kind: 'Role',
        metadata: { name: 'cert-operator', namespace: NS },
        rules: (grants.certificateRules ?? []).map((r) => ({ ...r })),
      } as never);
      for (const kind of ['ClusterRoleBinding', 'RoleBinding'] as const) {
        await admin.create({
          apiVersion: `${rbacGroup}/v1`,
          kind,
          metadata: { name: 'cert-operator', ...(kind === 'RoleBinding' ? { namespace: NS } : {}) },
          roleRef: {
            apiGroup: rbacGroup,
            kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole',
            name: 'cert-operator',
          },
          subjects: [{ apiGroup: rbacGroup, kind: 'User', name: USER }],
        } as never);
      }
      const op = clientAs(b.cluster, 'certop');
      try {
        // a real RBAC authorizer reads its informer cache: the grant takes effect a moment later
        await waitFor('the grant in effect', async () => {
          try {
            await op.get({
              apiVersion: 'admissionregistration.k8s.io/v1',
              kind: 'ValidatingWebhookConfiguration',
              name: CONFIG,
            });
            return true;
          } catch (e) {
            if (isForbidden(e)) return false;
            throw e;
          }
        });
        const server = new WebhookServer({ ...options, client: op }).validate(CM, () => allowed());
        await server.start(); // creates the Secret, injects the caBundle
        await server.stop();
        const config = await admin.get<
          { webhooks: { clientConfig: { caBundle?: string } }[] } & Record<string, unknown>
        >({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingWebhookConfiguration',
          name: CONFIG,
        });
        expect(config.webhooks[0]?.clientConfig.caBundle).toMatch(/^[A-Za-z0-9+/=]+$/);
        // a renewal: get and update of the Secret by name
        const renewed = await ensureWebhookCertificates(op, {
          ...certificates,
          now: new Date(Date.now() + 340 * DAY_MS),
        });
        expect(renewed.notAfter.getTime()).toBeGreaterThan(Date.now() + 364 * DAY_MS);
        // nothing else: another Secret in that namespace is not the operator's to read
        const other = await op
          .get({ apiVersion: 'v1', kind: 'Secret', namespace: NS, name: 'someone-elses' })
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(isForbidden(other)).toBe(true);
      } finally {
        op.close();
      }
    });
  },
  { embedded: users.options.embedded, real: users.options.real },
);
