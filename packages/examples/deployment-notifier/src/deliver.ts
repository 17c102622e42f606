/**
 * `deliverWebhook`: one webhook delivery with retries — the POST is a side effect passed in as a
 * function returning `ObservableInput`, the waits run on a `SchedulerLike`, so `TestScheduler.run`
 * drives every attempt, timeout and backoff in the marble tests (`deliver.test.ts`).
 *
 * What it does not do: HTTP (see `webhook.ts`), remember what was delivered (the reconcile writes
 * that to the notifier's status).
 *
 * @module
 */
import {
  type Observable,
  type ObservableInput,
  type SchedulerLike,
  asyncScheduler,
  catchError,
  defer,
  from,
  map,
  of,
  retry,
  take,
  throwError,
  throwIfEmpty,
  timeout,
  timer,
} from 'rxjs';
import { InvalidArgumentError } from '@rxkube/core';
import type { Notification } from './types.js';

/** What the POST port sends. */
export interface WebhookRequest {
  /** Where to POST (http or https). */
  readonly url: string;
  /** The JSON body. */
  readonly body: Notification;
}

/** The POST port's answer: the HTTP status, and `Retry-After` in seconds when the server sent one. */
export interface WebhookResponse {
  readonly status: number;
  readonly retryAfterSeconds?: number;
}

/**
 * The side effect: POST `request.body` as JSON to `request.url`, emit the response (its first
 * value counts), error on a network failure. Unsubscribing must abort the request.
 */
export type WebhookPost = (request: WebhookRequest) => ObservableInput<WebhookResponse>;

/** Retry settings of {@link deliverWebhook}; every field has a default. */
export interface DeliveryOptions {
  /** POST attempts in all (1 = no retry); integer >= 1. Default 5. */
  readonly maxAttempts?: number;
  /** Wait before the first retry, ms; doubles per retry. Default 500. */
  readonly initialDelayMs?: number;
  /** Cap of one wait, ms (also caps a `Retry-After`). Default 30 000. */
  readonly maxDelayMs?: number;
  /** One attempt without a response for this long is a failure (retried). Default 10 000. */
  readonly attemptTimeoutMs?: number;
}

/** Defaults of {@link DeliveryOptions}. */
export const DEFAULT_DELIVERY = {
  maxAttempts: 5,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  attemptTimeoutMs: 10_000,
} as const satisfies Required<DeliveryOptions>;

/** Why one POST attempt failed. */
export type WebhookFailure = 'network' | 'timeout' | 'status';

/**
 * One failed POST attempt (the last one, in a `failed` outcome). The URL is shown as its origin
 * only: webhook URLs often carry a token in the path or query.
 */
export class WebhookDeliveryError extends Error {
  readonly _tag = 'WebhookDeliveryError' as const;
  override readonly name = 'WebhookDeliveryError';
  /** `network` (connection refused/reset, DNS, …), `timeout` (no response in time) or `status` (not 2xx). */
  readonly failure: WebhookFailure;
  /** The HTTP status when `failure` is `status`. */
  readonly status: number | undefined;
  /** Network errors, timeouts, 5xx and 429 are retried; other statuses (4xx, 3xx) are not. */
  readonly retryable: boolean;
  /** `Retry-After` of a 429/503, in seconds. */
  readonly retryAfterSeconds: number | undefined;
  /** The webhook's origin, e.g. `https://hooks.example.com` (never its path or query). */
  readonly origin: string;

  constructor(
    url: string,
    failure: WebhookFailure,
    detail: { status?: number; retryAfterSeconds?: number; cause?: unknown; timeoutMs?: number } = {},
  ) {
    const origin = originOf(url);
    const what =
      failure === 'status'
        ? `answered HTTP ${detail.status ?? '?'}`
        : failure === 'timeout'
          ? `sent no response within ${detail.timeoutMs ?? '?'} ms`
          : `failed: ${causeMessage(detail.cause)}`;
    const retryable =
      failure !== 'status' ||
      detail.status === 429 ||
      (detail.status !== undefined && detail.status >= 500 && detail.status <= 599);
    const next = retryable
      ? 'retried with backoff; check that the receiver is up'
      : 'not retried: fix the receiver or the notifier spec.target.webhook.url';
    super(
      `webhook POST to ${origin} ${what} (${next})`,
      detail.cause !== undefined ? { cause: detail.cause } : {},
    );
    this.failure = failure;
    this.status = detail.status;
    this.retryable = retryable;
    this.retryAfterSeconds = detail.retryAfterSeconds;
    this.origin = origin;
  }
}

/** What {@link deliverWebhook} emits: delivered (a 2xx), or failed after its last attempt. */
export type DeliveryOutcome =
  | { readonly type: 'delivered'; readonly attempts: number; readonly status: number }
  | { readonly type: 'failed'; readonly attempts: number; readonly error: WebhookDeliveryError };

