/**
 * Request-body decoding and the checks every write makes before the type's own rules: the JSON
 * (or YAML) decoder's 400s, TypeMeta against the URL, the body's namespace against the URL, and
 * dropping what the real decoder drops (unknown metadata and top-level fields, schema pruning and
 * defaults for custom resources).
 *
 * @module
 */
import { parse as parseYaml } from 'yaml';

import { omitEmptyBuiltin } from '../registry/builtins.js';
import type { ResourceType } from '../registry/types.js';
import { ApiError, badRequest } from '../status.js';
import type { KObj } from '../store/object.js';
import { isObject } from '../store/object.js';
import { applySchemaDefaults, pruneUnknownFields } from '../validation/schema.js';
import { parseJsonLikeGo, summarizeBody } from './go-json.js';

const KNOWN_META = new Set([
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Parses a JSON (or YAML) request body into an object; 400 like the real decoder. */
export function decodeBody(type: ResourceType, body: Buffer, yaml = false): KObj {
  const text = body.toString('utf8');
  const unrecognized = (why: string): never => {
    throw new ApiError(
      badRequest(
        `the object provided is unrecognized (must be of type ${type.kind}): couldn't get version/kind; json parse error: ${why} (${summarizeBody(body)})`,
      ),
    );
  };
  let value: unknown;
  if (text.trim() === '') return unrecognized('unexpected end of JSON input');
  if (!yaml) {
    const parsed = parseJsonLikeGo(body);
    if (!parsed.ok) return unrecognized(parsed.error);
    value = parsed.value;
  } else {
    try {
      value = parseYaml(text);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      const pos = /at position (\d+)/.exec(msg);
      const atEnd =
        /end of (JSON )?input|Unterminated|Unexpected end/i.test(msg) ||
        (pos !== null && Number(pos[1]) >= text.length);
      return unrecognized(atEnd ? 'unexpected end of JSON input' : msg);
    }
  }
  if (!isObject(value)) {
    return unrecognized(
      `json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const meta = value['metadata'];
  if (meta !== undefined && meta !== null && !isObject(meta)) {
    throw new ApiError(
      badRequest(
        `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: json: cannot unmarshal ${typeof meta} into Go struct field ${type.kind}.metadata of type v1.ObjectMeta`,
      ),
    );
  }
  const obj = value as KObj;
  obj.metadata = isObject(meta) ? meta : {};
  return obj;
}

/** 400 when the body's kind/apiVersion do not match the URL; fills them in when absent. */
export function checkTypeMeta(type: ResourceType, obj: KObj): void {
  const kind =
    typeof obj['kind'] === 'string'
      ? obj['kind']
      : obj['kind'] === undefined
        ? undefined
        : JSON.stringify(obj['kind']);
  const apiVersion =
    typeof obj['apiVersion'] === 'string'
      ? obj['apiVersion']
      : obj['apiVersion'] === undefined
        ? undefined
        : JSON.stringify(obj['apiVersion']);
  if (kind !== undefined && kind !== '' && kind !== type.kind) {
    const v = typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion : type.apiVersion;
    const version = v.includes('/') ? v.split('/')[1] : v;
    throw new ApiError(
      badRequest(
        `${String(kind)} in version "${version ?? ''}" cannot be handled as a ${type.kind}: converting (${version ?? ''}.${String(kind)}) to (${type.group === '' ? 'core' : (type.group.split('.')[0] ?? '')}.${type.kind}): unknown conversion`,
      ),
    );
  }
  if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== type.apiVersion) {
    throw new ApiError(
      badRequest(
        `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: no kind "${type.kind}" is registered for version "${String(apiVersion)}" in scheme "pkg/runtime/scheme.go:100"`,
      ),
    );
  }
  const msg = type.decodeCheck?.(obj);
  if (msg !== undefined) throw new ApiError(badRequest(msg));
  obj['kind'] = type.kind;
  obj['apiVersion'] = type.apiVersion;
}

/** 400 when the body's namespace differs from the URL's; sets it otherwise. */
export function checkNamespace(type: ResourceType, obj: KObj, namespace: string | undefined): void {
  const ns = obj.metadata.namespace;
  if (!type.namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  if (ns !== undefined && ns !== '' && ns !== namespace) {
    throw new ApiError(
      badRequest('the namespace of the provided object does not match the namespace sent on the request'),
    );
  }
  if (namespace !== undefined) obj.metadata.namespace = namespace;
}

/** Drops unknown top-level and metadata fields (no strict field validation in 1.24). */
export function sanitize(type: ResourceType, obj: KObj): KObj {
  const out: KObj = { kind: obj['kind'], apiVersion: obj['apiVersion'], metadata: {} };
  for (const [k, v] of Object.entries(obj.metadata))
    if (KNOWN_META.has(k) && v !== undefined && v !== null) out.metadata[k] = v;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'kind' || k === 'apiVersion' || k === 'metadata') continue;
    if (type.knownFields && !type.knownFields.includes(k)) continue;
    out[k] = v;
  }
  if (type.builtin) {
    // CRD schemas are free-form JSON (a property may be called `data`): only metadata there.
    if (type.kind === 'CustomResourceDefinition') omitEmptyBuiltin({ metadata: out.metadata }, type.kind);
    else omitEmptyBuiltin(out, type.kind);
  }
  if (type.schema) return applyTypeSchema(type, out);
  return out;
}

export function applyTypeSchema(type: ResourceType, obj: KObj): KObj {
  const schema = type.schema ?? {};
  const { kind, apiVersion, metadata, ...rest } = obj;
  let body: unknown = rest;
  if (!type.preserveUnknownFields) body = pruneUnknownFields(body, schema);
  body = applySchemaDefaults(body, schema);
  return { ...(isObject(body) ? body : {}), kind, apiVersion, metadata };
}
