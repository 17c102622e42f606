/**
 * Kubernetes operators as RxJS pipelines: the watch layer (also alone as `@rxkube/kube/watch`),
 * controllers, status and children, finalizers, events, CRDs, and the Manager with leader
 * election, metrics, probes and logs.
 *
 * @module @rxkube/kube
 */
export {};
// First: on a too-old Node, fail here with the required version, before any dependency loads.
import './node-version.js';
export { assertSupportedNode, MINIMUM_NODE_VERSION } from './node-version.js';
export { watcher } from './watcher/watcher.js';
export type { WatcherOptions } from './watcher/watcher.js';
export {
  DEFAULT_WATCHER_BACKOFF,
  DEFAULT_WATCHER_PAGE_SIZE,
  DEFAULT_WATCH_IDLE_TIMEOUT_MS,
  DEFAULT_WATCH_TIMEOUT_SECONDS_RANGE,
} from './watcher/config.js';
export type { WatcherBackoffConfig, WatcherConfig } from './watcher/config.js';
export { INITIAL_WATCHER_HEALTH } from './watcher/health.js';
export type { WatcherFailure, WatcherFailureKind, WatcherHealth, WatcherPhase } from './watcher/health.js';
export { NAMESPACE_INDEX, OWNER_INDEX, Store, stripManagedFields } from './reflector/store.js';
export type { Indexer, StoreOptions, StoreRef } from './reflector/store.js';
export { reflector } from './reflector/reflector.js';
export type { SharedWatch } from './reflector/share-watch.js';
export { WatchRegistry } from './reflector/watch-registry.js';
export type { WatchFactory, WatchRegistryOptions, WatchTarget } from './reflector/watch-registry.js';
export { resync } from './reflector/resync.js';
export type { ResyncEvent } from './reflector/resync.js';
export { KubeClient } from './client/kube-client.js';
export type { Client } from './client/client.js';
export type { KubeClientOptions } from './client/kube-client.js';
export type {
  ApplyOptions,
  DeleteOptions,
  GetOptions,
  JsonPatchOperation,
  ListOptions,
  ObjectLike,
  ObjectList,
  Patch,
  PatchOptions,
  SubresourceOptions,
  WriteOptions,
} from './client/verb-options.js';
export { Discovery, DEFAULT_DISCOVERY_REFRESH_MS } from './client/discovery.js';
export type { Clock, DiscoveryOptions } from './client/discovery.js';
export { resourcePath } from './client/api-resource.js';
export type { ApiResource, PathOptions } from './client/api-resource.js';
export type { ListWatchOptions } from './watcher/list-watch-source.js';
export { connectionFromKubeConfig, loadDefaultKubeConfig, loadKubeConfigFile } from './config/connection.js';
export type { Connection, ConnectionOptions, KubeConfigSource, RequestAuth } from './config/connection.js';
export { Kubeconfig } from './config/kubeconfig.js';
export type { Cluster, Context, ExecConfig, User } from './config/kubeconfig.js';
export {
  HttpTransport,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from './transport/http-transport.js';
export type { HttpRequest, TransportOptions } from './transport/http-transport.js';
export { DEFAULT_MAX_LINE_BYTES } from './transport/watch-line-decoder.js';
export {
  KubeApiError,
  KubeConfigError,
  KubeTransportError,
  ResourceNotFoundError,
  isAlreadyExists,
  isConflict,
  forbiddenCause,
  isForbidden,
  isGone,
  isInvalid,
  isKubeApiError,
  isNamespaceTerminating,
  isNotFound,
  isTooManyRequests,
  isUnauthorized,
  retryAfterSeconds,
} from './errors.js';
export type {
  BlockedOwner,
  ForbiddenCause,
  KubeApiErrorInit,
  RequestTarget,
  Status,
  StatusCause,
  StatusDetails,
  TransportFailure,
} from './errors.js';
export { objectKey } from './types.js';
export type {
  FromModel,
  KubeObject,
  ObjectMeta,
  ObjectRef,
  OwnerReference,
  ResourceType,
  WatchEvent,
  Wire,
} from './types.js';
export type {
  ListPage,
  ListParams,
  ListWatchSource,
  RawWatchEvent,
  WatchParams,
  WatchStatus,
} from './watcher/source.js';
export { toJsonPatch } from './sink/json-patch.js';
export { mergePatchOf } from './sink/merge-patch.js';
export type { MergePatch } from './sink/merge-patch.js';
export { draftStatus, setObservedGeneration } from './sink/draft-status.js';
export type { DraftedStatus, StatusRecipe } from './sink/draft-status.js';
export { findCondition, setCondition } from './sink/conditions.js';
export type { Condition, ConditionInput } from './sink/conditions.js';
export { statusSink } from './sink/status-sink.js';
export type { StatusSinkOptions, StatusSinkResult } from './sink/status-sink.js';
export { StatusConflictError, writeStatus } from './sink/status-write.js';
export type { StatusWrite, StatusWriteOptions, StatusWriteOutcome } from './sink/status-write.js';
export { statusPortFromClient } from './sink/status-port.js';
export type { StatusPatch, StatusPort, StatusPortOptions } from './sink/status-port.js';
export { WriteTracker } from './sink/write-tracker.js';
export type { OwnEcho, WriteTrackerOptions } from './sink/write-tracker.js';
export { suppressOwnEcho } from './sink/suppress-own-echo.js';
export { finalizer } from './finalizer/finalizer.js';
export type {
  FinalizerEventSink,
  FinalizerOptions,
  FinalizerReconcile,
  StuckFinalizer,
} from './finalizer/finalizer.js';
export { finalizerPortFromClient } from './finalizer/finalizer-port.js';
export type { FinalizerPort } from './finalizer/finalizer-port.js';
export type { EventOutcome, RecordEventsOptions } from './events/record-events.js';
export type { EventApi, EventRequest } from './events/event-body.js';
export { EventRecorder } from './events/event-recorder.js';
export { eventPortFromClient } from './events/event-port.js';
export type { CoreV1Event, EventObjectReference, EventPort, EventsV1Event } from './events/event-port.js';
export { controller } from './controller/controller.js';
export type { Controller, ControllerResult, ControllerStores } from './controller/controller.js';
export { DEFAULT_LANE_IDLE_MS } from './controller/options.js';
export type {
  ControllerFinalizerOptions,
  ControllerLogger,
  ControllerObserver,
  ControllerOptions,
  ControllerOwns,
  ControllerStatusOptions,
  ControllerWatch,
  MapContext,
  RequestName,
} from './controller/options.js';
export type {
  ControllerReconcile,
  ControllerStatusOutcome,
  ReconcileContext,
  StatusOf,
} from './controller/options.js';
export type { CacheListOptions, CacheReader } from './controller/options.js';
export type { StoreReader } from './reflector/store-reader.js';
export { labelMatcher } from './reflector/label-selector.js';
export type { LabelSelectorInput } from './reflector/label-selector.js';
export { isUserCodeError, UserCodeError, USER_CODE_HOOKS } from './user-code-error.js';
export type { UserCodeHook } from './user-code-error.js';
export { ensureCrd } from './crd/ensure-crd.js';
export type { EnsureCrdOptions, EnsureCrdResult } from './crd/ensure-crd.js';
export { validateCrd } from './crd/validate-crd.js';
export { InvalidCrdError } from './crd/invalid-crd-error.js';
export type { CrdCause } from './crd/invalid-crd-error.js';
export { CrdNotEstablishedError } from './crd/crd-not-established-error.js';
export type {
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionVersion,
  JSONSchemaProps,
} from './crd/custom-resource-definition.js';
export { crdToTypeScript } from './crd/crd-to-typescript.js';
export type { CrdToTypeScriptOptions } from './crd/crd-to-typescript.js';
export {
  AlreadyOwnedError,
  ownerReferenceOf,
  setControllerReference,
} from './children/set-controller-reference.js';
export { ApplyChildrenError, applyChildren } from './children/apply-children.js';
export type { ApplyChildrenOptions, ApplyChildrenResult, ChildrenClient } from './children/apply-children.js';
export type { Resource } from './resource.js';
export {
  ControllerMetrics,
  metricsHandler,
  RECONCILE_TIME_BUCKETS,
  WORKQUEUE_DURATION_BUCKETS,
} from './ops/metrics.js';
export type {
  ControllerMetricsObserver,
  ControllerMetricsOptions,
  ReconcileOutcome,
  ReconcileResultLabel,
  WatchMetricsTarget,
} from './ops/metrics.js';
export {
  DEFAULT_MAX_EVENT_LOOP_LAG_MS,
  startProbeServer,
  storeSyncedCheck,
  WatchHealthChecks,
} from './ops/probes.js';
export type {
  EventLoopCheckOptions,
  ProbeCheck,
  ProbeCheckResult,
  ProbeServer,
  ProbeServerOptions,
} from './ops/probes.js';
export {
  controllerLogger,
  createLogger,
  logReconcile,
  redactSecrets,
  REDACTED,
  scrubString,
} from './ops/logging.js';
export type { CreateLoggerOptions, LoggedReconcile } from './ops/logging.js';
export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  defaultIdentity,
  LEADER_ELECTION_JITTER_FACTOR,
  LeaderElector,
} from './leader/leader-elector.js';
export type {
  Lease,
  LeaseSpec,
  LeaderElectionAttempt,
  LeaderElectionOptions,
} from './leader/leader-elector.js';
export { Manager } from './manager/manager.js';
export type { ManagerRunOptions } from './manager/run-until-signal.js';
export {
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  ManagerStartError,
  MAX_CONTROLLER_FAILURES,
} from './manager/manager-options.js';
export type {
  ManagerLeaderElectionOptions,
  ManagerOptions,
  ShutdownReport,
} from './manager/manager-options.js';
export { managerRbac, mergeRules, rbacManifests } from './manager/rbac.js';
export type { ManagerRbac, RbacManifestOptions, RbacSource } from './manager/rbac.js';
export type {
  ManagedController,
  ManagedControllerOptions,
  ManagerDescription,
  PolicyRule,
} from './manager/registration.js';
export {
  MANAGER_FLAGS,
  ManagerConfigError,
  settingsFromArgs,
  settingsFromEnv,
  settingsFromFlags,
  withSettings,
} from './manager/config.js';
export type { ManagerSettings } from './manager/config.js';

// Issue 19 / 18 §9 (branch ctrl): reconcile deadline, stuck-worker metrics and panics.
export { DEFAULT_RECONCILE_TIMEOUT_MS } from './controller/options.js';
export { isReconcileTimeoutError, ReconcileTimeoutError } from './controller/reconcile-work.js';
export { DEFAULT_STUCK_RECONCILE_THRESHOLD_MS, WorkqueueProgress } from './ops/workqueue-progress.js';
export type { RunningReconcile, WorkqueueProgressObserver } from './ops/workqueue-progress.js';
// Streaming lists (WatchList): the port's capability and the end-bookmark annotation.
export type { StreamingListSupport } from './watcher/source.js';
export { INITIAL_EVENTS_END_ANNOTATION } from './watcher/source.js';
// Sharding (issue 22): the Manager option's types; the building blocks are in `@rxkube/kube/shard`.
export type { ShardingOptions } from './shard/options.js';
export { DuplicateShardIdentityError } from './shard/options.js';
