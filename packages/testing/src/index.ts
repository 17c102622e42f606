export {};
export { startApiServer, testCertificates } from './server.js';
export type { ApiServer, ApiServerOptions, ApiServerLogger } from './server.js';
export { Faults } from './faults.js';
export type {
  FaultCounts,
  FailRule,
  DelayRule,
  RequestMatcher,
  PendingFault,
  InjectedErrorCount,
} from './faults.js';
export type { AuthOptions, AuthRule, AuthUser } from './auth.js';
export type { StatusBody, StatusCause, StatusDetails } from './status.js';
export type { KObj, Meta } from './store/object.js';
export { parseLabelSelector, parseFieldSelector, SelectorError } from './selectors.js';
export type { LabelSelector, FieldSelector } from './selectors.js';
export { applyJsonPatch, PatchError } from './patch/json-patch.js';
export { applyMergePatch } from './patch/merge-patch.js';
export { applyStrategicMergePatch } from './patch/strategic-merge.js';
export type { StrategicTarget } from './patch/strategic-merge.js';
export { validateObjectName } from './validation/names.js';
export type { FieldCause, NameRule } from './validation/names.js';
export { validateAgainstSchema, pruneUnknownFields, applySchemaDefaults } from './validation/schema.js';
export type { JSONSchemaProps } from './validation/schema.js';
export { serverSideApply, recordUpdate, ApplyConflictError } from './apply/field-manager.js';
export type {
  ManagedFieldsEntry,
  ApplyConflict,
  ApplyOptions,
  UpdateOptions,
} from './apply/field-manager.js';
