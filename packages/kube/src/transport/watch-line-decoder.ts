/**
 * The watch line decoder: bytes of a watch response body in, {@link RawWatchEvent}s out. Lines are
 * split and parsed by `ndjson` (the agreed dependency); this file bounds the line length, turns
 * lines that are not JSON or not a watch event into `MALFORMED` events instead of throwing, and
 * keeps the order of events exactly as received. Not exported from the package.
 *
 * @module
 */
import ndjson from 'ndjson';

import type { KubeObject } from '../types.js';
import type { RawWatchEvent } from '../watcher/source.js';

/** Default bound on one watch line: far above the API server's 3 MiB request limit. */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/** How much of a bad line a `MALFORMED` event carries. */
const LINE_PREFIX_BYTES = 256;

const NOT_JSON = Symbol('not-json');

interface NotJson {
  readonly [NOT_JSON]: string;
}

/** What ndjson's parse stream is at run time (split2 over readable-stream 3). */
interface ParseStream {
  write(chunk: Buffer): boolean;
  end(): void;
  read(): unknown;
  push(value: unknown): boolean;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

/** split2 options ndjson passes through (its typings only declare `strict`). */
interface SplitOptions {
  strict: boolean;
  maxLength: number;
  skipOverflow: boolean;
}

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
 *   multi-byte UTF-8 character. Empty lines are skipped.
 * - A line that is not JSON, or JSON that is not a watch event (no `type`, no `object`, an
 *   `ADDED`/`MODIFIED`/`DELETED` object without `metadata`, a `BOOKMARK` without
 *   `metadata.resourceVersion`) → `MALFORMED` with its first 256 bytes; decoding continues.
 * - Event types this client does not know are skipped (forward compatible).
 * - A line longer than `maxLineBytes` → `MALFORMED`, after every complete line before it; then the
 *   decoder stops (`write` returns false, further input is ignored): the caller aborts the watch.
 * - `end()` decodes a last line without `\n` (a truncated last line becomes `MALFORMED`).
 *
 * ## Memory
 * At most `maxLineBytes` of an unfinished line plus one chunk are buffered.
 */
export class WatchLineDecoder<T extends KubeObject = KubeObject> {
  private readonly parser: ParseStream;
  private readonly maxLineBytes: number;
  /** Bytes of the current (unterminated) line seen so far. */
  private lineBytes = 0;
  /** The first bytes of the current line, when it started in an earlier chunk. */
  private lineHead: Buffer | undefined;
  private failure: string | undefined;
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
    const options: SplitOptions = { strict: true, maxLength: maxLineBytes, skipOverflow: false };
    this.parser = ndjson.parse(options);
    // ndjson reports a bad row by emitting 'error' from inside its transform, in the middle of the
    // rows of a chunk. Pushing a marker from the listener keeps it in order with the good rows.
    this.parser.on('error', (error: Error) => {
      const prefix = 'Could not parse row ';
      if (error.message.startsWith(prefix)) {
        const row = error.message.slice(prefix.length).replace(/\.\.\.$/, '');
        this.parser.push({ [NOT_JSON]: row } satisfies NotJson);
      } else {
        this.failure ??= error.message;
      }
    });
  }

  /** True once the decoder stopped (an over-long line, or a parser failure). */
  get stopped(): boolean {
    return this.done;
  }

  /**
   * Feeds one chunk of the body.
   * @returns false when the decoder stopped and the request should be aborted.
   */
  write(chunk: Buffer): boolean {
    if (this.done) return false;
    const tooLongAt = this.scan(chunk);
    if (tooLongAt === undefined) {
      this.parser.write(chunk);
      this.drain();
      return !this.done;
    }
    // Everything before the over-long line is decoded first, then the line is reported.
    const { lineStart, head } = tooLongAt;
    if (lineStart > 0) this.parser.write(chunk.subarray(0, lineStart));
    this.drain();
    if (this.done) return false;
    this.stop({
      type: 'MALFORMED',
      line: head.toString('utf8'),
      error: `line longer than ${this.maxLineBytes} bytes (maxLineBytes); the watch is aborted`,
    });
    return false;
  }

  /** The body ended: decodes a last line without `\n`. */
  end(): void {
    if (this.done) return;
    this.parser.end();
    this.drain();
    this.done = true;
  }

  /** Finds where the current line exceeds the bound, tracking the line length across chunks. */
  private scan(chunk: Buffer): { lineStart: number; head: Buffer } | undefined {
    let pos = 0;
    for (;;) {
      const nl = chunk.indexOf(10, pos);
      const end = nl < 0 ? chunk.length : nl;
      const length = this.lineBytes + (end - pos);
      if (length > this.maxLineBytes) {
        const head =
          this.lineBytes > 0 && this.lineHead !== undefined
            ? this.lineHead
            : Buffer.from(chunk.subarray(pos, pos + LINE_PREFIX_BYTES));
        return { lineStart: this.lineBytes > 0 ? 0 : pos, head };
      }
      if (nl < 0) {
        if (this.lineBytes === 0 && end > pos) {
          this.lineHead = Buffer.from(chunk.subarray(pos, pos + LINE_PREFIX_BYTES));
        }
        this.lineBytes = length;
        return undefined;
      }
      this.lineBytes = 0;
      this.lineHead = undefined;
      pos = nl + 1;
    }
  }

  private drain(): void {
    for (;;) {
      if (this.done) return;
      if (this.failure !== undefined) {
        this.stop({ type: 'MALFORMED', line: '', error: `watch line decoder failed: ${this.failure}` });
        return;
      }
      const value = this.parser.read();
      if (value === null) return;
      const event = toEvent<T>(value);
      if (event !== undefined) this.onEvent(event);
    }
  }

  private stop(event: RawWatchEvent<T>): void {
    this.done = true;
    this.parser.destroy();
    this.onEvent(event);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function clipJson(value: unknown): string {
  const s = JSON.stringify(value) ?? String(value);
  return s.length > LINE_PREFIX_BYTES ? s.slice(0, LINE_PREFIX_BYTES) : s;
}

const SKIP: unique symbol = Symbol('skip');

/** Validates the shape of one parsed line; undefined for an event type this client skips. */
function toEvent<T extends KubeObject>(value: unknown): RawWatchEvent<T> | undefined {
  if (isRecord(value) && NOT_JSON in value) {
    return {
      type: 'MALFORMED',
      line: String((value as unknown as NotJson)[NOT_JSON]),
      error: 'not valid JSON',
    };
  }
  const checked = checkEvent<T>(value);
  if (typeof checked === 'string') return { type: 'MALFORMED', line: clipJson(value), error: checked };
  if (checked === SKIP) return undefined;
  return checked;
}

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
