/**
 * Protobuf messages of rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding. */
export const RBAC_V1: MessageDeclarations = {
  'rbac.v1.AggregationRule': `
    clusterRoleSelectors 1 []meta.v1.LabelSelector omitempty`,
  'rbac.v1.ClusterRole': `
    metadata 1 meta.v1.ObjectMeta
    rules 2 []rbac.v1.PolicyRule
    aggregationRule 3 *rbac.v1.AggregationRule omitempty`,
  'rbac.v1.ClusterRoleBinding': `
    metadata 1 meta.v1.ObjectMeta
    subjects 2 []rbac.v1.Subject omitempty
    roleRef 3 rbac.v1.RoleRef`,
  'rbac.v1.ClusterRoleBindingList': `
    metadata 1 meta.v1.ListMeta
    items 2 []rbac.v1.ClusterRoleBinding`,
  'rbac.v1.ClusterRoleList': `
    metadata 1 meta.v1.ListMeta
    items 2 []rbac.v1.ClusterRole`,
  'rbac.v1.PolicyRule': `
    verbs 1 []string
    apiGroups 2 []string omitempty
    resources 3 []string omitempty
    resourceNames 4 []string omitempty
    nonResourceURLs 5 []string omitempty`,
  'rbac.v1.Role': `
    metadata 1 meta.v1.ObjectMeta
    rules 2 []rbac.v1.PolicyRule`,
  'rbac.v1.RoleBinding': `
    metadata 1 meta.v1.ObjectMeta
    subjects 2 []rbac.v1.Subject omitempty
    roleRef 3 rbac.v1.RoleRef`,
  'rbac.v1.RoleBindingList': `
    metadata 1 meta.v1.ListMeta
    items 2 []rbac.v1.RoleBinding`,
  'rbac.v1.RoleList': `
    metadata 1 meta.v1.ListMeta
    items 2 []rbac.v1.Role`,
  'rbac.v1.RoleRef': `
    apiGroup 1 string
    kind 2 string
    name 3 string`,
  'rbac.v1.Subject': `
    kind 1 string
    apiGroup 2 string omitempty
    name 3 string
    namespace 4 string omitempty`,
};
