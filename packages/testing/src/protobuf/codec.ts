/**
 * Protobuf request and response bodies (`application/vnd.kubernetes.protobuf`) for the built-in
 * kinds that have a declared message: a request body becomes the JSON object the JSON path would
 * have received from the same Go client, and a response body is what kube-apiserver writes for the
 * stored object. Custom resources never travel in protobuf (their request bodies are refused with
 * the real server's 400; responses are negotiated to JSON or refused with 406).
 *
 * ## Example
 * ```ts
 * import { Registry } from '../registry/registry.js';
 * const configMaps = new Registry().byKind('v1', 'ConfigMap');
 * declare const body: Uint8Array; // a request body sent as application/vnd.kubernetes.protobuf
 * const obj = configMaps && decodeProtobufBody(configMaps, body); // { kind: 'ConfigMap', apiVersion: 'v1', metadata: … }
 * const bytes = obj && encodeProtobuf(obj);              // k8s\x00 + runtime.Unknown
 * ```
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';
import { ApiError, badRequest, failure } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import type { ProtoMessage } from './messages.js';
import { messages } from './messages.js';
import { ProtobufDecodeError, decodeEnvelope, encodeEnvelope, goDecodeMessage } from './envelope.js';
import { messageFromGoJson, messageToGoJson } from './go-json.js';

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

function messageOfApiVersion(apiVersion: string, kind: string): ProtoMessage | undefined {
  const { group, version } = splitApiVersion(apiVersion);
  // meta.k8s.io/v1beta1's PartialObjectMetadata(List) are the v1 Go types
  if (group === 'meta.k8s.io') return messages().message(`meta.v1.${kind}`);
  return messages().forKind(group, version, kind);
}

/**
 * Whether objects of `type` (and its lists) travel in protobuf here: built-in kinds with a declared
 * message. Custom resources never do.
 */
export function speaksProtobuf(type: ResourceType): boolean {
  if (!type.builtin) return false;
  const m = messages();
  // create-only kinds (authorization.k8s.io reviews) have no list message
  const listed =
    !type.verbs.includes('list') || m.forKind(type.group, type.version, type.listKind) !== undefined;
  return m.forKind(type.group, type.version, type.kind) !== undefined && listed;
}

/** apiserver's `summarizeData`: JSON text, else hex, of the first 30 bytes. */
function summarize(body: Uint8Array): string {
  if (body.length === 0) return '<empty>';
  const head = Buffer.from(body.subarray(0, 30));
  const text = body[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return body.length > 30 ? `${text} ...` : text;
}

/** `transformDecodeError` (apiserver/pkg/endpoints/handlers/create.go): 400 in the real words. */
function decodeFailure(
  type: ResourceType,
  body: Uint8Array,
  kind: string,
  apiVersion: string,
  why: string,
): ApiError {
  if (kind !== '') {
    const { version } = splitApiVersion(apiVersion);
    return new ApiError(
      badRequest(`${kind} in version "${version}" cannot be handled as a ${type.kind}: ${why}`),
    );
  }
  return new ApiError(
    badRequest(
      `the object provided is unrecognized (must be of type ${type.kind}): ${why} (${summarize(body)})`,
    ),
  );
}

/**
 * Decodes a protobuf request body into the JSON object Go would have marshalled for it. The
 * envelope's kind and apiVersion are kept (the caller checks them against the URL as for JSON);
 * empty ones are left out.
 *
 * @throws ApiError 400 with kube-apiserver's message for a body that cannot be read, and for every
 * custom resource (kube-apiserver 1.24 answers `Object 'Kind' is missing`); 415 for a built-in
 * kind without a declared message (CustomResourceDefinition), which the real server would read.
 */
export function decodeProtobufBody(type: ResourceType, body: Uint8Array): KObj {
  let envelope;
  try {
    envelope = decodeEnvelope(body);
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw decodeFailure(type, body, '', '', e.message);
    throw e;
  }
  const { kind, apiVersion } = envelope;
  const urlMessage = speaksProtobuf(type)
    ? messages().forKind(type.group, type.version, type.kind)
    : undefined;
  if (!urlMessage && type.builtin) {
    // a built-in kind whose message is not declared here (kube-apiserver would read it): say so
    throw new ApiError(
      failure(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (this server has no protobuf message for ${type.apiVersion} ${type.kind})`,
      ),
    );
  }
  if (!urlMessage) {
    // the custom resource handler's unstructured decoder cannot read a protobuf object
    throw decodeFailure(
      type,
      body,
      kind,
      apiVersion,
      "Object 'Kind' is missing in 'object has no kind field '",
    );
  }
  const message =
    (kind !== '' ? messageOfApiVersion(apiVersion || type.apiVersion, kind) : undefined) ?? urlMessage;
  let plain: Record<string, unknown>;
  try {
    plain = message.type.toObject(message.type.decode(envelope.raw), {
      longs: Number,
      bytes: String,
      defaults: false,
    });
  } catch (e) {
    throw decodeFailure(type, body, kind, apiVersion, goDecodeMessage(e));
  }
  const json = messageToGoJson(message.decl.name, plain);
  const out: Record<string, unknown> = {};
  if (kind !== '') out['kind'] = kind;
  if (apiVersion !== '') out['apiVersion'] = apiVersion;
  Object.assign(out, json);
  return out as KObj;
}

/**
 * Decodes a protobuf body by the kind its envelope names (no URL to check against): the JSON Go
 * would marshal for it, with kind and apiVersion.
 *
 * @throws ProtobufDecodeError when the body cannot be read or its kind has no message here.
 */
export function decodeProtobufObject(body: Uint8Array): KObj {
  const { apiVersion, kind, raw } = decodeEnvelope(body);
  const message = messageOfApiVersion(apiVersion, kind);
  if (!message) throw new ProtobufDecodeError(`no protobuf message for ${apiVersion} ${kind}`);
  let plain: Record<string, unknown>;
  try {
    plain = message.type.toObject(message.type.decode(raw), {
      longs: Number,
      bytes: String,
      defaults: false,
    });
  } catch (e) {
    throw new ProtobufDecodeError(goDecodeMessage(e));
  }
  return { kind, apiVersion, ...messageToGoJson(message.decl.name, plain) } as unknown as KObj;
}

/**
 * Encodes a response body (an object, a list, a Status, PartialObjectMetadata(List), Scale) as
 * protobuf: `k8s\x00` + `runtime.Unknown` naming its apiVersion and kind.
 *
 * @returns undefined when the body's kind has no message here (Table, custom resources).
 */
export function encodeProtobuf(body: Json): Buffer | undefined {
  const { apiVersion, kind } = body;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const message = messageOfApiVersion(apiVersion, kind);
  if (!message) return undefined;
  const plain = messageFromGoJson(message.decl.name, body);
  return encodeEnvelope(apiVersion, kind, message.type.encode(plain).finish());
}
