/**
 * A tiny HTTP client for this package's own tests: JSON requests, and watch streams read line by
 * line with bounded waits (no sleeps). Not exported.
 *
 * @module
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** A completed response. */
export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON when the body is JSON, otherwise the text. */
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly text: string;
}

/** Request options. */
export interface CallOptions {
  readonly body?: unknown;
  /** Sent as-is when a string. */
  readonly contentType?: string;
  readonly accept?: string;
  readonly headers?: Record<string, string>;
  readonly ca?: string;
}

/** Performs one request. */
export function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const url = new URL(path, base);
  const payload =
    opts.body === undefined
      ? undefined
      : typeof opts.body === 'string'
        ? opts.body
        : JSON.stringify(opts.body);
  const headers: Record<string, string> = {
    Accept: opts.accept ?? 'application/json',
    'User-Agent': 'rxkube-test/1.0',
    ...opts.headers,
  };
  if (payload !== undefined) {
    headers['Content-Type'] = opts.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  const requester = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = requester(url, { method, headers, ...(opts.ca ? { ca: opts.ca } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        if ((res.headers['content-type'] ?? '').startsWith('application/json') && text !== '') {
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** A watch event line. */
export interface WatchLine {
  readonly type: string;
  readonly object: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Reads a watch stream line by line. */
export class WatchReader {
  readonly lines: WatchLine[] = [];
  /** Raw bytes received (for framing checks). */
  raw = '';
  status = 0;
  headers: IncomingHttpHeaders = {};
  /** 'end' = clean end of the body, 'error' = connection lost. */
  ended: 'end' | 'error' | undefined;
  private buffer = '';
  private waiters: (() => void)[] = [];
  private res: IncomingMessage | undefined;
  private readonly reqHandle: ReturnType<typeof httpRequest>;
  readonly ready: Promise<void>;

  constructor(
    base: string,
    path: string,
    accept = 'application/json',
    opts: { readonly headers?: Record<string, string>; readonly ca?: string } = {},
  ) {
    const url = new URL(path, base);
    const requester = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let onReady: () => void = () => undefined;
    let onFail: (e: unknown) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      onReady = resolve;
      onFail = reject;
    });
    const options = {
      method: 'GET',
      headers: { Accept: accept, ...opts.headers },
      ...(opts.ca ? { ca: opts.ca } : {}),
    };
    this.reqHandle = requester(url, options, (res) => {
      this.res = res;
      this.status = res.statusCode ?? 0;
      this.headers = res.headers;
      onReady();
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        this.raw += c;
        this.buffer += c;
        let i: number;
        while ((i = this.buffer.indexOf('\n')) >= 0) {
          const line = this.buffer.slice(0, i);
          this.buffer = this.buffer.slice(i + 1);
          if (line.trim() === '') continue;
          try {
            this.lines.push(JSON.parse(line) as WatchLine);
          } catch {
            // a line that is not JSON (fault injection): kept as is
            this.lines.push({ type: '<malformed>', object: line });
          }
        }
        this.wake();
      });
      res.on('end', () => {
        this.ended ??= 'end';
        this.wake();
      });
      res.on('aborted', () => {
        this.ended = 'error';
        this.wake();
      });
      res.on('error', () => {
        this.ended = 'error';
        this.wake();
      });
    });
    this.reqHandle.on('error', (e) => {
      this.ended = 'error';
      onFail(e);
      this.wake();
    });
    this.reqHandle.end();
  }

  /** Bytes received after the last complete line. */
  get partial(): string {
    return this.buffer;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Waits until `pred` holds (checked after every chunk), failing after `timeoutMs`. */
  async until(pred: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out waiting for ${what}; lines: ${JSON.stringify(this.lines.map((l) => l.type))}`,
        );
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits for at least `n` lines. */
  async count(n: number, timeoutMs = 5000): Promise<WatchLine[]> {
    await this.until(() => this.lines.length >= n, `${String(n)} watch lines`, timeoutMs);
    return this.lines.slice(0, n);
  }

  /** Waits for the end of the stream. */
  async end(timeoutMs = 5000): Promise<'end' | 'error'> {
    await this.until(() => this.ended !== undefined, 'the end of the watch', timeoutMs);
    return this.ended ?? 'error';
  }

  /** Closes the connection from the client side. */
  close(): void {
    this.res?.destroy();
    this.reqHandle.destroy();
  }
}
