/**
 * The three patch types as the embedded API server applies them: JSON patch (RFC 6902), JSON merge
 * patch (RFC 7386) and strategic merge patch.
 *
 * The public names of `patch/`: the entry `@rxkube/testing/patch` is this file (docs/design.md,
 * "Entry points").
 *
 * @module @rxkube/testing/patch
 */
export { applyJsonPatch, PatchError } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge.js';
export type { StrategicTarget } from './strategic-merge.js';
