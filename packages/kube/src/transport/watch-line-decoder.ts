/**
 * The watch line decoder: bytes of a watch response body in, {@link RawWatchEvent}s out. It splits
 * the lines itself — in the one pass that also bounds the line length — and parses each complete
 * line with `JSON.parse`. No library: ndjson's public API is a stream (split2's `Transform` over
 * readable-stream) that splits and decodes every chunk a second time (~3 µs per event) and cannot
 * bound a line before buffering it; what it adds per row is `JSON.parse` in a `try`, which is what
 * this file does (docs/design.md, "Dependencies"). Lines that are not JSON or not a watch event
 * become `MALFORMED` events instead of throwing, and events keep the order of the lines. Not
 * exported from the package.
 *
 * @module
 */
import type { KubeObject } from '../types.js';
import type { RawWatchEvent } from './raw-watch-event.js';

/**
 * Default bound on one watch line: far above the API server's 3 MiB request limit.
 *
 * ## Example
 * ```ts
 * // accept watch lines up to 32 MiB (objects above the default bound become MALFORMED events)
 * watcher(client, { apiVersion: 'v1', kind: 'ConfigMap' }, { maxLineBytes: 2 * DEFAULT_MAX_LINE_BYTES }).subscribe();
 * ```
 */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** How much of a bad line a `MALFORMED` event carries. */
const LINE_PREFIX_BYTES = 256;

/**
 * Decodes one watch response body. Feed it the body's chunks as they arrive, in order; events are
 * delivered synchronously to `onEvent`.
 *
 * ## Example
 * ```ts
 * import type { ClientRequest, IncomingMessage } from 'node:http';
 *
 * declare const req: ClientRequest; // a watch request
 * declare const res: IncomingMessage; // and its response
 * const events$ = new Observable<RawWatchEvent>((subscriber) => {
 *   const decoder = new WatchLineDecoder((e) => subscriber.next(e));
 *   res.on('data', (chunk: Buffer) => { if (!decoder.write(chunk)) req.destroy(); });
 *   res.on('end', () => decoder.end());
 * });
 * ```
 *
 * ## Semantics
 * - Lines end with `\n` (`\r\n` accepted); chunk boundaries may fall anywhere, even inside a
 *   multi-byte UTF-8 character (a line is decoded as UTF-8 once it is complete). Empty lines are
 *   skipped.
 * - A line that is not JSON, or JSON that is not a watch event (no `type`, no `object`, an
 *   `ADDED`/`MODIFIED`/`DELETED` object without `metadata`, a `BOOKMARK` without
 *   `metadata.resourceVersion`) → `MALFORMED` with its first 256 bytes; decoding continues.
 * - Event types this client does not know are skipped (forward compatible).
 * - A line longer than `maxLineBytes` → `MALFORMED`, after every complete line before it; then the
 *   decoder stops (`write` returns false, further input is ignored): the caller aborts the watch.
 * - `end()` decodes a last line without `\n` (a truncated last line becomes `MALFORMED`).
 *
 * ## Memory
 * At most `maxLineBytes` of an unfinished line (as the chunk slices it arrived in) plus one chunk.
 */
export class WatchLineDecoder<T extends KubeObject = KubeObject> {
  private readonly maxLineBytes: number;
  /** Bytes of the current (unterminated) line seen so far. */
  private lineBytes = 0;
  /** The slices of the current line that arrived in earlier chunks. */
  private parts: Buffer[] = [];
  private done = false;

  /**
   * @param onEvent receives every decoded event, in order.
   * @param maxLineBytes the longest accepted line, in bytes (without the `\n`).
   */
  constructor(
    private readonly onEvent: (event: RawWatchEvent<T>) => void,
    maxLineBytes: number = DEFAULT_MAX_LINE_BYTES,
  ) {
    this.maxLineBytes = maxLineBytes;
  }

  /** True once the decoder stopped (an over-long line) or the body ended. */
  get stopped(): boolean {
    return this.done;
  }

