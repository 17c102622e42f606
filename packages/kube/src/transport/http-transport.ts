/**
 * HTTP/1.1 to the API server over `node:http`/`node:https` with the connection's keep-alive agent:
 * one JSON request/response, or one watch stream decoded line by line. Every request says what it
 * accepts, every body says its type, every response body is bounded, and error statuses become
 * {@link KubeApiError}s, failures to talk at all {@link KubeTransportError}s.
 *
 * What it does not do: retry (the watcher and the callers decide), map kinds to paths (discovery).
 *
 * @module
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type * as http from 'node:http';

import { Observable } from 'rxjs';

import type { Connection } from '../config/connection.js';
import type { RequestTarget } from '../errors.js';
import { KubeApiError, KubeConfigError, KubeTransportError } from '../errors.js';
import { parseStatus } from '../status.js';
import type { KubeObject } from '../types.js';
import type { RawWatchEvent } from './raw-watch-event.js';
import { DEFAULT_MAX_LINE_BYTES, WatchLineDecoder } from './watch-line-decoder.js';
import { currentRequestObserver } from './request-scope.js';

// The builtin through process.getBuiltinModule, not an ESM import: importing node:http as an ES
// module runs every lazy getter of its exports, which loads Node's bundled undici (~35 ms at start).
const nodeHttp = process.getBuiltinModule('node:http');
const nodeHttps = process.getBuiltinModule('node:https');

/**
 * Default bound on a response body (a list page of large objects stays far below it).
 *
 * ## Example
 * ```ts
 * // accept list pages up to 1 GiB instead of 256 MiB
 * const client = KubeClient.default({ maxResponseBytes: 4 * DEFAULT_MAX_RESPONSE_BYTES });
 * ```
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
/** Bound on an error body: a `metav1.Status` is small. */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;
/**
 * Default socket idle timeout of a non-watch request.
 *
 * ## Example
 * ```ts
 * const client = KubeClient.default({ requestTimeoutMs: 2 * DEFAULT_REQUEST_TIMEOUT_MS }); // a slow apiserver
 * ```
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * Options of {@link HttpTransport}.
 *
 * ## Example
 * ```ts
 * const options: TransportOptions = { userAgent: 'widget-operator/1.0', onWarning: (w, url) => log.warn({ url }, w) };
 * const client = KubeClient.default(options);
 * ```
 */
export interface TransportOptions {
  /** `User-Agent` (default `rxkube/0.1`); the API server names unnamed field managers after it. */
  readonly userAgent?: string;
  /** Largest accepted response body in bytes (default 256 MiB). */
  readonly maxResponseBytes?: number;
  /** Socket idle timeout of a non-watch request in ms (default 60 s). Watches have none. */
  readonly requestTimeoutMs?: number;
  /** Receives `Warning` headers (deprecated APIs, …). Default: ignored. */
  readonly onWarning?: (warning: string, url: string) => void;
}

/**
 * One request.
 *
 * ## Example
 * ```ts
 * const req: HttpRequest = {
 *   method: 'GET',
 *   path: '/api/v1/namespaces/default/configmaps',
 *   query: { limit: 10 },
 *   target: { verb: 'list', group: '', resource: 'configmaps', namespace: 'default' },
 *   signal: AbortSignal.timeout(5_000), // optional: cancels the request
 * };
 * const page = await transport.request<ObjectList<KubeObject>>(req);
 * ```
 */
export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API path, e.g. `/api/v1/namespaces/default/configmaps`. */
  readonly path: string;
  /** Query parameters; undefined values are left out. */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Serialised body. */
  readonly body?: string;
  /** Required with a body. */
  readonly contentType?: string;
  /** Default `application/json`. */
  readonly accept?: string;
  /** What the request is about (error messages, RBAC hints). */
  readonly target: RequestTarget;
  /**
   * Cancels the request: when it aborts, the request is destroyed (its socket closed, never
   * returned to the pool) and the call rejects with a {@link KubeTransportError} of failure
   * `aborted` whose `cause` is `signal.reason`; already aborted, nothing is sent.
   */
  readonly signal?: AbortSignal;
}

/**
 * Sends requests to one API server.
 *
 * ## Example
 * ```ts
 * const transport = new HttpTransport(connectionFromKubeConfig(kubeConfig));
 * const list = await transport.request({ method: 'GET', path: '/api/v1/namespaces', target: { verb: 'list' } });
 * ```
 */
export class HttpTransport {
  private readonly userAgent: string;
  private readonly maxResponseBytes: number;
  private readonly requestTimeoutMs: number;
  private readonly onWarning: ((warning: string, url: string) => void) | undefined;

  /** @param connection where and how to connect.  @param options limits and headers. */
  constructor(
    readonly connection: Connection,
    options: TransportOptions = {},
  ) {
    this.userAgent = options.userAgent ?? 'rxkube/0.1';
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.onWarning = options.onWarning;
  }

