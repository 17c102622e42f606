/**
 * `rbac.authorization.k8s.io/v1` `PolicyRule`: what a Role grants, as the Manager computes it
 * (`managerRbac`, `rxkube rbac`) and the embedded API server's authorizer reads it.
 *
 * @module
 */

/**
 * An rbac.authorization.k8s.io/v1 PolicyRule: `verbs` on `resources` of `apiGroups` (optionally
 * only the objects named in `resourceNames`), or `verbs` on `nonResourceURLs`.
 *
 * ## Example
 * ```ts
 * import type { PolicyRule } from '@rxkube/wire';
 *
 * const readConfigMaps: PolicyRule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] };
 * const readHealth: PolicyRule = { nonResourceURLs: ['/healthz'], verbs: ['get'] };
 * ```
 */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}
