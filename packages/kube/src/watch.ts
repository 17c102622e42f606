/**
 * `@rxkube/kube/watch`: the watch layer alone — the API client, the watcher, the Store and shared
 * watches — for programs that watch and cache Kubernetes objects without controllers, metrics or
 * logging. Nothing imported from here loads `prom-client` or `pino` (the pack test proves it on the
 * installed package); everything here is also exported by `@rxkube/kube`.
 *
 * This file only re-exports: the modules behind it may move, the names it offers stay.
 *
 * @example
 * ```ts
 * import { KubeClient, Store, reflector, watcher } from '@rxkube/kube/watch';
 * import { filter, firstValueFrom } from 'rxjs';
 *
 * const client = KubeClient.default();
 * const store = new Store();
 * watcher(client, { apiVersion: 'v1', kind: 'ConfigMap' }).pipe(reflector(store)).subscribe();
 * await firstValueFrom(store.ready$.pipe(filter(Boolean)));
 * console.log(store.list().length, 'ConfigMaps');
 * ```
 *
 * @module @rxkube/kube/watch
 */
// First, as in `@rxkube/kube`: on a too-old Node, fail with the required version before any
// dependency loads.
import './node-version.js';
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
export type {
  ListPage,
  ListParams,
  ListWatchSource,
  RawWatchEvent,
  StreamingListSupport,
  WatchParams,
  WatchStatus,
} from './watcher/source.js';
export { INITIAL_EVENTS_END_ANNOTATION } from './watcher/source.js';
export { NAMESPACE_INDEX, OWNER_INDEX, Store, stripManagedFields } from './reflector/store.js';
export type { Indexer, StoreOptions, StoreRef } from './reflector/store.js';
export type { StoreReader } from './reflector/store-reader.js';
export { labelMatcher } from './reflector/label-selector.js';
export type { LabelSelectorInput } from './reflector/label-selector.js';
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
  forbiddenCause,
  isConflict,
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
export { isUserCodeError, UserCodeError, USER_CODE_HOOKS } from './user-code-error.js';
export type { UserCodeHook } from './user-code-error.js';
// issue 19 §3 (branch watch): watches of one server end their reconnect waits together
export { DEFAULT_RECOVERY_PROBE_INTERVAL_MS, ServerRecovery } from './watcher/server-recovery.js';
export type { ServerRecoveryOptions } from './watcher/server-recovery.js';
