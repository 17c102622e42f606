/**
 * RBAC as the embedded API server authorizes it: granting a user rules (`rbacGrant`), the rule and
 * binding shapes, and admission plugins.
 *
 * The public names of `rbac/`: the entry `@rxkube/testing/rbac` is this file (docs/design.md,
 * "Entry points").
 *
 * @module @rxkube/testing/rbac
 */
export { rbacGrant } from './grant.js';
export type { RbacGrantOptions } from './grant.js';
export type { PolicyRule, Subject, RoleRef } from './types.js';
export type { AdmissionPlugin } from './engine/owner-references.js';
