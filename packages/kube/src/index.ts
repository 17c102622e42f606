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
 * @module @rxkube/kube
 */
// First: on a too-old Node, fail here with the required version, before any dependency loads.
import './node-version.js';

// The client, objects and errors
export {
  KubeClient,
  objectKey,
  KubeApiError,
  ResourceNotFoundError,
  isKubeApiError,
  isNotFound,
  isAlreadyExists,
  isConflict,
  isForbidden,
} from './client/index.js';
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
export { loadDefaultKubeConfig, loadKubeConfigFile } from './config/index.js';

// Watching and caching
export { watcher } from './watcher/index.js';
export type { WatchEvent } from './watcher/index.js';
export { reflector, Store, WatchRegistry } from './reflector/index.js';
export type { WatchTarget } from './reflector/index.js';

// Controllers
export { controller } from './controller/index.js';
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
export { findCondition, setCondition, setObservedGeneration, draftStatus } from './sink/index.js';
export type { Condition, ConditionInput } from './sink/index.js';
export { applyChildren, setControllerReference } from './children/index.js';
export type { ApplyChildrenResult } from './children/index.js';
export { finalizer } from './finalizer/index.js';
export { EventRecorder } from './events/index.js';
export { ensureCrd } from './crd/index.js';

// The Manager
export { Manager, settingsFromEnv, withSettings } from './manager/index.js';
export type {
  ManagerOptions,
  ManagedControllerOptions,
  ManagerRunOptions,
  PolicyRule,
} from './manager/index.js';
export { createLogger } from './ops/index.js';
