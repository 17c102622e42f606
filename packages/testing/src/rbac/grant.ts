/**
 * Building RBAC objects for a test in one call: `rbacGrant('alice', rules, { namespace })` is the
 * Role and RoleBinding (or, without a namespace, the ClusterRole and ClusterRoleBinding) a cluster
 * admin would apply. Pass the result to `startApiServer({ auth: { tokens }, objects })`, or create
 * it through the API. Nothing here is a side channel: the server authorizes from these objects.
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { KObj } from '../store/object.js';
import { splitServiceAccountUser } from './impersonation.js';
import type { PolicyRule, Subject } from './types.js';
import { RBAC_GROUP, ruleJson } from './types.js';

/**
 * Options of {@link rbacGrant}.
 *
 * ## Example
 * ```ts
 * const options: RbacGrantOptions = { namespace: 'shop', name: 'widget-operator' };
 * // A Role and a RoleBinding in shop, both named widget-operator:
 * import type { PolicyRule } from '@rxkube/testing/rbac';
 * const rules: PolicyRule[] = [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] }];
 * const objects = rbacGrant('system:serviceaccount:ops:widget-operator', rules, options);
 * ```
 */
export interface RbacGrantOptions {
  /** Grant in this namespace (Role + RoleBinding); cluster-wide without it. */
  readonly namespace?: string;
  /** Name of the role and its binding (default: derived from the subject and the rules). */
  readonly name?: string;
}

function subjectOf(who: string | Subject): Subject {
  if (typeof who !== 'string') return who;
  const sa = splitServiceAccountUser(who);
  if (sa !== undefined) return { kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace };
  return { kind: 'User', apiGroup: RBAC_GROUP, name: who };
}

/**
 * A role with `rules` and a binding of it to `who` — a user name (a
 * `system:serviceaccount:<namespace>:<name>` name becomes a ServiceAccount subject) or a Subject.
 *
 * ## Example
 * ```ts
 * const server = await startApiServer({
 *   auth: { tokens: { 'alice-token': 'alice' } },
 *   objects: rbacGrant('alice', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }], {
 *     namespace: 'default',
 *   }),
 * });
 * ```
 */
export function rbacGrant(
  who: string | Subject,
  rules: readonly PolicyRule[],
  options: RbacGrantOptions = {},
): KObj[] {
  const subject = subjectOf(who);
  const hash = createHash('sha256')
    .update(JSON.stringify([subject, rules, options.namespace ?? '']))
    .digest('hex')
    .slice(0, 8);
  const name = options.name ?? `rxkube-grant:${subject.kind.toLowerCase()}:${subject.name}:${hash}`;
  const ns = options.namespace;
  const apiVersion = `${RBAC_GROUP}/v1`;
  const meta = ns === undefined ? { name } : { name, namespace: ns };
  const role: KObj = {
    apiVersion,
    kind: ns === undefined ? 'ClusterRole' : 'Role',
    metadata: { ...meta },
    rules: rules.map(ruleJson),
  };
  const binding: KObj = {
    apiVersion,
    kind: ns === undefined ? 'ClusterRoleBinding' : 'RoleBinding',
    metadata: { ...meta },
    roleRef: { apiGroup: RBAC_GROUP, kind: role.kind, name },
    subjects: [{ ...subject }],
  };
  return [role, binding];
}
