/**
 * What RBAC manifests grant a ServiceAccount, flattened to one (group, resource, verb) per entry —
 * so a test can say which grants an operator run used (the server enforces them).
 *
 * @module
 */
import type { Manifest } from './manifests.js';

/** One permission: a verb on a resource (`widgets/status` for a subresource) of an API group. */
export interface Grant {
  readonly group: string;
  readonly resource: string;
  readonly verb: string;
  /** Where it applies: a namespace (a Role's), or everywhere (`undefined`, a ClusterRole's). */
  readonly namespace?: string;
  /** Restricted to these object names, if the rule says so. */
  readonly resourceNames?: readonly string[];
  /** `ClusterRole/copyrator`, `Role/rxkube-system/copyrator-leader-election`. */
  readonly source: string;
}

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resourceNames?: readonly string[];
}
interface Subject {
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
}
interface RoleRef {
  readonly kind?: string;
  readonly name?: string;
}

/**
 * The Kubernetes user name of a ServiceAccount.
 *
 * ## Example
 * ```ts
 * serviceAccountUser('copyrator', 'rxkube-system'); // 'system:serviceaccount:rxkube-system:copyrator'
 * ```
 */
export function serviceAccountUser(name: string, namespace: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * Every grant the bindings in `objects` give the ServiceAccount `name` in `namespace`: a
 * ClusterRoleBinding grants its ClusterRole everywhere, a RoleBinding grants its Role (or
 * ClusterRole) in the binding's namespace. Roles no binding of the subject names grant nothing.
 *
 * ## Example
 * ```ts
 * const grants = grantsFor(parseManifests(readFileSync('deploy/rbac.yaml', 'utf8')), 'copyrator', 'rxkube-system');
 * grants.some((g) => g.resource === 'secrets' && g.verb === 'delete'); // true
 * ```
 * @throws {Error} when a binding names a role that is not in `objects`.
 */
export function grantsFor(objects: readonly Manifest[], name: string, namespace: string): Grant[] {
  const roles = new Map<string, Manifest>();
  for (const o of objects) {
    if (o.kind === 'ClusterRole') roles.set(`ClusterRole/${o.metadata.name}`, o);
    if (o.kind === 'Role') roles.set(`Role/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o);
  }
  const out: Grant[] = [];
  for (const b of objects) {
    if (b.kind !== 'ClusterRoleBinding' && b.kind !== 'RoleBinding') continue;
    const subjects = (b['subjects'] ?? []) as readonly Subject[];
    if (!subjects.some((s) => s.kind === 'ServiceAccount' && s.name === name && s.namespace === namespace)) {
      continue;
    }
    const ref = (b['roleRef'] ?? {}) as RoleRef;
    const scope = b.kind === 'RoleBinding' ? b.metadata.namespace : undefined;
    const key =
      ref.kind === 'Role'
        ? `Role/${b.metadata.namespace ?? ''}/${ref.name ?? ''}`
        : `ClusterRole/${ref.name ?? ''}`;
    const role = roles.get(key);
    if (role === undefined) {
      throw new Error(
        `${b.kind} ${b.metadata.name} refers to ${key}, which is not among the manifests: add it or fix roleRef`,
      );
    }
    for (const rule of (role['rules'] ?? []) as readonly Rule[]) {
      for (const group of rule.apiGroups ?? []) {
        for (const resource of rule.resources ?? []) {
          for (const verb of rule.verbs ?? []) {
            out.push({
              group,
              resource,
              verb,
              ...(scope !== undefined ? { namespace: scope } : {}),
              ...(rule.resourceNames !== undefined ? { resourceNames: rule.resourceNames } : {}),
              source: key,
            });
          }
        }
      }
    }
  }
  return out;
}

/**
 * A grant's identity without where it came from: `group|resource|verb|namespace`.
 *
 * ## Example
 * ```ts
 * grantKey({ group: '', resource: 'secrets', verb: 'get' }); // '|secrets|get|*'
 * ```
 */
export function grantKey(g: Pick<Grant, 'group' | 'resource' | 'verb' | 'namespace'>): string {
  return `${g.group}|${g.resource}|${g.verb}|${g.namespace ?? '*'}`;
}
