/**
 * The `Manager`: shared watches, controllers, leader election, probes, metrics, CRD installation,
 * RBAC derived from registrations, settings from flags and environment, graceful shutdown.
 *
 * The public names of `manager/`: the entry `@rxkube/kube/manager` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/manager
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { Manager } from './manager.js';
export type { ManagerRunOptions } from './run-until-signal.js';
export {
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  ManagerStartError,
  MAX_CONTROLLER_FAILURES,
} from './manager-options.js';
export type { ManagerLeaderElectionOptions, ManagerOptions, ShutdownReport } from './manager-options.js';
export { managerRbac, mergeRules, rbacManifests } from './rbac.js';
export type { ManagerRbac, RbacManifestOptions, RbacSource } from './rbac.js';
export type {
  ManagedController,
  ManagedControllerOptions,
  ManagerDescription,
  PolicyRule,
} from './registration.js';
export {
  MANAGER_FLAGS,
  ManagerConfigError,
  settingsFromArgs,
  settingsFromEnv,
  settingsFromFlags,
  withSettings,
} from './config.js';
export type { ManagerSettings } from './config.js';
