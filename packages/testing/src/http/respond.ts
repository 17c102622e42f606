/**
 * Writing responses the way kube-apiserver does: `Cache-Control: no-cache, private`, JSON bodies
 * with `Content-Length` when small and `Transfer-Encoding: chunked` above ~2 KiB, plain-text 404s;
 * YAML (sorted keys, as `sigs.k8s.io/yaml` writes) and protobuf bodies for negotiated answers.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';

import { stringify as toYaml } from 'yaml';

import { encodeProtobuf } from '../protobuf/codec.js';
import type { StatusBody } from '../status.js';
import type { Json } from '../store/object.js';
import type { MediaType } from './negotiate.js';
import { CONTENT_TYPES } from './negotiate.js';

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
  writeBody(res, code, Buffer.from(JSON.stringify(body), 'utf8'), CONTENT_TYPES.json, ctx, extra);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}

/**
 * Sends a body in the negotiated encoding: JSON, YAML, or protobuf (JSON when the body's kind has
 * no protobuf message, which negotiation rules out for resource bodies).
 */
export function sendBody(
  res: ServerResponse,
  code: number,
  body: unknown,
  ctx: ResponseContext,
  media: MediaType,
  extra: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  if (media === 'protobuf') {
    const bytes = typeof body === 'object' && body !== null ? encodeProtobuf(body as Json) : undefined;
    if (bytes) {
      writeBody(res, code, bytes, CONTENT_TYPES.protobuf, ctx, extra);
      return;
    }
  } else if (media === 'yaml') {
    const text = toYaml(sortKeys(body), { indentSeq: false });
    writeBody(res, code, Buffer.from(text, 'utf8'), CONTENT_TYPES.yaml, ctx, extra);
    return;
  }
  sendJson(res, code, body, ctx, extra);
}

function writeBody(
  res: ServerResponse,
  code: number,
  buf: Buffer,
  contentType: string,
  ctx: ResponseContext,
  extra: Readonly<Record<string, string>>,
): void {
  res.statusCode = code;
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Content-Type', contentType);
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

/** Sends a Status with its code (in the negotiated encoding of errors, JSON by default). */
export function sendStatus(
  res: ServerResponse,
  status: StatusBody,
  ctx: ResponseContext,
  extra: Readonly<Record<string, string>> = {},
  media: MediaType = 'json',
): void {
  sendBody(res, status.code ?? 200, status, ctx, media, extra);
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
