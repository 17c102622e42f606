/**
 * Kubernetes operators as RxJS pipelines. This entry is the operator author's vocabulary — the
 * client, objects and errors, watches and the Store, controllers and their context, status and
 * conditions, children, finalizers, Events, CRDs and the Manager. Each building block has its own
 * entry named after its folder, which exports all of that folder's public names:
 * `@rxkube/kube/watch` (the watch layer alone: client, watcher, Store, no metrics or logging),
 * `/client`, `/config`, `/transport`, `/watcher`, `/reflector`, `/controller`, `/sink`,
 * `/children`, `/finalizer`, `/events`, `/crd`, `/leader`, `/ops`, `/manager`.
 *
 * Which names belong here (docs/design.md, "Entry points"): those an operator author writes every
 * day. A new capability gets a folder with an `index.ts` and its own entry; `scripts/api` holds
 * this entry at its count.
 *
 * Values are re-exported from the files that define them, not from the folders' `index.ts`: an
 * index loads its whole folder, and importing this entry would load what it does not export
 * (`crdToTypeScript`, the RBAC generator, `statusSink`, …; issue 21, fast start). Types come from
 * the folders' indexes (erased: they load nothing).
 *
 * @module @rxkube/kube
 */
// First: on a too-old Node, fail here with the required version, before any dependency loads.
import './node-version.js';

// The client, objects and errors
export { KubeClient } from './client/kube-client.js';
export { objectKey } from './types.js';
export {
  KubeApiError,
  ResourceNotFoundError,
  isKubeApiError,
  isNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
} from './errors.js';
export type {
  Client,
  KubeClientOptions,
  ObjectLike,
  KubeObject,
  ObjectMeta,
  ObjectRef,
  ResourceType,
  Resource,
} from './client/index.js';

// Connection
export { loadDefaultKubeConfig, loadKubeConfigFile } from './config/connection.js';

// Watching and caching
export { watcher } from './watcher/watcher.js';
export type { WatchEvent } from './watcher/index.js';
export { reflector } from './reflector/reflector.js';
export { Store } from './reflector/store.js';
export { WatchRegistry } from './reflector/watch-registry.js';
export type { WatchTarget } from './reflector/index.js';

// Controllers
export { controller } from './controller/controller.js';
export type {
  Controller,
  ControllerOptions,
  ControllerReconcile,
  ControllerResult,
  ControllerWatch,
  ControllerOwns,
  ReconcileContext,
  RequestName,
  MapContext,
  CacheReader,
} from './controller/index.js';

// Status, children, finalizers, Events, CRDs
export { findCondition, setCondition } from './sink/conditions.js';
export { setObservedGeneration, draftStatus } from './sink/draft-status.js';
export type { Condition, ConditionInput } from './sink/index.js';
export { applyChildren } from './children/apply-children.js';
export { setControllerReference } from './children/set-controller-reference.js';
export type { ApplyChildrenResult } from './children/index.js';
export { finalizer } from './finalizer/finalizer.js';
export { EventRecorder } from './events/event-recorder.js';
export { ensureCrd } from './crd/ensure-crd.js';

// The Manager
export { Manager } from './manager/manager.js';
export { settingsFromEnv, withSettings } from './manager/config.js';
export type {
  ManagerOptions,
  ManagedControllerOptions,
  ManagerRunOptions,
  PolicyRule,
} from './manager/index.js';
export { createLogger } from './ops/logging.js';