/**
 * POSTs one notification, retrying with exponential backoff until a 2xx answer or `maxAttempts`.
 *
 * ## Example
 * ```ts
 * deliverWebhook(httpPost(), { url, body }, { maxAttempts: 5 }).subscribe((o) =>
 *   o.type === 'delivered' ? console.log(`delivered in ${o.attempts}`) : console.warn(o.error.message),
 * );
 * ```
 *
 * ## Semantics
 * - Attempt n (1-based) runs `post(request)`; its first value is the response. 2xx → `delivered`.
 * - Retried: the post erroring (network), no response within `attemptTimeoutMs`, HTTP 5xx and 429.
 *   Not retried: any other status (a 4xx or 3xx will not get better by itself).
 * - Wait before attempt n+1: `min(maxDelayMs, max(initialDelayMs × 2^(n-1), Retry-After))`
 *   (500, 1000, 2000, 4000 ms by default), no jitter — deliveries are already serialised per
 *   notifier. Every wait and the attempt timeout run on `scheduler`.
 * - Gives up after `maxAttempts` attempts or a non-retryable answer: one `failed` value carrying the
 *   last error. Emits exactly one outcome, then completes; never errors.
 * - Every attempt sends the same `request` (same `at`, same `idempotencyKey`).
 * - unsubscribe: the attempt in flight is unsubscribed (the port aborts it), the wait cancelled.
 *
 * @param post the side effect (a real one: `httpPost()`; in tests: `cold()`).
 * @param request url and body.
 * @param options see {@link DeliveryOptions}.
 * @param scheduler time source of waits and timeouts; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously when `maxAttempts` is not an integer >= 1.
 */
export function deliverWebhook(
  post: WebhookPost,
  request: WebhookRequest,
  options: DeliveryOptions = {},
  scheduler: SchedulerLike = asyncScheduler,
): Observable<DeliveryOutcome> {
  const maxAttempts = positiveInteger('maxAttempts', options.maxAttempts ?? DEFAULT_DELIVERY.maxAttempts);
  const initialDelayMs = options.initialDelayMs ?? DEFAULT_DELIVERY.initialDelayMs;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_DELIVERY.maxDelayMs;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_DELIVERY.attemptTimeoutMs;
  return defer(() => {
    let attempts = 0;
    const attempt$ = defer(() => {
      attempts++;
      return from(post(request)).pipe(
        take(1),
        throwIfEmpty(() => new WebhookDeliveryError(request.url, 'network', { cause: 'no response' })),
        timeout({
          first: attemptTimeoutMs,
          with: () =>
            throwError(
              () => new WebhookDeliveryError(request.url, 'timeout', { timeoutMs: attemptTimeoutMs }),
            ),
          scheduler,
        }),
        catchError((e: unknown) =>
          throwError(() =>
            e instanceof WebhookDeliveryError
              ? e
              : new WebhookDeliveryError(request.url, 'network', { cause: e }),
          ),
        ),
        map((response) => {
          if (response.status >= 200 && response.status <= 299) return response.status;
          throw new WebhookDeliveryError(request.url, 'status', {
            status: response.status,
            ...(response.retryAfterSeconds !== undefined
              ? { retryAfterSeconds: response.retryAfterSeconds }
              : {}),
          });
        }),
      );
    });
    return attempt$.pipe(
      retry({
        count: maxAttempts - 1,
        delay: (error: unknown, retryCount) => {
          if (!(error instanceof WebhookDeliveryError) || !error.retryable) return throwError(() => error);
          const backoff = initialDelayMs * 2 ** (retryCount - 1);
          const retryAfter = (error.retryAfterSeconds ?? 0) * 1000;
          return timer(Math.min(maxDelayMs, Math.max(backoff, retryAfter)), scheduler);
        },
      }),
      map((status): DeliveryOutcome => ({ type: 'delivered', attempts, status })),
      catchError((e: unknown) =>
        of<DeliveryOutcome>({
          type: 'failed',
          attempts,
          error:
            e instanceof WebhookDeliveryError
              ? e
              : new WebhookDeliveryError(request.url, 'network', { cause: e }),
        }),
      ),
    );
  });
}

/**
 * The origin of a URL (`https://host:port`), never its path, query or credentials; `<invalid URL>`
 * when it does not parse.
 *
 * ## Example
 * ```ts
 * originOf('https://user:pw@hooks.example.com/services/T0/B0/secret?x=1'); // 'https://hooks.example.com'
 * ```
 */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '<invalid URL>';
  }
}

function causeMessage(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError('deliverWebhook', `options.${name}`, value, 'must be an integer >= 1');
  }
  return value;
}