  /** The absolute URL of a request. */
  url(req: Pick<HttpRequest, 'path' | 'query'>): URL {
    const base = this.connection.server;
    const prefix = base.pathname.endsWith('/') ? base.pathname.slice(0, -1) : base.pathname;
    const url = new URL(`${prefix}${req.path}`, base.origin);
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    return url;
  }

  /**
   * Sends one request and parses the JSON answer.
   * @throws {KubeApiError} on an error status.  @throws {KubeTransportError} when no usable answer came.
   * @throws {KubeConfigError} when credentials cannot be obtained.
   * @throws {KubeTransportError} of failure `aborted` when `req.signal` aborts (nothing is sent
   * when it already has).
   */
  async request<T>(req: HttpRequest): Promise<T> {
    const url = this.url(req);
    const { signal } = req;
    if (signal?.aborted) throw abortedError(req.method, url, signal);
    const end = currentRequestObserver()?.(req.method, url);
    if (end === undefined) return this.exchange<T>(req, url);
    let status: number | undefined;
    try {
      const value = await this.exchange<T>(req, url, (s) => (status = s));
      end(status);
      return value;
    } catch (error) {
      end(status, error);
      throw error;
    }
  }

  /**
   * One request/response; `onStatus` learns the status as soon as the response head came. A 401
   * to a credential the connection can refresh (an exec plugin's) is sent once more with a fresh
   * one (`retried`).
   */
  private async exchange<T>(
    req: HttpRequest,
    url: URL,
    onStatus?: (status: number) => void,
    retried = false,
  ): Promise<T> {
    const { signal } = req;
    const auth = await this.connection.auth();
    const { headers, agent } = auth;
    if (signal?.aborted) throw abortedError(req.method, url, signal);
    return new Promise<T>((resolve, rejectWith) => {
      // whatever breaks once the signal aborted (the socket, a body cut short) is the abort
      const reject = (e: unknown): void =>
        rejectWith(
          signal?.aborted
            ? abortedError(req.method, url, signal)
            : e instanceof Error
              ? e
              : new Error(String(e)),
        );
      const r = this.send(req, url, headers, agent);
      r.setTimeout(this.requestTimeoutMs, () => {
        r.destroy(
          new KubeTransportError(
            req.method,
            url.toString(),
            'timeout',
            undefined,
            `no data for ${this.requestTimeoutMs} ms`,
          ),
        );
      });
      r.on('error', (e) => reject(toTransportError(req.method, url, e)));
      r.on('response', (res) => {
        this.warn(res, url);
        const status = res.statusCode ?? 0;
        onStatus?.(status);
        if (status === 401 && !retried && this.connection.unauthorized?.(auth) === true) {
          res.resume();
          resolve(this.exchange<T>(req, url, onStatus, true));
          return;
        }
        const limit = status >= 200 && status < 300 ? this.maxResponseBytes : MAX_ERROR_BODY_BYTES;
        readBody(res, r, limit, req.method, url).then((text) => {
          if (status >= 200 && status < 300) {
            try {
              resolve(JSON.parse(text) as T);
            } catch (e) {
              reject(
                new KubeTransportError(
                  req.method,
                  url.toString(),
                  'protocol',
                  e,
                  `HTTP ${status} with a body that is not JSON (Content-Type ${res.headers['content-type'] ?? 'none'})`,
                ),
              );
            }
          } else {
            reject(apiError(req, url, res, text));
          }
        }, reject);
      });
      r.end(req.body);
    });
  }

