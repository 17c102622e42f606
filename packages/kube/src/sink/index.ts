/**
 * Writing status and patches: `statusSink` (conflict retry), conditions, drafted
 * statuses, JSON and merge patches, and own-write echo suppression.
 *
 * The public names of `sink/`: the entry `@rxkube/kube/sink` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/sink
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { toJsonPatch } from './json-patch.js';
export { mergePatchOf } from './merge-patch.js';
export type { MergePatch } from './merge-patch.js';
export { draftStatus, setObservedGeneration } from './draft-status.js';
export type { DraftedStatus, StatusRecipe } from './draft-status.js';
export { findCondition, setCondition } from './conditions.js';
export type { Condition, ConditionInput } from './conditions.js';
export { statusSink } from './status-sink.js';
export type { StatusSinkOptions, StatusSinkResult } from './status-sink.js';
export { StatusConflictError } from './status-write.js';
export type {
  StatusApplyBody,
  StatusPatch,
  StatusWrite,
  StatusWriteOptions,
  StatusWriteOutcome,
} from './status-write.js';
export { WriteTracker } from './write-tracker.js';
export type { OwnEcho, WriteTrackerOptions } from './write-tracker.js';
export { suppressOwnEcho } from './suppress-own-echo.js';
