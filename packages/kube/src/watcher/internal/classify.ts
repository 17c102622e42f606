/**
 * Reads what the watcher needs from a failure — HTTP status / Status code, reason, Retry-After and
 * a message — whatever shape it has: a `KubeApiError`, a Node network error, or the `metav1.Status`
 * of a watch `ERROR` event. Not exported from the package.
 */
import type { WatchStatus } from '../source.js';

/** What the watcher's state machine needs to know about one failure. */
export interface Classified {
  readonly message: string;
  /** The kind is not served (`ResourceNotFoundError`): its CRD is missing. */
  readonly notServed?: boolean;
  readonly code?: number;
  readonly reason?: string;
  readonly retryAfterMs?: number;
}

type Loose = Record<string, unknown>;

function asObject(value: unknown): Loose | undefined {
  return value !== null && typeof value === 'object' ? (value as Loose) : undefined;
}

function positiveNumber(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return undefined;
}

function retryAfterSeconds(e: Loose): number | undefined {
  const status = asObject(e['status']);
  const body = asObject(e['body']);
  const headers = asObject(e['headers']);
  return (
    positiveNumber(e['retryAfterSeconds']) ??
    positiveNumber(asObject(e['details'])?.['retryAfterSeconds']) ??
    positiveNumber(asObject(status?.['details'])?.['retryAfterSeconds']) ??
    positiveNumber(asObject(body?.['details'])?.['retryAfterSeconds']) ??
    positiveNumber(headers?.['retry-after']) ??
    positiveNumber(headers?.['Retry-After'])
  );
}

function codeOf(e: Loose): number | undefined {
  for (const candidate of [e['code'], e['statusCode'], e['status'], asObject(e['status'])?.['code']]) {
    if (typeof candidate === 'number' && Number.isInteger(candidate)) return candidate;
  }
  return undefined;
}

function reasonOf(e: Loose): string | undefined {
  const r = e['reason'] ?? asObject(e['status'])?.['reason'] ?? asObject(e['body'])?.['reason'];
  return typeof r === 'string' && r !== '' ? r : undefined;
}

/** Classifies an error from the error channel of `list()` or `watch()`. */
export function classifyError(error: unknown): Classified {
  const e = asObject(error);
  const message =
    error instanceof Error
      ? error.message
      : typeof error === 'string'
        ? error
        : `non-Error failure: ${String(error)}`;
  if (e === undefined) return { message };
  if (e['_tag'] === 'ResourceNotFoundError') return { message, notServed: true };
  const code = codeOf(e);
  const reason = reasonOf(e);
  const ra = retryAfterSeconds(e);
  return {
    message: message || 'unknown failure (an error without a message)',
    ...(code !== undefined ? { code } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(ra !== undefined ? { retryAfterMs: ra * 1000 } : {}),
  };
}

/** Classifies the `metav1.Status` of a watch `ERROR` event. */
export function classifyStatus(status: WatchStatus | undefined): Classified {
  const s = (status ?? {}) as WatchStatus & Loose;
  const ra = positiveNumber(asObject(s['details'])?.['retryAfterSeconds']);
  return {
    message: `watch ERROR event: ${s.message ?? s.reason ?? 'no message'}`,
    ...(typeof s.code === 'number' ? { code: s.code } : {}),
    ...(typeof s.reason === 'string' && s.reason !== '' ? { reason: s.reason } : {}),
    ...(ra !== undefined ? { retryAfterMs: ra * 1000 } : {}),
  };
}

/** 410 Gone / `Expired`: the resourceVersion (or continue token) is too old — relist. */
export function isGoneFailure(c: Classified): boolean {
  return c.code === 410 || c.reason === 'Expired' || c.reason === 'Gone';
}

/**
 * 400 BadRequest (HTTP or a watch `ERROR` event): the server refuses the request itself — a
 * selector it cannot parse, a field it cannot select on. Retrying the same request cannot help.
 */
export function isInvalidFailure(c: Classified): boolean {
  return c.code === 400 || c.reason === 'BadRequest';
}

/**
 * `TooLargeResourceVersion`: the server has not caught up with the resourceVersion asked for (a
 * 504 `Timeout` "Too large resource version: N, current: M", cause `ResourceVersionTooLarge`).
 * client-go's `isTooLargeResourceVersionError`: a streaming list retries without a resourceVersion.
 */
export function isTooLargeResourceVersion(c: Classified): boolean {
  return /Too large resource version/i.test(c.message) || c.reason === 'ResourceVersionTooLarge';
}
