/**
 * Request parsing: URL paths into routes, bodies with a size limit (`Accept` negotiation is in
 * `negotiate.ts`).
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

import { ApiError, requestTooLarge } from '../status.js';

/** What a path addresses. */
export type Route =
  | { readonly kind: 'version' }
  | { readonly kind: 'health'; readonly endpoint: 'healthz' | 'readyz' | 'livez'; readonly check?: string }
  | { readonly kind: 'api' }
  | { readonly kind: 'apis' }
  | { readonly kind: 'group'; readonly group: string }
  | { readonly kind: 'groupVersion'; readonly group: string; readonly version: string }
  /** `/openapi/v2`, `/openapi/v3`, `/openapi/v3/apis/apps/v1`: `path` is what follows `/openapi/`. */
  | { readonly kind: 'openapi'; readonly path: string }
  | ResourceRoute
  | { readonly kind: 'unknown' };

/** A resource path. */
export interface ResourceRoute {
  readonly kind: 'resource';
  readonly group: string;
  readonly version: string;
  readonly namespace: string | undefined;
  readonly resource: string;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  /** The legacy `/watch/` path prefix was used. */
  readonly legacyWatch: boolean;
}

function decode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** Parses a URL path. */
export function parsePath(pathname: string): Route {
  const raw = pathname.split('/').filter((s, i) => i > 0 || s !== '');
  if (raw.length > 0 && raw[raw.length - 1] === '') raw.pop();
  const segs: string[] = [];
  for (const s of raw) {
    const d = decode(s);
    if (d === undefined || d === '') return { kind: 'unknown' };
    segs.push(d);
  }
  const [first, ...tail] = segs;
  if (first === 'version' && tail.length === 0) return { kind: 'version' };
  if (first === 'healthz' || first === 'readyz' || first === 'livez') {
    if (tail.length > 1) return { kind: 'unknown' };
    return tail[0] === undefined
      ? { kind: 'health', endpoint: first }
      : { kind: 'health', endpoint: first, check: tail[0] };
  }
  if (first === 'openapi' && tail.length > 0) return { kind: 'openapi', path: tail.join('/') };
  if (first === 'api') {
    if (tail.length === 0) return { kind: 'api' };
    const [version, ...rest] = tail;
    return resourcePath('', version ?? '', rest);
  }
  if (first === 'apis') {
    if (tail.length === 0) return { kind: 'apis' };
    const [group, version, ...rest] = tail;
    if (version === undefined) return { kind: 'group', group: group ?? '' };
    return resourcePath(group ?? '', version, rest);
  }
  return { kind: 'unknown' };
}

function resourcePath(group: string, version: string, rest: string[]): Route {
  if (rest.length === 0) return { kind: 'groupVersion', group, version };
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
    if (rest.length === 0) return { kind: 'unknown' };
  }
  const base = { kind: 'resource' as const, group, version, legacyWatch };
  if (
    rest[0] === 'namespaces' &&
    rest.length >= 3 &&
    !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))
  ) {
    if (rest.length > 5) return { kind: 'unknown' };
    return { ...base, namespace: rest[1], resource: rest[2] ?? '', name: rest[3], subresource: rest[4] };
  }
  if (rest.length > 3) return { kind: 'unknown' };
  return { ...base, namespace: undefined, resource: rest[0] ?? '', name: rest[1], subresource: rest[2] };
}

/** What body shape the client asked for. */
export type Representation = 'object' | 'PartialObjectMetadata' | 'PartialObjectMetadataList' | 'Table';

/** Media types a request body may have (`NegotiateInputSerializer`); anything else answers 415. */
export type InputMediaType = 'json' | 'yaml' | 'protobuf';

/**
 * The media type of a POST/PUT/DELETE body as kube-apiserver negotiates it: no Content-Type means
 * JSON; parameters (`charset`, `stream`) are ignored; anything but JSON, YAML and protobuf is
 * undefined (→ 415 `the body of the request was in an unknown format`). The one place that decides,
 * so protobuf support extends it here.
 */
export function inputMediaType(contentType: string | undefined): InputMediaType | undefined {
  if (contentType === undefined || contentType.trim() === '') return 'json';
  const base = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (base === 'application/json') return 'json';
  if (base === 'application/yaml') return 'yaml';
  if (base === 'application/vnd.kubernetes.protobuf') return 'protobuf';
  return undefined;
}

/** Reads the request body up to `limit` bytes (413 beyond). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) {
      req.resume();
      throw new ApiError(requestTooLarge(limit));
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}
