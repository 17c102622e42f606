/**
 * `@rxkube/kube/record`: the flight recorder, dry runs and replay (issue 24). A Manager with
 * `record` writes every watch event its controllers receive and every write they make as NDJSON
 * (redacted, size-capped, rotated); with `dryRun` it sends every write with `dryRun=All`.
 * `replay` feeds a recording through controllers in virtual time against a client that records
 * writes instead of sending them, and diffs them against the recorded ones (`rxkube replay`).
 *
 * @module @rxkube/kube/record
 */
import '../node-version.js';
export { DEFAULT_RECORD_MAX_BYTES, DEFAULT_RECORD_ROTATE, FlightRecorder } from './flight-recorder.js';
export type { RecordOptions } from './flight-recorder.js';
export { parseRecording, RECORD_FORMAT } from './format.js';
export type {
  RecordedEvent,
  RecordedResource,
  RecordedWrite,
  RecordHeader,
  Recording,
  RecordLine,
  WriteOutcome,
  WriteVerb,
} from './format.js';
export { redactForRecord } from './redact.js';
export { decorateWrites, dryRunClient, inReconcile, recordingClient } from './write-client.js';
export type { WriteCall } from './write-client.js';
export { diffWrites, formatReplay, replay } from './replay.js';
export type { ReplayController, ReplayOptions, ReplayReconcile, ReplayReport, ReplayStep } from './replay.js';
export type { ReplayWrite } from './replay-client.js';
export { setupClient } from './replay-client.js';
