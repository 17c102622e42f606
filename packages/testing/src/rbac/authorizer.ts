/**
 * Authorization from the RBAC objects stored in the server, as kube-apiserver v1.24 does it with
 * `--authorization-mode=RBAC`: first the `system:masters` superuser check
 * (`apiserver/pkg/authorization/authorizerfactory/builtin.go`), then the RBAC authorizer
 * (`plugin/pkg/auth/authorizer/rbac/rbac.go`) visiting the rules of every ClusterRoleBinding and,
 * in a namespace, every RoleBinding of that namespace whose subjects match the user
 * (`pkg/registry/rbac/validation/rule.go`), combined as `union.go` combines them. The allow reason
 * names the binding (`RBAC: allowed by RoleBinding "x/ns" of Role "r" to User "u"`); a denial
 * carries the errors met on the way (a binding to a missing role) as its reason.
 *
 * @module
 */
import type { RequestUser } from '../auth.js';
import type { KObj } from '../store/object.js';
import type { ObjectStore } from '../store/store.js';
import { goQuote } from '../validation/names.js';
import type { Attributes } from './attributes.js';
import { ruleAllows } from './policy.js';
import type { PolicyRule, RoleRef, Subject } from './types.js';
import { RBAC_GROUP, roleRefOf, rulesOf, subjectsOf } from './types.js';

/** An authorizer's answer: allowed, and why (or why not). */
export interface Decision {
  readonly allowed: boolean;
  readonly reason: string;
}

/** What a user may do in a namespace (SelfSubjectRulesReview). */
export interface RuleSet {
  readonly rules: readonly PolicyRule[];
  readonly incomplete: boolean;
  /** The errors met while resolving the rules (missing roles), aggregated. */
  readonly evaluationError?: string;
}

/** Decides requests and lists rules. */
export interface Authorizer {
  /** Whether the request is allowed. */
  authorize(a: Attributes): Decision;
  /** Every rule that applies to `user` in `namespace` (`''`: cluster-wide rules only). */
  rulesFor(user: RequestUser, namespace: string): RuleSet;
}

/** kube-apiserver `--authorization-mode=AlwaysAllow`: the answer when authorization is off. */
export const ALWAYS_ALLOW: Authorizer = {
  authorize: () => ({ allowed: true, reason: '' }),
  rulesFor: () => ({
    rules: [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ],
    incomplete: false,
  }),
};

/** Storage keys of the RBAC kinds. */
export const RBAC_STORAGE = {
  roles: `${RBAC_GROUP}/roles`,
  clusterroles: `${RBAC_GROUP}/clusterroles`,
  rolebindings: `${RBAC_GROUP}/rolebindings`,
  clusterrolebindings: `${RBAC_GROUP}/clusterrolebindings`,
} as const;

/**
 * How a missing role is named in errors: the authorizer reads through informer listers
 * (`role.rbac.authorization.k8s.io "x" not found`), the registry's escalation check through the
 * storage (`roles.rbac.authorization.k8s.io "x" not found`).
 */
export type NotFoundStyle = 'lister' | 'registry';

/** A role reference that could not be resolved. */
export class RoleNotFoundError extends Error {
  constructor(
    readonly resource: 'roles' | 'clusterroles',
    readonly roleName: string,
    style: NotFoundStyle,
  ) {
    const r = style === 'lister' ? resource.slice(0, -1) : resource;
    super(`${r}.${RBAC_GROUP} ${goQuote(roleName)} not found`);
  }
}

/** A visited rule: where it came from (described lazily), or an error resolving a binding. */
type Visitor = (
  source: (() => string) | undefined,
  rule: PolicyRule | undefined,
  error: string | undefined,
) => boolean;

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') {
    return `${s.kind} ${goQuote(`${s.name}/${s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace}`)}`;
  }
  return `${s.kind} ${goQuote(s.name)}`;
}

