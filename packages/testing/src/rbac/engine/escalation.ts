/**
 * RBAC escalation prevention, as kube-apiserver v1.24's RBAC storage enforces it
 * (`pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go`,
 * `pkg/registry/rbac/escalation_check.go`, `pkg/registry/rbac/validation/rule.go`
 * ConfirmNoEscalation): a user may create or update a Role/ClusterRole only with rules it holds
 * itself (where the role applies) or with the `escalate` verb on it, and a binding only to a role
 * whose rules it holds or with the `bind` verb on that role; an aggregationRule needs
 * cluster-admin's `*` rules; `system:masters` may do anything; an update that changes only
 * ownerReferences or finalizers (what the garbage collector writes) is never refused. The errors
 * are the real ones: a 403 listing the missing rules, a 404 for a binding to a missing role.
 *
 * @module
 */
import type { RequestUser } from '../../auth.js';
import type { WriteAttributes } from '../../handlers/engine-types.js';
import { ApiError, notFound } from '../../status.js';
import type { KObj } from '../../store/object.js';
import { deepEqual, isObject } from '../../store/object.js';
import type { ObjectStore } from '../../store/store.js';
import { goQuote } from '../../validation/names.js';
import { resourceAttributes } from '../attributes.js';
import type { Authorizer } from '../authorizer.js';
import { aggregateErrors, RoleNotFoundError, RuleResolver, SYSTEM_MASTERS } from '../authorizer.js';
import { forbiddenStatus } from '../forbidden.js';
import { compactRules, compactString, covers } from '../policy.js';
import type { PolicyRule } from '../types.js';
import { RBAC_GROUP, roleRefOf, rulesOf } from '../types.js';

/** cluster-admin's rules (`fullAuthority`): what setting an aggregationRule needs. */
const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const goList = (l: readonly string[]): string => `[${l.map(goQuote).join(' ')}]`;

/** `rbacregistry.IsOnlyMutatingGCFields`: the update changes nothing but ownerReferences/finalizers. */
function onlyGcFields(next: KObj, old: KObj): boolean {
  const strip = (o: KObj): KObj => {
    const {
      ownerReferences: _o,
      finalizers: _f,
      managedFields: _m,
      resourceVersion: _r,
      ...meta
    } = o.metadata;
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(next), strip(old));
}

function hasAggregationRule(o: KObj | undefined): boolean {
  const rule = o?.['aggregationRule'];
  return (
    isObject(rule) && Array.isArray(rule['clusterRoleSelectors']) && rule['clusterRoleSelectors'].length > 0
  );
}

/**
 * The registry's escalation check, installed as the engine's `beforeValidate` hook when
 * authorization is on.
 *
 * ## Example
 * ```ts
 * import type { Engine } from '../../handlers/engine.js';
 * import { RbacAuthorizer } from '../authorizer.js';
 * declare const engine: Engine; // the server's
 * engine.hooks.beforeValidate = escalationCheck(engine.store, new RbacAuthorizer(engine.store));
 * ```
 */
export function escalationCheck(store: ObjectStore, authorizer: Authorizer): (w: WriteAttributes) => void {
  // the registry resolves roles through its storage: missing roles read `roles.rbac…` (plural)
  const resolver = new RuleResolver(store, 'registry');

  /** `ConfirmNoEscalation`: the error message when `user` does not hold `rules` in `namespace`. */
  const missingRights = (
    user: RequestUser,
    namespace: string,
    rules: readonly PolicyRule[],
  ): string | undefined => {
    const owner = resolver.rulesFor(user, namespace);
    const { covered, missing } = covers(owner.rules, rules);
    if (covered) return undefined;
    const described = [...new Set(compactRules(missing).map(compactString))].sort();
    let msg = `user ${goQuote(user.name)} (groups=${goList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${described.join('\n')}`;
    if (owner.errors.length > 0) msg += `; resolution errors: [${aggregateErrors(owner.errors)}]`;
    return msg;
  };

  const allowed = (
    user: RequestUser,
    verb: string,
    resource: string,
    namespace: string,
    name: string,
    group = RBAC_GROUP,
  ): boolean =>
    authorizer.authorize(resourceAttributes(user, verb, { apiGroup: group, resource, namespace, name }))
      .allowed;

  return (w) => {
    const user = w.user;
    if (user === undefined || w.type.group !== RBAC_GROUP) return;
    if (user.groups.includes(SYSTEM_MASTERS)) return; // EscalationAllowed
    const resource = w.type.resource;
    const namespace = w.namespace ?? '';
    const name = w.name;
    const updating = w.operation === 'UPDATE' && w.oldObject !== undefined;
    if (resource === 'roles' || resource === 'clusterroles') {
      // RoleEscalationAuthorized: the request's name (none on a POST)
      if (allowed(user, 'escalate', resource, namespace, updating ? name : '')) return;
      if (updating && w.oldObject && onlyGcFields(w.object, w.oldObject)) return;
      const msg = missingRights(user, namespace, rulesOf(w.object));
      if (msg !== undefined) throw new ApiError(forbiddenStatus(RBAC_GROUP, resource, name, msg));
      if (
        resource === 'clusterroles' &&
        (hasAggregationRule(w.object) || (updating && hasAggregationRule(w.oldObject)))
      ) {
        if (missingRights(user, namespace, FULL_AUTHORITY) !== undefined) {
          throw new ApiError(
            forbiddenStatus(
              RBAC_GROUP,
              resource,
              name,
              'must have cluster-admin privileges to use the aggregationRule',
            ),
          );
        }
      }
      return;
    }
    if (resource !== 'rolebindings' && resource !== 'clusterrolebindings') return;
    if (updating && w.oldObject && onlyGcFields(w.object, w.oldObject)) return;
    const ref = roleRefOf(w.object);
    // BindingAuthorized: `bind` on the referenced role, in the binding's namespace
    const refResource =
      ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : undefined;
    if (refResource !== undefined && allowed(user, 'bind', refResource, namespace, ref.name, ref.apiGroup))
      return;
    let rules: PolicyRule[];
    try {
      rules = resolver.roleReferenceRules(ref, namespace);
    } catch (e) {
      if (e instanceof RoleNotFoundError)
        throw new ApiError(notFound({ group: RBAC_GROUP, resource: e.resource }, e.roleName));
      throw e;
    }
    const msg = missingRights(user, namespace, rules);
    if (msg !== undefined) throw new ApiError(forbiddenStatus(RBAC_GROUP, resource, name, msg));
  };
}
