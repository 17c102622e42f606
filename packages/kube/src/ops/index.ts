/**
 * Operations: Prometheus metrics, health and readiness probes, structured logs with secrets
 * redacted.
 *
 * The public names of `ops/`: the entry `@rxkube/kube/ops` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/ops
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export {
  ControllerMetrics,
  metricsHandler,
  RECONCILE_TIME_BUCKETS,
  WORKQUEUE_DURATION_BUCKETS,
} from './metrics.js';
export type { ControllerMetricsObserver, ControllerMetricsOptions, ReconcileResultLabel } from './metrics.js';
export {
  DEFAULT_MAX_EVENT_LOOP_LAG_MS,
  startProbeServer,
  storeSyncedCheck,
  WatchHealthChecks,
} from './probes.js';
export type {
  EventLoopCheckOptions,
  ProbeCheck,
  ProbeCheckResult,
  ProbeServer,
  ProbeServerOptions,
} from './probes.js';
export {
  controllerLogger,
  createLogger,
  logReconcile,
  redactSecrets,
  REDACTED,
  scrubString,
} from './logging.js';
export type { CreateLoggerOptions, LoggedReconcile } from './logging.js';
export { DEFAULT_STUCK_RECONCILE_THRESHOLD_MS } from './workqueue-progress.js';
export { WorkqueueProgress } from './workqueue-progress.js';
export type { RunningReconcile } from './workqueue-progress.js';
export type { WorkqueueProgressObserver } from './workqueue-progress.js';
