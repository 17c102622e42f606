/**
 * The flight recorder's file format: NDJSON, one JSON object a line. The first line of every file
 * (and of every rotated file) is a {@link RecordHeader}; then {@link RecordedEvent}s (a watch event
 * the controllers received) and {@link RecordedWrite}s (a write a controller made, with its
 * outcome), in the order they happened, each with `t`: the scheduler's time in ms since the
 * recording started. What is redacted before a line is written: see `redactForRecord`.
 *
 * @module
 */
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { KubeObject, ObjectRef, WatchEvent } from '../types.js';

/**
 * The version of the format this build writes and reads.
 *
 * ## Example
 * ```ts
 * console.log(`recording format v${RECORD_FORMAT}`);
 * ```
 */
export const RECORD_FORMAT = 1;

/**
 * A kind the recorded controllers used, as discovery answered: replay answers discovery from it.
 *
 * ## Example
 * ```ts
 * const r: RecordedResource = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
 * ```
 */
export interface RecordedResource {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly subresources?: readonly string[];
}

/**
 * The first line of a recording: format version, operator module, controllers and their scope.
 *
 * ## Example
 * ```ts
 * const header: RecordHeader = { type: 'header', format: RECORD_FORMAT, name: 'copyrator',
 *   module: 'dist/operator.js', controllers: ['copy'], startedAt: '2026-11-29T05:30:00Z' };
 * ```
 */
export interface RecordHeader {
  readonly type: 'header';
  readonly format: number;
  /** The operator's (Manager's) name. */
  readonly name: string;
  /** The module `rxkube run` ran, when known. */
  readonly module?: string;
  /** The registered controllers' names, in order. */
  readonly controllers: readonly string[];
  /** The Manager's namespaces (absent: all). */
  readonly namespaces?: readonly string[];
  /** Wall-clock time the recording started (informative only: `t` is relative). */
  readonly startedAt: string;
  /** The scheduler's time (epoch ms) at the start: replay's virtual clock starts there. */
  readonly epochMs?: number;
  /** Set on a file the recorder rotated to: how many files came before it. */
  readonly part?: number;
  /** The kinds discovery resolved for the watches (filled as they are watched). */
  readonly resources?: readonly RecordedResource[];
}

/**
 * One watch event the controllers received from a shared watch.
 *
 * ## Example
 * ```ts
 * const line: RecordedEvent = { type: 'event', t: 12, target: { resource: { apiVersion: 'v1', kind: 'ConfigMap' } },
 *   event: { type: 'InitDone' } };
 * ```
 */
export interface RecordedEvent {
  readonly type: 'event';
  /** Scheduler time (ms) since the recording started. */
  readonly t: number;
  readonly target: WatchTarget;
  /** The event; its object redacted. */
  readonly event: WatchEvent<KubeObject>;
}

/**
 * The verbs a write is made with (`Client`'s).
 *
 * ## Example
 * ```ts
 * const verb: WriteVerb = 'apply';
 * ```
 */
export type WriteVerb = 'create' | 'replace' | 'patch' | 'apply' | 'delete';

/**
 * How a write ended: `ok` with the resulting `resourceVersion`, or the API error's code and reason.
 *
 * ## Example
 * ```ts
 * const conflict: WriteOutcome = { ok: false, code: 409, reason: 'Conflict' };
 * ```
 */
export type WriteOutcome =
  | { readonly ok: true; readonly resourceVersion?: string }
  | { readonly ok: false; readonly code?: number; readonly reason: string };

/**
 * One write a controller made: verb, object, body (object, patch, or none for a delete), the
 * options that change its meaning, and its outcome.
 *
 * ## Example
 * ```ts
 * const line: RecordedWrite = { type: 'write', t: 20, controller: 'copy', key: 'ns/a', verb: 'patch',
 *   ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a' }, patchType: 'merge',
 *   body: { data: { x: '1' } }, outcome: { ok: true, resourceVersion: '42' } };
 * ```
 */
export interface RecordedWrite {
  readonly type: 'write';
  readonly t: number;
  /** The controller that wrote (absent: a write outside a controller, e.g. an Event). */
  readonly controller?: string;
  /** The reconcile's key (`namespace/name`) the write belongs to, when known; `(events)` for Events. */
  readonly key?: string;
  readonly verb: WriteVerb;
  readonly ref: ObjectRef;
  readonly subresource?: string;
  /** `merge`, `json`, `strategic` or `apply`, for `patch`. */
  readonly patchType?: string;
  /** The object (create, replace, apply) or the patch body, redacted. */
  readonly body?: unknown;
  readonly fieldManager?: string;
  readonly force?: boolean;
  /** The write was sent with `dryRun=All` (`--dry-run`). */
  readonly dryRun?: boolean;
  readonly outcome: WriteOutcome;
}

/**
 * Any line of a recording.
 *
 * ## Example
 * ```ts
 * const kinds = (lines: readonly RecordLine[]) => lines.map((l) => l.type);
 * ```
 */
export type RecordLine = RecordHeader | RecordedEvent | RecordedWrite;

/**
 * A recording read back: its header, events and writes in order.
 *
 * ## Example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * const rec: Recording = parseRecording(readFileSync('run.ndjson', 'utf8'));
 * console.log(rec.header.controllers, rec.events.length, rec.writes.length);
 * ```
 */
export interface Recording {
  readonly header: RecordHeader;
  readonly events: readonly RecordedEvent[];
  readonly writes: readonly RecordedWrite[];
}

/**
 * Parses a recording's text (NDJSON). Lines after a rotated file's header continue it; blank lines
 * are skipped; a line cut short by a crash at the very end is dropped.
 *
 * ## Example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * const rec = parseRecording(readFileSync('run.ndjson', 'utf8'));
 * ```
 * @throws {InvalidArgumentError} naming the line for a line that is not a recording's, a missing
 *   header, or a format this build cannot read.
 */
export function parseRecording(text: string): Recording {
  const lines = text.split('\n');
  let header: RecordHeader | undefined;
  const events: RecordedEvent[] = [];
  const writes: RecordedWrite[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      if (lines.slice(i + 1).every((l) => l.trim() === '')) break; // a torn last line
      throw new InvalidArgumentError('parseRecording', `line ${i + 1}`, raw.slice(0, 80), 'must be JSON');
    }
    const type = (line as { type?: unknown } | null)?.type;
    if (type === 'header') {
      const h = line as RecordHeader;
      if (h.format !== RECORD_FORMAT) {
        throw new InvalidArgumentError(
          'parseRecording',
          `line ${i + 1}: format`,
          h.format,
          `must be ${RECORD_FORMAT}: record again with this version of rxkube`,
        );
      }
      header ??= h;
    } else if (header === undefined) {
      throw new InvalidArgumentError(
        'parseRecording',
        'line 1',
        raw.slice(0, 80),
        'must be the header ({"type":"header",…}): is this a flight recording (rxkube run --record)?',
      );
    } else if (type === 'event') events.push(line as RecordedEvent);
    else if (type === 'write') writes.push(line as RecordedWrite);
    else {
      throw new InvalidArgumentError(
        'parseRecording',
        `line ${i + 1}: type`,
        type,
        "must be 'header', 'event' or 'write'",
      );
    }
  }
  if (header === undefined) {
    throw new InvalidArgumentError(
      'parseRecording',
      'text',
      text.slice(0, 80),
      'must start with a header line',
    );
  }
  return { header, events, writes };
}
