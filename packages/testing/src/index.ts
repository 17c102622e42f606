/**
 * An in-memory Kubernetes API server that speaks the real wire protocol, with fault injection, and
 * a real control plane (envtest's binaries) behind the same handle, for tests and demos.
 *
 * This entry holds what a test of an operator uses; the server's building blocks have entries named
 * after their folders: `@rxkube/testing/backends`, `/control-plane`, `/rbac`, `/apply`, `/patch`,
 * `/validation` (docs/design.md, "Entry points").
 *
 * @module @rxkube/testing
 */

// The embedded API server, its faults, audit and users
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
  StallRule,
  StalledRequest,
} from './faults.js';
export { MALFORMED_WATCH_LINE } from './handlers/watch.js';
export { KindDefinitionError } from './registry/custom-kinds.js';
export type { KindDefinition, PrinterColumn } from './registry/custom-kinds.js';
export { PreloadError, readManifests } from './preload.js';
export type { Manifests } from './preload.js';
export { parseTokenFile } from './auth.js';
export type { AuthOptions, AuthUser } from './auth.js';
export type { AuditEvent, AuditObjectRef, AuditUser } from './audit.js';
export type { StatusBody, StatusCause, StatusDetails } from './status.js';
export type { Json, KObj, Meta, OwnerRef } from './store/object.js';

// Backends, the real control plane, RBAC, waiting
export { selectedBackends, startTestBackend } from './backends/index.js';
export type { BackendName, TestBackend, TestCluster } from './backends/index.js';
export { startControlPlane } from './control-plane/index.js';
export type { ControlPlane } from './control-plane/index.js';
export { rbacGrant } from './rbac/index.js';
export { waitFor } from './wait-for.js';
export type { Settled, WaitForOptions } from './wait-for.js';
export type { ResolvedService, ServiceResolver } from './admission/webhooks.js';
