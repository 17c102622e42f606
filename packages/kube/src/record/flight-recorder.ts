/**
 * `FlightRecorder`: writes the NDJSON of a recording (see `format.ts`) to a file or a function —
 * one owner for the file, its size cap and its rotation. It records what it is told: the Manager
 * tells it the watch events its controllers receive (`event`) and every write they make (through
 * `recordingClient`). Every object is redacted (`redactForRecord`) before it is written.
 *
 * What it does not do: buffer (each line is written when it happens, synchronously, so a crash
 * loses at most the line being written), compress, or ship the file anywhere.
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';

import { assertNumber, InvalidArgumentError } from '../internal/invalid-argument.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { KubeObject, WatchEvent } from '../types.js';
import type { RecordedEvent, RecordedWrite, RecordHeader, RecordLine } from './format.js';
import { RECORD_FORMAT } from './format.js';
import { redactForRecord } from './redact.js';

// The builtin through process.getBuiltinModule, not an ESM import: node:fs's ES namespace runs its
// lazy getters (fs.promises and its streams), paid by every importer of the root entry
const { closeSync, existsSync, openSync, renameSync, rmSync, writeSync } =
  process.getBuiltinModule('node:fs');

/**
 * Default size of one recording file: 64 MiB.
 *
 * ## Example
 * ```ts
 * new FlightRecorder({ file: 'run.ndjson', maxBytes: DEFAULT_RECORD_MAX_BYTES / 4 });
 * ```
 */
export const DEFAULT_RECORD_MAX_BYTES = 64 * 1024 * 1024;
/**
 * Default number of rotated files kept (`FILE.1` … `FILE.3`) besides the current one.
 *
 * ## Example
 * ```ts
 * new FlightRecorder({ file: 'run.ndjson', rotate: DEFAULT_RECORD_ROTATE + 2 });
 * ```
 */
export const DEFAULT_RECORD_ROTATE = 3;

/**
 * Where and how much to record (`ManagerOptions.record`, `rxkube run --record FILE`).
 *
 * ## Example
 * ```ts
 * const record: RecordOptions = { file: '/tmp/widget-operator.ndjson', maxBytes: 16 * 1024 * 1024, rotate: 2 };
 * new Manager({ client, name: 'widget-operator', record });
 * ```
 */
export interface RecordOptions {
  /** The file to write (truncated at start). One of `file` and `sink`. */
  readonly file?: string;
  /** A function given each line (without its newline) instead of a file. */
  readonly sink?: (line: string) => void;
  /**
   * Bytes one file may hold: a line that would pass it starts a new file (with its own header);
   * the full one is renamed `FILE.1` (`FILE.1` to `FILE.2`, …). With `sink`: the byte count at
   * which a new header line is sent. Default {@link DEFAULT_RECORD_MAX_BYTES}.
   */
  readonly maxBytes?: number;
  /** Rotated files kept besides the current one (0: only the current). Default {@link DEFAULT_RECORD_ROTATE}. */
  readonly rotate?: number;
  /** The module's path, for the header (`rxkube run` sets it). */
  readonly module?: string;
}

/**
 * Records watch events and writes as NDJSON, redacted, size-capped and rotated.
 *
 * ## Example
 * ```ts
 * const lines: string[] = [];
 * const recorder = new FlightRecorder({ sink: (l) => lines.push(l) });
 * recorder.start({ name: 'copyrator', controllers: ['copy'] });
 * recorder.event({ resource: { apiVersion: 'v1', kind: 'ConfigMap' } }, { type: 'Init' });
 * recorder.close();
 * ```
 *
 * ## Semantics
 * - `start` writes the header and sets time 0; lines told before it are dropped.
 * - `t` of every line is `scheduler.now()` minus the start time.
 * - A line longer than `maxBytes` on its own is replaced by a `write`/`event` line without its
 *   object (`truncated: true`), so the cap holds.
 * - `close` closes the file; later lines are dropped. Idempotent.
 *
 * ## Memory
 * The header; nothing per line.
 */
export class FlightRecorder {
  private readonly maxBytes: number;
  private readonly rotate: number;
  private header: RecordHeader | undefined;
  private t0 = 0;
  private fd: number | undefined;
  private bytes = 0;
  private part = 0;
  private closed = false;

