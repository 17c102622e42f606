/**
 * Output negotiation of the `Accept` header as kube-apiserver 1.24 does it
 * (`apiserver/pkg/endpoints/handlers/negotiation/negotiate.go`, `RequestScope.AllowsMediaTypeTransform`
 * in `handlers/rest.go`, `doTransformObject` in `handlers/response.go`):
 *
 * - clauses are tried by quality (`q`), then in order; each against JSON, YAML and protobuf; the
 *   first one the endpoint can serve wins, so `…;as=Table,application/json` falls back to JSON;
 * - `as=Table` is served in JSON and YAML, `as=PartialObjectMetadata[List]` in all three, only in
 *   `g=meta.k8s.io` `v=v1`/`v1beta1`; a plain clause in protobuf only for types with a protobuf
 *   message here (never custom resources); `stream=watch` only by JSON and protobuf;
 * - 406 `only the following media types are accepted: …` when no clause can be served, the
 *   bare `406: Not Acceptable` when no clause names a media type the server knows;
 * - after negotiation (no fallback): `PartialObjectMetadata` of a list and `PartialObjectMetadataList`
 *   of one object are 406, and a watch negotiated to YAML is 406 (YAML has no stream framing).
 *
 * Errors are negotiated separately ({@link negotiateErrorMedia}): any clause naming JSON, YAML or
 * protobuf without `as=`.
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';
import { ApiError, failure } from '../status.js';
import type { Representation } from './request.js';

/** The encodings the server writes. */
export type MediaType = 'json' | 'yaml' | 'protobuf';

/** The Content-Type of each encoding. */
export const CONTENT_TYPES: Readonly<Record<MediaType, string>> = {
  json: 'application/json',
  yaml: 'application/yaml',
  protobuf: 'application/vnd.kubernetes.protobuf',
};

const SUBTYPES: readonly (readonly [MediaType, string])[] = [
  ['json', 'json'],
  ['yaml', 'yaml'],
  ['protobuf', 'vnd.kubernetes.protobuf'],
];

/** The result of output negotiation. */
export interface Negotiated {
  readonly media: MediaType;
  readonly as: Representation;
  /** `meta.k8s.io` version of a Table or PartialObjectMetadata answer. */
  readonly metaVersion: 'v1' | 'v1beta1';
}

interface Clause {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
  readonly params: ReadonlyMap<string, string>;
}

/** goautoneg's `ParseAccept`: clauses by quality, then the more specific first, else in order. */
export function parseAccept(header: string): Clause[] {
  const clauses: Clause[] = [];
  for (const part of header.split(',')) {
    const [mediaRange = '', ...paramParts] = part.split(';').map((s) => s.trim());
    if (mediaRange === '') continue;
    const slash = mediaRange.indexOf('/');
    const type = (slash < 0 ? mediaRange : mediaRange.slice(0, slash)).toLowerCase();
    const subtype = (slash < 0 ? '*' : mediaRange.slice(slash + 1)).toLowerCase();
    const params = new Map<string, string>();
    let q = 1;
    for (const p of paramParts) {
      const i = p.indexOf('=');
      if (i <= 0) continue;
      const key = p.slice(0, i).trim().toLowerCase();
      const value = p.slice(i + 1).trim();
      if (key === 'q') q = Number.isFinite(Number(value)) ? Number(value) : 0;
      else params.set(key, value);
    }
    clauses.push({ type, subtype, q, params });
  }
  const rank = (c: Clause): number => (c.type === '*' ? 2 : c.subtype === '*' ? 1 : 0);
  return clauses
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || rank(a.c) - rank(b.c) || a.i - b.i)
    .map(({ c }) => c);
}

const matches = (c: Clause, subtype: string): boolean =>
  (c.type === 'application' && (c.subtype === subtype || c.subtype === '*')) ||
  (c.type === '*' && c.subtype === '*');

