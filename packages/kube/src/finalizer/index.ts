/**
 * Finalizers: adding one, running cleanup before deletion, removing it, and reporting finalizers
 * that are stuck.
 *
 * The public names of `finalizer/`: the entry `@rxkube/kube/finalizer` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/finalizer
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { finalizer } from './finalizer.js';
export type {
  FinalizerEventSink,
  FinalizerOptions,
  FinalizerReconcile,
  StuckFinalizer,
} from './finalizer.js';
