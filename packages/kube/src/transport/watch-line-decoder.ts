/**
 * The watch line decoder: bytes of a watch response body in, {@link RawWatchEvent}s out. Every line
 * is parsed by `ndjson`'s row parser (the agreed dependency: its `JSON.parse` wrapper and its strict
 * bad-row report); this file splits the lines itself — in the one pass that also bounds the line
 * length — and hands each complete line to that parser, instead of writing the bytes through
 * ndjson's stream (split2's `Transform` over readable-stream, which split and decoded every chunk a
 * second time: ~3 µs per event). Lines that are not JSON or not a watch event become `MALFORMED`
 * events instead of throwing, and events keep the order of the lines. Not exported from the
 * package.
 *
 * @module
 */
import ndjson from 'ndjson';

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
 * What `ndjson.parse()` returns at run time: a split2 stream whose `mapper` is ndjson's row parser
 * (`JSON.parse` of a non-empty row; in strict mode a bad row emits `error` on the stream and yields
 * `undefined`). Only the row parser and the `error` event are used: no bytes go through the stream.
 */
interface NdjsonParseStream {
  readonly mapper?: unknown;
  on(event: 'error', listener: (error: Error) => void): void;
}

/** ndjson's row parser; called with its stream as `this` (where it reports a bad row). */
type RowParser = (this: NdjsonParseStream, row: string) => unknown;

/**
 * Decodes one watch response body. Feed it the body's chunks as they arrive, in order; events are
 * delivered synchronously to `onEvent`.
 *
 * ## Example
 * ```ts
 * const decoder = new WatchLineDecoder((e) => subscriber.next(e));
 * res.on('data', (chunk: Buffer) => { if (!decoder.write(chunk)) req.destroy(); });
 * res.on('end', () => decoder.end());
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
  /** ndjson's parse stream: its row parser parses every line, its `error` event flags bad rows. */
  private readonly parser: NdjsonParseStream;
  private readonly parseRow: RowParser;
  private readonly maxLineBytes: number;
  /** Bytes of the current (unterminated) line seen so far. */
  private lineBytes = 0;
  /** The slices of the current line that arrived in earlier chunks. */
  private parts: Buffer[] = [];
  /** Set by the parser's `error` listener while a row is parsed. */
  private rowFailed = false;
  private done = false;

  /**
   * @param onEvent receives every decoded event, in order.
   * @param maxLineBytes the longest accepted line, in bytes (without the `\n`).
   * @throws {Error} when the installed ndjson no longer exposes its row parser.
   */
  constructor(
    private readonly onEvent: (event: RawWatchEvent<T>) => void,
    maxLineBytes: number = DEFAULT_MAX_LINE_BYTES,
  ) {
    this.maxLineBytes = maxLineBytes;
    this.parser = ndjson.parse({ strict: true });
    const mapper = this.parser.mapper;
    if (typeof mapper !== 'function') {
      throw new Error(
        "WatchLineDecoder: ndjson.parse() no longer exposes its row parser (the split2 stream's " +
          '`mapper`); ndjson 2 over split2 3 is expected — check the installed versions',
      );
    }
    this.parseRow = mapper as RowParser;
    this.parser.on('error', () => {
      this.rowFailed = true;
    });
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
    this.rowFailed = false;
    const value = this.parseRow.call(this.parser, row);
    let event: RawWatchEvent<T> | undefined;
    if (this.rowFailed) {
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