  /** @throws {InvalidArgumentError} for neither or both of `file` and `sink`, or a bad size. */
  constructor(
    private readonly options: RecordOptions,
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    const hasFile = typeof options?.file === 'string' && options.file !== '';
    const hasSink = typeof options?.sink === 'function';
    if (hasFile === hasSink) {
      throw new InvalidArgumentError(
        'FlightRecorder',
        'options',
        options,
        'must have exactly one of file (a path) and sink (a function taking each line)',
      );
    }
    this.maxBytes = options.maxBytes ?? DEFAULT_RECORD_MAX_BYTES;
    this.rotate = options.rotate ?? DEFAULT_RECORD_ROTATE;
    assertNumber('FlightRecorder', 'options.maxBytes', this.maxBytes, 1024, true);
    assertNumber('FlightRecorder', 'options.rotate', this.rotate, 0, true);
  }

  /** Whether `start` ran and `close` did not. */
  get recording(): boolean {
    return this.header !== undefined && !this.closed;
  }

  /** Writes the header (format, module, controllers) and starts the clock. */
  start(header: Omit<RecordHeader, 'type' | 'format' | 'startedAt' | 'module' | 'epochMs'>): void {
    if (this.header !== undefined || this.closed) return;
    this.t0 = this.scheduler.now();
    this.header = {
      type: 'header',
      format: RECORD_FORMAT,
      ...header,
      ...(this.options.module !== undefined ? { module: this.options.module } : {}),
      startedAt: new Date().toISOString(),
      epochMs: this.t0,
    };
    if (this.options.file !== undefined) this.fd = openSync(this.options.file, 'w');
    this.put(this.header);
  }

  /** Records a watch event of `target` (its object redacted). */
  event(target: WatchTarget, event: WatchEvent<KubeObject>): void {
    if (!this.recording) return;
    const line: RecordedEvent = {
      type: 'event',
      t: this.now(),
      target,
      event: 'object' in event ? { ...event, object: redactForRecord(event.object) as KubeObject } : event,
    };
    this.line(line, () => ({ ...line, event: { type: event.type }, truncated: true }));
  }

  /** Records a write (its body redacted). */
  write(write: Omit<RecordedWrite, 'type' | 't'>): void {
    if (!this.recording) return;
    const line: RecordedWrite = {
      type: 'write',
      t: this.now(),
      ...write,
      ...(write.body !== undefined ? { body: redactForRecord(write.body, write.ref) } : {}),
    };
    this.line(line, () => {
      const { body: _body, ...rest } = line;
      return { ...rest, truncated: true };
    });
  }

  /** Closes the file; later lines are dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private now(): number {
    return this.scheduler.now() - this.t0;
  }

  private line(line: RecordLine, truncated: () => object): void {
    let text = JSON.stringify(line);
    if (Buffer.byteLength(text) + 1 > this.maxBytes / 2) text = JSON.stringify(truncated());
    if (this.bytes + Buffer.byteLength(text) + 1 > this.maxBytes) this.next();
    this.put(text);
  }

  private put(line: RecordLine | string): void {
    const text = `${typeof line === 'string' ? line : JSON.stringify(line)}\n`;
    this.bytes += Buffer.byteLength(text);
    if (this.fd !== undefined) writeSync(this.fd, text);
    else this.options.sink?.(text.slice(0, -1));
  }

  /** Starts the next file: FILE → FILE.1 → … → FILE.rotate (the oldest dropped). */
  private next(): void {
    const file = this.options.file;
    this.part++;
    this.bytes = 0;
    if (file !== undefined && this.fd !== undefined) {
      closeSync(this.fd);
      if (this.rotate === 0) rmSync(file, { force: true });
      else {
        rmSync(`${file}.${this.rotate}`, { force: true });
        for (let i = this.rotate - 1; i >= 1; i--) {
          if (existsSync(`${file}.${i}`)) renameSync(`${file}.${i}`, `${file}.${i + 1}`);
        }
        renameSync(file, `${file}.1`);
      }
      this.fd = openSync(file, 'w');
    }
    this.put({ ...this.header!, part: this.part });
  }
}