  /**
   * Opens one watch request and emits its decoded lines.
   *
   * ## Semantics
   * - next: each decoded line (`ERROR` lines included, `MALFORMED` for bad lines).
   * - complete: the server ended the body cleanly (its `timeoutSeconds`), or a line exceeded
   *   `maxLineBytes` (after its `MALFORMED` event; the request is aborted).
   * - error: an error status ({@link KubeApiError}), a network failure or a body cut short
   *   ({@link KubeTransportError}), unusable credentials ({@link KubeConfigError}).
   * - unsubscribe: the request is destroyed (its socket closed, never returned to the pool).
   */
  watch<T extends KubeObject>(
    req: HttpRequest,
    maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  ): Observable<RawWatchEvent<T>> {
    return new Observable<RawWatchEvent<T>>((subscriber) => {
      let request: ClientRequest | undefined;
      let url: URL;
      try {
        url = this.url(req);
      } catch (e) {
        subscriber.error(e);
        return undefined;
      }
      // a 401 to a credential the connection can refresh (an exec plugin's) opens once more
      const open = (retried: boolean): void => {
        this.connection.auth().then(
          (auth) => {
            if (subscriber.closed) return;
            const r = this.send(req, url, auth.headers, auth.agent);
            request = r;
            r.on('error', (e) => subscriber.error(toTransportError(req.method, url, e)));
            r.on('response', (res) => {
              this.warn(res, url);
              const status = res.statusCode ?? 0;
              if (status === 401 && !retried && this.connection.unauthorized?.(auth) === true) {
                // this answer is done with: whatever its socket does next is not the watch's
                r.removeAllListeners('error');
                r.on('error', () => undefined);
                res.resume();
                open(true);
                return;
              }
              if (status < 200 || status >= 300) {
                readBody(res, r, MAX_ERROR_BODY_BYTES, req.method, url).then(
                  (text) => subscriber.error(apiError(req, url, res, text)),
                  (e: unknown) => subscriber.error(e),
                );
                return;
              }
              let ended = false;
              const decoder = new WatchLineDecoder<T>((event) => subscriber.next(event), maxLineBytes);
              res.on('data', (chunk: Buffer) => {
                if (!decoder.write(chunk)) {
                  ended = true;
                  r.destroy();
                  subscriber.complete();
                }
              });
              res.on('end', () => {
                ended = true;
                decoder.end();
                subscriber.complete();
              });
              res.on('error', (e) =>
                subscriber.error(
                  toTransportError(
                    req.method,
                    url,
                    e,
                    `the connection broke before the watch response ended (${e.message})`,
                  ),
                ),
              );
              res.on('close', () => {
                if (!ended) {
                  subscriber.error(
                    new KubeTransportError(
                      req.method,
                      url.toString(),
                      'network',
                      undefined,
                      'the connection closed before the watch response ended',
                    ),
                  );
                }
              });
            });
            r.end(req.body);
          },
          (e: unknown) => subscriber.error(e),
        );
      };
      open(false);
      return () => {
        request?.destroy();
      };
    });
  }

  private send(
    req: HttpRequest,
    url: URL,
    authHeaders: Readonly<Record<string, string>>,
    agent: http.Agent,
  ): ClientRequest {
    if (req.body !== undefined && req.contentType === undefined) {
      throw new KubeConfigError(`internal: ${req.method} ${url.pathname} has a body without a Content-Type`);
    }
    const headers: Record<string, string | number> = {
      ...authHeaders,
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.userAgent,
    };
    if (req.body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(req.body);
    }
    const options: http.RequestOptions = {
      method: req.method,
      headers,
      agent,
      ...(req.signal !== undefined ? { signal: req.signal } : {}),
    };
    return url.protocol === 'https:' ? nodeHttps.request(url, options) : nodeHttp.request(url, options);
  }

  private warn(res: IncomingMessage, url: URL): void {
    const w: unknown = res.headers['warning'];
    if (w === undefined || this.onWarning === undefined) return;
    for (const warning of Array.isArray(w) ? (w as unknown[]) : [w])
      this.onWarning(String(warning), url.toString());
  }
}

/** Reads a body up to `limit` bytes; destroys the request beyond it. */
function readBody(
  res: IncomingMessage,
  req: ClientRequest,
  limit: number,
  method: string,
  url: URL,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        settled = true;
        req.destroy();
        reject(
          new KubeTransportError(
            method,
            url.toString(),
            'body-too-large',
            undefined,
            `the response body exceeded ${limit} bytes`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    });
    res.on('error', (e) => {
      if (settled) return;
      settled = true;
      reject(
        toTransportError(method, url, e, `the connection broke before the response ended (${e.message})`),
      );
    });
    res.on('close', () => {
      if (settled) return;
      settled = true;
      reject(
        new KubeTransportError(
          method,
          url.toString(),
          'network',
          undefined,
          'the connection closed before the response ended',
        ),
      );
    });
  });
}

function apiError(req: HttpRequest, url: URL, res: IncomingMessage, text: string): KubeApiError {
  const status = parseStatus(text);
  const retryAfter = headerValue(res.headers, 'retry-after');
  return new KubeApiError({
    httpStatus: res.statusCode ?? 0,
    method: req.method,
    url: url.toString(),
    target: req.target,
    ...(status !== undefined ? { status } : { text }),
    ...(retryAfter !== undefined ? { retryAfterHeader: retryAfter } : {}),
  });
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
]);

/** The rejection of a request whose signal aborted: its cause is the signal's reason. */
function abortedError(method: string, url: URL, signal: AbortSignal): KubeTransportError {
  const reason: unknown = signal.reason;
  const why = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  return new KubeTransportError(
    method,
    url.toString(),
    'aborted',
    reason,
    `the request was cancelled by its AbortSignal (${why})`,
  );
}

function toTransportError(method: string, url: URL, e: unknown, detail?: string): Error {
  if (e instanceof KubeTransportError || e instanceof KubeApiError || e instanceof KubeConfigError) return e;
  const code = (e as { code?: unknown } | null)?.code;
  const failure = typeof code === 'string' && TLS_CODES.has(code) ? 'tls' : 'network';
  return new KubeTransportError(method, url.toString(), failure, e, detail);
}
