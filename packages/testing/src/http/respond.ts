/**
 * Writing responses the way kube-apiserver does: `Cache-Control: no-cache, private`, JSON bodies
 * with `Content-Length` when small and `Transfer-Encoding: chunked` above ~2 KiB, plain-text 404s.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';

import type { StatusBody } from '../status.js';

/** Bodies above this many bytes are sent chunked (like the real server). */
export const CHUNK_THRESHOLD = 2048;

/** Per-response header values set by the server (priority-and-fairness ids, Audit-Id). */
export interface ResponseContext {
  /** Extra headers for every API response (e.g. X-Kubernetes-Pf-*). */
  readonly headers: Readonly<Record<string, string>>;
}

/** Sends a JSON body. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  ctx: ResponseContext,
  extra: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  const buf = Buffer.from(text, 'utf8');
  res.statusCode = code;
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Content-Type', 'application/json');
  for (const [k, v] of Object.entries(ctx.headers)) res.setHeader(k, v);
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  if (buf.length <= CHUNK_THRESHOLD) {
    res.setHeader('Content-Length', String(buf.length));
    res.end(buf);
  } else {
    // no Content-Length: node frames the body with Transfer-Encoding: chunked
    res.write(buf);
    res.end();
  }
}

/** Sends a Status with its code. */
export function sendStatus(
  res: ServerResponse,
  status: StatusBody,
  ctx: ResponseContext,
  extra: Readonly<Record<string, string>> = {},
): void {
  sendJson(res, status.code ?? 200, status, ctx, extra);
}

/** Sends a plain-text body (`404 page not found`, health checks). */
export function sendText(
  res: ServerResponse,
  code: number,
  text: string,
  ctx: ResponseContext | undefined,
): void {
  if (res.headersSent || res.destroyed) return;
  const buf = Buffer.from(text, 'utf8');
  res.statusCode = code;
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (ctx) for (const [k, v] of Object.entries(ctx.headers)) res.setHeader(k, v);
  res.setHeader('Content-Length', String(buf.length));
  res.end(buf);
}

/** The plain-text 404 of an unknown path. */
export function sendPageNotFound(res: ServerResponse, ctx: ResponseContext | undefined): void {
  sendText(res, 404, '404 page not found\n', ctx);
}