  /**
   * Feeds one chunk of the body.
   * @returns false when the decoder stopped and the request should be aborted.
   */
  write(chunk: Buffer): boolean {
    if (this.done) return false;
    let pos = 0;
    for (;;) {
      const nl = chunk.indexOf(10, pos);
      const end = nl < 0 ? chunk.length : nl;
      const length = this.lineBytes + (end - pos);
      if (length > this.maxLineBytes) {
        const first = this.parts[0] ?? chunk.subarray(pos);
        this.stop({
          type: 'MALFORMED',
          line: first.toString('utf8', 0, Math.min(first.length, LINE_PREFIX_BYTES)),
          error: `line longer than ${this.maxLineBytes} bytes (maxLineBytes); the watch is aborted`,
        });
        return false;
      }
      if (nl < 0) {
        if (end > pos) {
          this.parts.push(chunk.subarray(pos));
          this.lineBytes = length;
        }
        return true;
      }
      let row: string;
      if (this.parts.length === 0) {
        row = chunk.toString('utf8', pos, nl);
      } else {
        this.parts.push(chunk.subarray(pos, nl));
        row = Buffer.concat(this.parts, length).toString('utf8');
        this.parts = [];
        this.lineBytes = 0;
      }
      pos = nl + 1;
      this.decode(row);
      if (this.done) return false;
    }
  }

  /** The body ended: decodes a last line without `\n`. */
  end(): void {
    if (this.done) return;
    if (this.parts.length > 0) {
      const row = Buffer.concat(this.parts, this.lineBytes).toString('utf8');
      this.parts = [];
      this.lineBytes = 0;
      this.decode(row);
    }
    this.done = true;
  }

  private decode(line: string): void {
    const row = line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
    if (row === '') return;
    let value: unknown;
    let parsed = true;
    try {
      value = JSON.parse(row);
    } catch {
      parsed = false;
    }
    let event: RawWatchEvent<T> | undefined;
    if (!parsed) {
      event = { type: 'MALFORMED', line: clipBytes(row), error: 'not valid JSON' };
    } else {
      const checked = checkEvent<T>(value);
      if (checked === SKIP) return;
      event =
        typeof checked === 'string' ? { type: 'MALFORMED', line: clipJson(value), error: checked } : checked;
    }
    this.onEvent(event);
  }

  private stop(event: RawWatchEvent<T>): void {
    this.done = true;
    this.parts = [];
    this.onEvent(event);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The first 256 bytes of a line (fewer when the 256th falls inside a UTF-8 character). */
function clipBytes(line: string): string {
  if (line.length <= LINE_PREFIX_BYTES / 3) return line;
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= LINE_PREFIX_BYTES) return line;
  let end = LINE_PREFIX_BYTES;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--; // not inside a UTF-8 character
  return bytes.toString('utf8', 0, end);
}

function clipJson(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > LINE_PREFIX_BYTES ? s.slice(0, LINE_PREFIX_BYTES) : s;
}

const SKIP: unique symbol = Symbol('skip');

function checkEvent<T extends KubeObject>(value: unknown): RawWatchEvent<T> | string | typeof SKIP {
  if (!isRecord(value)) return 'a watch line must be a JSON object';
  const type = value['type'];
  const object = value['object'];
  if (typeof type !== 'string') return 'watch event without a string "type"';
  if (!isRecord(object)) return `${type} event without an "object"`;
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      if (!isRecord(object['metadata'])) return `${type} event whose object has no "metadata"`;
      return { type, object: object as T };
    case 'BOOKMARK': {
      const meta = object['metadata'];
      if (!isRecord(meta) || typeof meta['resourceVersion'] !== 'string' || meta['resourceVersion'] === '') {
        return 'BOOKMARK event without object.metadata.resourceVersion';
      }
      return { type, object: object as { metadata: { resourceVersion: string } } };
    }
    case 'ERROR':
      return { type, object: object };
    default:
      return SKIP;
  }
}
