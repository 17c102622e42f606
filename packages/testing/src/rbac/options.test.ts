/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
/**
 * What only the embedded server has around RBAC: the options that turn it on (`auth.tokens`,
 * RBAC objects in `objects`, `rbacGrant`, `enableAdmissionPlugins`), its answers with authorization off
 * (`--authorization-mode=AlwaysAllow`), and the audit log.
 */
import { describe, expect, it } from 'vitest';

import { as } from '../internal/rbac-cluster.js';
import { startApiServer } from '../server.js';
import { rbacGrant } from './grant.js';

const AUTHZ = '/apis/authorization.k8s.io/v1';
const ssar = (resourceAttributes: unknown): unknown => ({ spec: { resourceAttributes } });

describe('rbacGrant', () => {
  it('a Role and RoleBinding in a namespace, a ClusterRole and ClusterRoleBinding without one', () => {
    const rules = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
    const [role, binding] = rbacGrant('alice', rules, { namespace: 'default', name: 'cm' });
    expect(role).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'cm', namespace: 'default' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
    });
    expect(binding).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'cm', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    });
    const [clusterRole, clusterBinding] = rbacGrant('system:serviceaccount:ops:op', rules);
    expect(clusterRole?.kind).toBe('ClusterRole');
    expect(clusterBinding?.['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'op', namespace: 'ops' }]);
    // derived names differ by subject and rules, so two grants never collide
    expect(rbacGrant('bob', rules)[0]?.metadata.name).not.toBe(clusterRole?.metadata.name);
  });

  it('is what the server authorizes from (objects, not a side channel): deleting the binding revokes', async () => {
    const s = await startApiServer({
      auth: { tokens: { admin: { name: 'admin', groups: ['system:masters'] }, reader: 'reader' } },
      objects: rbacGrant('reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }], {
        namespace: 'default',
        name: 'reader',
      }),
    });
    try {
      const cms = '/api/v1/namespaces/default/configmaps';
      expect((await as(s.url, 'reader', 'GET', cms)).status).toBe(200);
      const rb = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/reader';
      expect((await as(s.url, 'admin', 'DELETE', rb)).status).toBe(200);
      expect((await as(s.url, 'reader', 'GET', cms)).status).toBe(403);
    } finally {
      await s.stop();
    }
  });
});

describe('options checked at start', () => {
  it('RBAC objects preloaded with `objects`: in a namespace of the same list, validated like any write', async () => {
    const s = await startApiServer({
      auth: { tokens: { t: 'u' } },
      objects: [
        ...rbacGrant('u', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }], {
          namespace: 'team-a',
        }),
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } }, // created first
      ],
    });
    try {
      expect((await as(s.url, 't', 'GET', '/api/v1/namespaces/team-a/configmaps')).status).toBe(200);
    } finally {
      await s.stop();
    }
    const bad = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'bad' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'x' },
    };
    await expect(startApiServer({ auth: { tokens: { t: 'u' } }, objects: [bad] })).rejects.toThrow(
      /ClusterRoleBinding bad\) was refused: .*roleRef\.kind: Unsupported value: "Role": supported values: "ClusterRole"/,
    );
  });

  it('an admission plugin the embedded server does not have is named', async () => {
    await expect(
      startApiServer({ enableAdmissionPlugins: ['NamespaceAutoProvision' as never] }),
    ).rejects.toThrow(
      /enableAdmissionPlugins: unknown plugin "NamespaceAutoProvision"; the embedded server has OwnerReferencesPermissionEnforcement/,
    );
  });
});

describe('authorization off (no auth): --authorization-mode=AlwaysAllow', () => {
  it('every request is allowed, reviews say so, impersonation is allowed and changes the user', async () => {
    const s = await startApiServer({ audit: {} });
    try {
      const review = await as(
        s.url,
        '',
        'POST',
        `${AUTHZ}/selfsubjectaccessreviews`,
        ssar({ verb: 'delete', resource: 'nodes' }),
      );
      expect(review.status).toBe(201);
      expect(review.body.status).toEqual({ allowed: true });
      const r = await as(s.url, '', 'GET', '/api/v1/namespaces', undefined, { 'Impersonate-User': 'alice' });
      expect(r.status).toBe(200);
      expect(s.auditEvents().at(-1)?.impersonatedUser).toEqual({
        username: 'alice',
        groups: ['system:authenticated'],
      });
    } finally {
      await s.stop();
    }
  });
});

describe('the audit log (level Metadata, as kube-apiserver writes it)', () => {
  it('records who, what, the answer and the authorization decision; bounded by maxEvents', async () => {
    const s = await startApiServer({
      auth: {
        tokens: { admin: { name: 'admin', groups: ['system:masters'] }, bob: { name: 'bob', uid: 'b1' } },
      },
      audit: { maxEvents: 3 },
    });
    try {
      await as(s.url, 'bob', 'GET', '/api/v1/namespaces/default/configmaps/c?x=1');
      await as(s.url, 'admin', 'GET', '/api/v1/namespaces/default/configmaps/c');
      await as(s.url, 'nope', 'GET', '/version');
      await as(s.url, 'bob', 'GET', '/apis');
      const events = s.auditEvents();
      expect(events).toHaveLength(3);
      expect(events[0]).toMatchObject({
        requestURI: '/api/v1/namespaces/default/configmaps/c',
        verb: 'get',
        user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] },
        objectRef: { resource: 'configmaps', namespace: 'default', name: 'c', apiVersion: 'v1' },
        responseStatus: { code: 404 },
        annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
      });
      // a refused token: no user, no decision
      expect(events[1]).toMatchObject({
        requestURI: '/version',
        verb: 'get',
        user: { username: '' },
        responseStatus: { code: 401 },
      });
      expect(events[1]?.annotations).toEqual({});
      expect(events[2]).toMatchObject({
        requestURI: '/apis',
        user: { username: 'bob', uid: 'b1' },
        annotations: {
          'authorization.k8s.io/decision': 'allow',
          'authorization.k8s.io/reason':
            'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
        },
      });
      expect(events[2]?.objectRef).toBeUndefined();
      // the dropped first event was bob's refused get
      const refused = await startApiServer({ auth: { tokens: { bob: 'bob' } }, audit: {} });
      try {
        await as(refused.url, 'bob', 'GET', '/api/v1/namespaces/default/configmaps/c');
        expect(refused.auditEvents()[0]).toMatchObject({
          responseStatus: { code: 403 },
          annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' },
        });
      } finally {
        await refused.stop();
      }
    } finally {
      await s.stop();
    }
  });

  it('is off by default, and maxEvents must be a positive integer', async () => {
    const s = await startApiServer();
    try {
      await as(s.url, '', 'GET', '/api');
      expect(s.auditEvents()).toEqual([]);
    } finally {
      await s.stop();
    }
    await expect(startApiServer({ audit: { maxEvents: 0 } })).rejects.toThrow(
      /audit\.maxEvents must be a positive integer/,
    );
  });
});
