/**
 * `httpPost()`: the real webhook side effect — one HTTP(S) POST of a notification as JSON, as an
 * Observable of the response status (`node:http`/`node:https`, no redirects followed, the body of
 * the answer read and discarded). Retries are not its business (see `deliver.ts`).
 *
 * @module
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Observable } from 'rxjs';
import type { WebhookPost, WebhookResponse } from './deliver.js';

/** Options of {@link httpPost}. */
export interface HttpPostOptions {
  /** `User-Agent` header. Default `rxkube-deployment-notifier/0.1`. */
  readonly userAgent?: string;
  /** Wall clock for HTTP-date `Retry-After` values. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * A {@link WebhookPost} over `node:http(s)`: POSTs `JSON.stringify(body)` with
 * `Content-Type: application/json` and `Idempotency-Key: <body.idempotencyKey>`.
 *
 * ## Example
 * ```ts
 * deliverWebhook(httpPost(), { url: 'http://127.0.0.1:8080/hook', body: notification }).subscribe(console.log);
 * ```
 *
 * ## Semantics
 * - Emits `{ status, retryAfterSeconds? }` once the answer's body was read, then completes. Any
 *   status is a value (3xx are not followed); deciding what is a failure is the caller's job.
 * - Errors with the socket's error (refused, reset, DNS, TLS) — a network failure.
 * - unsubscribe before the answer: the request is destroyed (its socket closed).
 * - TLS verification stays on; no proxy support.
 */
export function httpPost(options: HttpPostOptions = {}): WebhookPost {
  const userAgent = options.userAgent ?? 'rxkube-deployment-notifier/0.1';
  const now = options.now ?? Date.now;
  return ({ url, body }) =>
    new Observable<WebhookResponse>((subscriber) => {
      const payload = JSON.stringify(body);
      let settled = false;
      let req: ReturnType<typeof httpRequest>;
      try {
        const target = new URL(url);
        const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
        req = send(
          target,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(payload),
              'idempotency-key': body.idempotencyKey,
              'user-agent': userAgent,
            },
          },
          (res) => {
            const status = res.statusCode ?? 0;
            const retryAfterSeconds = parseRetryAfter(res.headers['retry-after'], now);
            res.on('error', (e) => subscriber.error(e));
            res.on('end', () => {
              settled = true;
              subscriber.next({ status, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
              subscriber.complete();
            });
            res.resume();
          },
        );
      } catch (e) {
        // an unparsable URL or a header value Node refuses
        subscriber.error(e);
        return undefined;
      }
      req.on('error', (e) => {
        if (!settled) subscriber.error(e);
      });
      req.end(payload);
      return () => {
        if (!settled) req.destroy();
      };
    });
}

/**
 * `Retry-After` in seconds: delta-seconds, or an HTTP-date relative to `now()`; `undefined` when
 * absent or unparsable.
 *
 * ## Example
 * ```ts
 * parseRetryAfter('3', Date.now); // 3
 * ```
 */
export function parseRetryAfter(value: string | undefined, now: () => number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now()) / 1000));
}
