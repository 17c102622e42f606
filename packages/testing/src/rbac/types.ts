/**
 * The rbac.authorization.k8s.io/v1 shapes the authorizer reads (PolicyRule, Subject, RoleRef) and
 * readers that take them from stored objects defensively (a stored Role always passed validation,
 * but `rules` may be `null`).
 *
 * @module
 */
import type { PolicyRule } from '@rxkube/wire';

import type { KObj } from '../store/object.js';
import { isObject } from '../store/object.js';

/** The API group of the RBAC kinds. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

// The rule is @rxkube/wire's, shared with the client (@rxkube/kube/manager).
export type { PolicyRule } from '@rxkube/wire';

/**
 * A binding's subject.
 *
 * ## Example
 * ```ts
 * const operator: Subject = { kind: 'ServiceAccount', name: 'widget-operator', namespace: 'ops' };
 * import type { PolicyRule } from '@rxkube/testing/rbac';
 * const rules: PolicyRule[] = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }];
 * const objects = rbacGrant(operator, rules); // a ClusterRole and its ClusterRoleBinding
 * ```
 */
export interface Subject {
  readonly kind: string;
  readonly apiGroup?: string;
  readonly name: string;
  readonly namespace?: string;
}

/**
 * A binding's reference to a Role or ClusterRole.
 *
 * ## Example
 * ```ts
 * const viewer: RoleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
 * const binding = {
 *   apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding',
 *   metadata: { name: 'alice-view', namespace: 'default' },
 *   roleRef: viewer, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
 * };
 * ```
 */
export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined;
}

/** One PolicyRule from its JSON form (unknown shapes read as empty lists). */
export function policyRule(v: unknown): PolicyRule {
  const r = isObject(v) ? v : {};
  const out: {
    verbs: string[];
    apiGroups?: string[];
    resources?: string[];
    resourceNames?: string[];
    nonResourceURLs?: string[];
  } = { verbs: strings(r['verbs']) ?? [] };
  const apiGroups = strings(r['apiGroups']);
  const resources = strings(r['resources']);
  const resourceNames = strings(r['resourceNames']);
  const nonResourceURLs = strings(r['nonResourceURLs']);
  if (apiGroups !== undefined) out.apiGroups = apiGroups;
  if (resources !== undefined) out.resources = resources;
  if (resourceNames !== undefined) out.resourceNames = resourceNames;
  if (nonResourceURLs !== undefined) out.nonResourceURLs = nonResourceURLs;
  return out;
}

/** The `rules` of a Role or ClusterRole (`null` reads as none). */
export function rulesOf(o: KObj): PolicyRule[] {
  const rules = o['rules'];
  return Array.isArray(rules) ? rules.map(policyRule) : [];
}

/** The `subjects` of a binding. */
export function subjectsOf(o: KObj): Subject[] {
  const subjects = o['subjects'];
  if (!Array.isArray(subjects)) return [];
  return subjects.filter(isObject).map((s) => {
    const out: { kind: string; name: string; apiGroup?: string; namespace?: string } = {
      kind: typeof s['kind'] === 'string' ? s['kind'] : '',
      name: typeof s['name'] === 'string' ? s['name'] : '',
    };
    if (typeof s['apiGroup'] === 'string') out.apiGroup = s['apiGroup'];
    if (typeof s['namespace'] === 'string') out.namespace = s['namespace'];
    return out;
  });
}

/** The `roleRef` of a binding. */
export function roleRefOf(o: KObj): RoleRef {
  const r = isObject(o['roleRef']) ? o['roleRef'] : {};
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { apiGroup: str(r['apiGroup']), kind: str(r['kind']), name: str(r['name']) };
}

/** A PolicyRule in its wire form and Go field order (verbs, apiGroups, resources, resourceNames, nonResourceURLs). */
export function ruleJson(r: PolicyRule): Record<string, unknown> {
  const out: Record<string, unknown> = { verbs: [...r.verbs] };
  if (r.apiGroups !== undefined && r.apiGroups.length > 0) out['apiGroups'] = [...r.apiGroups];
  if (r.resources !== undefined && r.resources.length > 0) out['resources'] = [...r.resources];
  if (r.resourceNames !== undefined && r.resourceNames.length > 0)
    out['resourceNames'] = [...r.resourceNames];
  if (r.nonResourceURLs !== undefined && r.nonResourceURLs.length > 0)
    out['nonResourceURLs'] = [...r.nonResourceURLs];
  return out;
}
