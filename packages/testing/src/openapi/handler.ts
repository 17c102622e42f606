/**
 * Serves `/openapi/v2` (JSON, or protobuf when the `Accept` header asks for
 * `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`), `/openapi/v3` (the index) and
 * `/openapi/v3/<api/v1 | apis/group/version>` (JSON; `Cache-Control: public, immutable` when the
 * request names the current `hash`, as kube-apiserver answers).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import type { ResponseContext } from '../http/respond.js';
import { sendJson, sendPageNotFound } from '../http/respond.js';
import type { OpenApiDocuments } from './documents.js';
import { encodeOpenApiV2, OPENAPI_V2_PROTOBUF } from './protobuf.js';

/** An `/openapi/...` request. */
export interface OpenApiRequest {
  /** The path after `/openapi/`: `v2`, `v3`, `v3/apis/apps/v1`. */
  readonly path: string;
  readonly accept: string | undefined;
  readonly query: URLSearchParams;
  readonly res: ServerResponse;
  readonly ctx: ResponseContext;
}

let protobufCache: { doc: unknown; bytes: Uint8Array; etag: string } | undefined;

/** Answers an `/openapi/...` request from the registry's documents. */
export function serveOpenApi(docs: OpenApiDocuments, r: OpenApiRequest): void {
  const { path, res, ctx } = r;
  if (path === 'v2') {
    const doc = docs.v2();
    const accepts = (r.accept ?? '').split(',').map((s) => s.split(';')[0]?.trim().toLowerCase());
    if (accepts.includes(OPENAPI_V2_PROTOBUF) || accepts.includes(OPENAPI_V2_PROTOBUF.replace('@', '.'))) {
      if (protobufCache?.doc !== doc) {
        const bytes = encodeOpenApiV2(doc);
        protobufCache = {
          doc,
          bytes,
          etag: `"${createHash('sha512').update(bytes).digest('hex').toUpperCase()}"`,
        };
      }
      res.statusCode = 200;
      // kube-apiserver answers the protobuf document as a plain byte stream
      res.setHeader('Content-Type', 'application/octet-stream');
      res.setHeader('Cache-Control', 'no-cache, private');
      res.setHeader('Etag', protobufCache.etag);
      res.setHeader('Vary', 'Accept');
      for (const [k, v] of Object.entries(ctx.headers)) res.setHeader(k, v);
      res.setHeader('Content-Length', String(protobufCache.bytes.length));
      res.end(Buffer.from(protobufCache.bytes));
      return;
    }
    sendJson(res, 200, doc, ctx, { Vary: 'Accept', 'X-Varied-Accept': 'application/json' });
    return;
  }
  if (path === 'v3') {
    sendJson(res, 200, docs.v3Index(), ctx);
    return;
  }
  if (path.startsWith('v3/')) {
    const entry = docs.v3(path.slice(3));
    if (!entry) {
      sendPageNotFound(res, ctx);
      return;
    }
    const current = r.query.get('hash') === entry.hash;
    sendJson(res, 200, entry.doc, ctx, {
      Etag: `"${entry.hash}"`,
      Vary: 'Accept',
      'X-Varied-Accept': 'application/json',
      ...(current ? { 'Cache-Control': 'public, immutable' } : {}),
    });
    return;
  }
  sendPageNotFound(res, ctx);
}
