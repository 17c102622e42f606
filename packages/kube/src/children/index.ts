/**
 * Children: owner references (`setControllerReference`) and applying a set of owned objects
 * (`applyChildren`), pruning what is no longer wanted.
 *
 * The public names of `children/`: the entry `@rxkube/kube/children` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/children
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { AlreadyOwnedError, ownerReferenceOf, setControllerReference } from './set-controller-reference.js';
export { ApplyChildrenError, applyChildren } from './apply-children.js';
export type { ApplyChildrenOptions, ApplyChildrenResult } from './apply-children.js';
