/**
 * The cache: `Store` and its indexes, `reflector`, shared watches (`WatchRegistry`), resync, label
 * selectors, and the error a user-supplied indexer or transform fails with (`UserCodeError`).
 *
 * The public names of `reflector/`: the entry `@rxkube/kube/reflector` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/reflector
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { NAMESPACE_INDEX, OWNER_INDEX, Store, stripManagedFields } from './store.js';
export type { Indexer, StoreOptions, StoreRef } from './store.js';
export { reflector } from './reflector.js';
export type { SharedWatch } from './share-watch.js';
export { WatchRegistry } from './watch-registry.js';
export type { WatchFactory, WatchRegistryOptions, WatchTarget } from './watch-registry.js';
export { resync } from './resync.js';
export type { ResyncEvent } from './resync.js';
export type { StoreReader } from './store-reader.js';
export { labelMatcher } from './label-selector.js';
export type { LabelSelectorInput } from './label-selector.js';
export { isUserCodeError, UserCodeError, USER_CODE_HOOKS } from '../user-code-error.js';
export type { UserCodeHook } from '../user-code-error.js';