/** A clause the server recognises at all (else the bare 406). */
const known = (c: Clause): boolean =>
  (c.type === '*' && c.subtype === '*') ||
  (c.type === 'application' && SUBTYPES.some(([, sub]) => sub === c.subtype));

const ACCEPTED = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';

/** 406 with kube-apiserver's message. */
export function notAcceptableError(
  message = `only the following media types are accepted: ${ACCEPTED}`,
): ApiError {
  return new ApiError(failure(406, 'NotAcceptable', message));
}

function bareNotAcceptable(): ApiError {
  return new ApiError(failure(406, 'NotAcceptable', '406: Not Acceptable', {}));
}

/** What the endpoint can serve. */
export interface Endpoint {
  /** The type's own objects travel in protobuf (built-in kinds with a message). */
  readonly protobuf: boolean;
  /** A watch (needs stream framing). */
  readonly watch: boolean;
}

/**
 * Negotiates the response encoding and representation of a resource request.
 *
 * @throws ApiError 406 as kube-apiserver answers when nothing in `accept` can be served.
 */
export function negotiateOutput(accept: string | undefined, endpoint: Endpoint): Negotiated {
  if (accept === undefined || accept.trim() === '') return { media: 'json', as: 'object', metaVersion: 'v1' };
  const clauses = parseAccept(accept);
  if (!clauses.some(known)) throw bareNotAcceptable();
  for (const c of clauses) {
    for (const [media, subtype] of SUBTYPES) {
      if (!matches(c, subtype)) continue;
      const stream = c.params.get('stream');
      if (stream !== undefined && stream !== '' && (media === 'yaml' || stream !== 'watch')) continue;
      const as = c.params.get('as');
      const g = c.params.get('g');
      const v = c.params.get('v');
      if (as === undefined && g === undefined && v === undefined) {
        if (media === 'protobuf' && !endpoint.protobuf) continue;
        return finish({ media, as: 'object', metaVersion: 'v1' }, endpoint);
      }
      if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) continue;
      if (as === 'Table' && media !== 'protobuf') return finish({ media, as, metaVersion: v }, endpoint);
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList')
        return finish({ media, as, metaVersion: v }, endpoint);
    }
  }
  throw notAcceptableError();
}

function finish(n: Negotiated, endpoint: Endpoint): Negotiated {
  // NegotiateOutputMediaTypeStream: the chosen serializer must frame a stream
  if (endpoint.watch && n.media === 'yaml') {
    throw notAcceptableError(
      'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    );
  }
  return n;
}

/** The Go type name `%T` prints for a type's internal object (`*core.ConfigMap`). */
function goTypeName(type: ResourceType, list: boolean): string {
  if (!type.builtin) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg = type.group === '' || type.group === 'events.k8s.io' ? 'core' : (type.group.split('.')[0] ?? '');
  return `*${pkg}.${list ? type.listKind : type.kind}`;
}

/**
 * `asPartialObjectMetadata`/`asPartialObjectMetadataList`: the single/list form must match the
 * request (no fallback).
 *
 * @throws ApiError 406 naming the Go type, as kube-apiserver does.
 */
export function checkShape(n: Negotiated, type: ResourceType, list: boolean): void {
  if (n.as === 'PartialObjectMetadata' && list) {
    throw notAcceptableError(
      `you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(type, true)})`,
    );
  }
  if (n.as === 'PartialObjectMetadataList' && !list) {
    throw notAcceptableError(
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(type, false)})`,
    );
  }
}

/**
 * The encoding of an error Status (`responsewriters.ErrorNegotiated`: default endpoint
 * restrictions, so any clause naming JSON, YAML or protobuf without `as=`); JSON otherwise.
 */
export function negotiateErrorMedia(accept: string | undefined): MediaType {
  if (accept === undefined || accept.trim() === '') return 'json';
  for (const c of parseAccept(accept)) {
    if (c.params.has('as') || c.params.has('g') || c.params.has('v')) continue;
    for (const [media, subtype] of SUBTYPES) if (matches(c, subtype)) return media;
  }
  return 'json';
}
