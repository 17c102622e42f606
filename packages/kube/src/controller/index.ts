/**
 * Controllers: `controller()` from a primary kind, owned children and mapped watches, to reconciles
 * with a `ReconcileContext`, and the options around them.
 *
 * The public names of `controller/`: the entry `@rxkube/kube/controller` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/controller
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { controller } from './controller.js';
export type { Controller, ControllerResult, ControllerStores } from './controller.js';
export { DEFAULT_LANE_IDLE_MS } from './options.js';
export type {
  ControllerFinalizerOptions,
  ControllerLogger,
  ControllerObserver,
  ControllerOptions,
  ControllerOwns,
  ControllerWatch,
  MapContext,
  RequestName,
} from './options.js';
export type { ControllerReconcile, ReconcileContext, StatusOf } from './options.js';
export type { CacheListOptions, CacheReader } from './options.js';
export { DEFAULT_RECONCILE_TIMEOUT_MS } from './options.js';
export { isReconcileTimeoutError } from './reconcile-work.js';
export { ReconcileTimeoutError } from './reconcile-work.js';
export type {
  ReconcileTrace,
  ReconcileTracing,
  TriggerNote,
  TriggerReason,
  WebhookTracing,
} from './tracing.js';