function appliesToUser(user: RequestUser, s: Subject, namespace: string): boolean {
  switch (s.kind) {
    case 'User':
      return user.name === s.name;
    case 'Group':
      return user.groups.includes(s.name);
    case 'ServiceAccount': {
      const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : namespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${s.name}`;
    }
    default:
      return false;
  }
}

/** Go's `utilerrors.NewAggregate(errs).Error()`: one message as is, several deduplicated in brackets. */
export function aggregateErrors(errors: readonly string[]): string {
  const seen = [...new Set(errors)];
  if (seen.length === 0) return '';
  return errors.length === 1 || seen.length === 1 ? (seen[0] ?? '') : `[${seen.join(', ')}]`;
}

/** Resolves the rules bindings give a user, from the store (`DefaultRuleResolver`). */
export class RuleResolver {
  constructor(
    private readonly store: ObjectStore,
    private readonly style: NotFoundStyle,
  ) {}

  private objects(storageKey: string, namespace?: string): KObj[] {
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const out: KObj[] = [];
    for (const key of this.store.sortedKeys(storageKey)) {
      if (prefix !== undefined && !key.startsWith(prefix)) continue;
      const o = this.store.get(storageKey, key);
      if (o) out.push(o);
    }
    return out;
  }

  /** The rules of the role a binding refers to; throws {@link RoleNotFoundError}. */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): PolicyRule[] {
    if (ref.kind === 'Role') {
      const o = this.store.get(RBAC_STORAGE.roles, `${bindingNamespace}/${ref.name}`);
      if (!o) throw new RoleNotFoundError('roles', ref.name, this.style);
      return rulesOf(o);
    }
    if (ref.kind === 'ClusterRole') {
      const o = this.store.get(RBAC_STORAGE.clusterroles, ref.name);
      if (!o) throw new RoleNotFoundError('clusterroles', ref.name, this.style);
      return rulesOf(o);
    }
    throw new Error(`unsupported role reference kind: ${goQuote(ref.kind)}`);
  }

  /** Calls `visit` with each rule that applies to `user` in `namespace`; stops when it returns false. */
  visitRulesFor(user: RequestUser, namespace: string, visit: Visitor): void {
    for (const b of this.objects(RBAC_STORAGE.clusterrolebindings)) {
      if (!this.visitBinding(user, b, '', visit)) return;
    }
    if (namespace === '') return;
    for (const b of this.objects(RBAC_STORAGE.rolebindings, namespace)) {
      if (!this.visitBinding(user, b, namespace, visit)) return;
    }
  }

  private visitBinding(user: RequestUser, binding: KObj, namespace: string, visit: Visitor): boolean {
    const subject = subjectsOf(binding).find((s) => appliesToUser(user, s, namespace));
    if (subject === undefined) return true;
    const ref = roleRefOf(binding);
    let rules: PolicyRule[];
    try {
      rules = this.roleReferenceRules(ref, namespace);
    } catch (e) {
      return visit(undefined, undefined, e instanceof Error ? e.message : String(e));
    }
    const name = binding.metadata.name ?? '';
    const source = (): string =>
      namespace === ''
        ? `ClusterRoleBinding ${goQuote(name)} of ${ref.kind} ${goQuote(ref.name)} to ${describeSubject(subject, '')}`
        : `RoleBinding ${goQuote(`${name}/${namespace}`)} of ${ref.kind} ${goQuote(ref.name)} to ${describeSubject(subject, namespace)}`;
    for (const rule of rules) if (!visit(source, rule, undefined)) return false;
    return true;
  }

  /** Every rule that applies, and the errors met (`RulesFor`). */
  rulesFor(user: RequestUser, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return { rules, errors };
  }
}

/** The privileged group that skips RBAC (`user.SystemPrivilegedGroup`). */
export const SYSTEM_MASTERS = 'system:masters';

/**
 * kube-apiserver's authorizer with `--authorization-mode=RBAC`: `system:masters` first, then the
 * RBAC objects in `store`.
 *
 * ## Example
 * ```ts
 * import type { RequestUser } from '../auth.js';
 * import { ObjectStore } from '../store/store.js';
 * import { requestAttributes } from './attributes.js';
 * const authz = new RbacAuthorizer(new ObjectStore(1000)); // the server's store, with no RBAC objects
 * const user: RequestUser = { name: 'alice', groups: ['system:authenticated'], anonymous: false };
 * authz.authorize(requestAttributes(user, 'GET', '/api/v1/namespaces/default/pods', new URLSearchParams()));
 * // { allowed: false, reason: '' }
 * ```
 */
export class RbacAuthorizer implements Authorizer {
  private readonly resolver: RuleResolver;

  constructor(store: ObjectStore) {
    this.resolver = new RuleResolver(store, 'lister');
  }

  authorize(a: Attributes): Decision {
    if (a.user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
    let reason = '';
    const errors: string[] = [];
    this.resolver.visitRulesFor(a.user, a.namespace, (source, rule, error) => {
      if (rule && source && ruleAllows(a, rule)) {
        reason = `RBAC: allowed by ${source()}`;
        return false;
      }
      if (error !== undefined) errors.push(error);
      return true;
    });
    if (reason !== '') return { allowed: true, reason };
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregateErrors(errors)}` : '' };
  }

  rulesFor(user: RequestUser, namespace: string): RuleSet {
    const { rules, errors } = this.resolver.rulesFor(user, namespace);
    return {
      rules,
      incomplete: false,
      ...(errors.length > 0 ? { evaluationError: aggregateErrors(errors) } : {}),
    };
  }
}
