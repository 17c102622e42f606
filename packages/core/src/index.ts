export {};
export { debounceByKey } from './debounce-by-key.js';
export type { DebounceByKeyOptions } from './debounce-by-key.js';
export { Action } from './action.js';
export type { AwaitChangeAction, RequeueAction } from './action.js';
export {
  ReconcileError,
  TerminalError,
  findTerminalError,
  isTerminalError,
  toReconcileError,
} from './errors.js';
export {
  DEFAULT_BACKOFF_BASE_MS,
  DEFAULT_BACKOFF_JITTER,
  DEFAULT_BACKOFF_MAX_MS,
  PerKeyBackoff,
} from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { DEFAULT_RATE_LIMIT_BURST, DEFAULT_RATE_LIMIT_QPS, TokenBucket } from './rate-limiter.js';
export type { TokenBucketOptions } from './rate-limiter.js';
export { applier } from './applier.js';
export type { ApplierOptions, ReconcileResult } from './applier.js';
export { groupByKey, groupByNamespace } from './group-by-key.js';
export type { GroupByKeyOptions } from './group-by-key.js';
export { KeyOfError, runByKey } from './run-by-key.js';
export type { RunByKeyObserver, RunByKeyOptions } from './run-by-key.js';
export { sinkByKey } from './sink-by-key.js';
export type { SinkByKeyOptions, SinkResult } from './sink-by-key.js';
export { InvalidArgumentError } from './invalid-argument-error.js';
export { changedBy } from './predicates/changed-by.js';
export type { ChangedByOptions } from './predicates/changed-by.js';
export { generationChanged } from './predicates/generation-changed.js';
export { labelsChanged } from './predicates/labels-changed.js';
export { annotationsChanged } from './predicates/annotations-changed.js';
export { resourceVersionChanged } from './predicates/resource-version-changed.js';
export type { MetaObject, MetaPredicateOptions } from './predicates/meta-object.js';
