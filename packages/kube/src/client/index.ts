/**
 * Talking to the API server: `KubeClient` (the verbs, apply and patch), discovery, resource paths,
 * the object vocabulary (`KubeObject`, `ObjectRef`, `objectKey`) and the errors a request fails with
 * (`KubeApiError`, `isNotFound`, …).
 *
 * The public names of `client/`: the entry `@rxkube/kube/client` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/client
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { KubeClient } from './kube-client.js';
export type { Client } from './client.js';
export type { KubeClientOptions } from './kube-client.js';
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
} from './verb-options.js';
export { Discovery, DEFAULT_DISCOVERY_REFRESH_MS } from './discovery.js';
export type { Clock, DiscoveryOptions } from './discovery.js';
export { resourcePath } from './api-resource.js';
export type { ApiResource, PathOptions } from './api-resource.js';
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
} from '../errors.js';
export type {
  ForbiddenCause,
  KubeApiErrorInit,
  RequestTarget,
  Status,
  StatusCause,
  StatusDetails,
  TransportFailure,
} from '../errors.js';
export { objectKey } from '../types.js';
export type {
  FromModel,
  KubeObject,
  ObjectMeta,
  ObjectRef,
  OwnerReference,
  ResourceType,
  Wire,
} from '../types.js';
export type { Resource } from '../resource.js';
export type { BlockedOwner } from '../errors.js';
