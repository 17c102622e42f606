/**
 * Server-side apply as the embedded API server implements it (structured-merge-diff's field sets,
 * managed fields, conflicts), for tests that check apply semantics without a server.
 *
 * The public names of `apply/`: the entry `@rxkube/testing/apply` is this file (docs/design.md,
 * "Entry points").
 *
 * @module @rxkube/testing/apply
 */
export { serverSideApply, recordUpdate, ApplyConflictError, ApplyError } from './field-manager.js';
export type { ManagedFieldsEntry, ApplyConflict, ApplyOptions, UpdateOptions } from './field-manager.js';
