/**
 * An in-memory Kubernetes API server that speaks the real wire protocol, with fault injection, and
 * a real control plane (envtest's binaries) behind the same handle, for tests and demos.
 *
 * @module @rxkube/testing
 */
export {};
export { startApiServer, testCertificates } from './server.js';
export type { ApiServer, ApiServerOptions, ApiServerLogger } from './server.js';
export { Faults } from './faults.js';
export { MALFORMED_WATCH_LINE } from './handlers/watch.js';
export { KindDefinitionError } from './registry/custom-kinds.js';
export type { KindDefinition, PrinterColumn } from './registry/custom-kinds.js';
export { PreloadError, readManifests } from './preload.js';
export type { Manifests } from './preload.js';
export type {
  FaultCounts,
  FailRule,
  DelayRule,
  RequestMatcher,
  PendingFault,
  InjectedErrorCount,
  StallRule,
  StalledRequest,
} from './faults.js';
export { parseTokenFile } from './auth.js';
export type { AuthOptions, AuthUser } from './auth.js';
export type { AuditEvent, AuditObjectRef, AuditUser } from './audit.js';
export { rbacGrant } from './rbac/grant.js';
export type { RbacGrantOptions } from './rbac/grant.js';
export type { PolicyRule, Subject, RoleRef } from './rbac/types.js';
export type { AdmissionPlugin } from './rbac/owner-references.js';
export type { StatusBody, StatusCause, StatusDetails } from './status.js';
export type { Json, KObj, Meta, OwnerRef } from './store/object.js';
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
export { serverSideApply, recordUpdate, ApplyConflictError, ApplyError } from './apply/field-manager.js';
export type {
  ManagedFieldsEntry,
  ApplyConflict,
  ApplyOptions,
  UpdateOptions,
} from './apply/field-manager.js';
export { startControlPlane } from './control-plane/control-plane.js';
export type { ControlPlane, ControlPlaneOptions, ControlPlaneUser } from './control-plane/control-plane.js';
export {
  ControlPlaneAssetsError,
  controlPlaneAssetsAvailable,
  findControlPlaneAssets,
} from './control-plane/assets.js';
export type { ControlPlaneBinary } from './control-plane/assets.js';
export type { TestCluster } from './cluster/cluster.js';
export { REAL_TIER_HOW, selectedBackends, startTestBackend, TEST_BACKEND_ENV } from './backends/backends.js';
export type { BackendName, BackendSelection, TestBackend, TestBackendOptions } from './backends/backends.js';
export { waitFor } from './wait-for.js';
export type { Settled, WaitForOptions } from './wait-for.js';
export type { ResolvedService, ServiceResolver } from './admission/webhooks.js';
