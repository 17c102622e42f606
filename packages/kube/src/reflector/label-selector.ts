/**
 * Where `labelMatcher` used to live: it moved to `selector/` (one parser and matcher for all of
 * rxkube, with the API server's grammar). Re-exported so existing imports keep working.
 *
 * @module
 */
export { labelMatcher } from '../selector/label-selector.js';
export type { LabelSelectorInput } from '../selector/label-selector.js';
