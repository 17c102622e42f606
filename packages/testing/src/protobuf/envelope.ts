/**
 * kube-apiserver's protobuf framing (`k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go`):
 * a body is the magic prefix `k8s\x00` followed by a `runtime.Unknown` whose `typeMeta` names the
 * apiVersion and kind and whose `raw` is the object's message (the message itself carries no
 * TypeMeta); a watch stream is a sequence of frames, each a 4-byte big-endian length and a
 * `metav1.WatchEvent` whose object's `raw` is such a body.
 *
 * @module
 */
import { messages } from './messages.js';

/** The prefix of every protobuf body: `k8s\x00`. */
export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The media type of protobuf bodies. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** What a protobuf body holds. */
export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
}

/** A body that is not a readable protobuf message; `message` is the Go decoder's wording. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}

/** protobufjs' errors in the words of gogo-protobuf's generated decoders. */
export function goDecodeMessage(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  if (/index out of range/.test(msg)) return 'unexpected EOF';
  const wire = /invalid wire type (\d+)/.exec(msg);
  if (wire) return `proto: illegal wireType ${wire[1] ?? ''}`;
  return msg;
}

/** Wraps a message in `k8s\x00` + `runtime.Unknown` (all four fields written, as gogo does). */
export function encodeEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = messages().special('Unknown');
  const bytes = unknown
    .encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })
    .finish();
  return Buffer.concat([PROTOBUF_MAGIC, bytes]);
}

/**
 * Reads `k8s\x00` + `runtime.Unknown`.
 *
 * @throws ProtobufDecodeError with the real decoder's message (`empty data`, the expected prefix,
 * `unexpected EOF`).
 */
export function decodeEnvelope(body: Uint8Array): Envelope {
  if (body.length === 0) throw new ProtobufDecodeError('empty data');
  if (body.length < 4 || !PROTOBUF_MAGIC.equals(Buffer.from(body.subarray(0, 4)))) {
    throw new ProtobufDecodeError(
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  }
  let decoded: Record<string, unknown>;
  try {
    const unknown = messages().special('Unknown');
    decoded = unknown.toObject(unknown.decode(body.subarray(4)), { bytes: Buffer, defaults: false });
  } catch (e) {
    throw new ProtobufDecodeError(goDecodeMessage(e));
  }
  const tm = (decoded['typeMeta'] ?? {}) as Record<string, unknown>;
  const raw = decoded['raw'];
  return {
    apiVersion: typeof tm['apiVersion'] === 'string' ? tm['apiVersion'] : '',
    kind: typeof tm['kind'] === 'string' ? tm['kind'] : '',
    raw: raw instanceof Uint8Array ? raw : new Uint8Array(0),
  };
}

/**
 * One watch frame: the length prefix and a `metav1.WatchEvent` holding an enveloped object.
 *
 * @param type `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
 * @param object the object's protobuf body (with magic and envelope).
 */
export function encodeWatchFrame(type: string, object: Uint8Array): Buffer {
  const event = messages().message('meta.v1.WatchEvent');
  if (!event) throw new Error('meta.v1.WatchEvent is not declared');
  const bytes = event.type.encode({ type, object: { raw: object } }).finish();
  const frame = Buffer.allocUnsafe(4 + bytes.length);
  frame.writeUInt32BE(bytes.length, 0);
  frame.set(bytes, 4);
  return frame;
}
