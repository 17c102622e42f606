/**
 * List continue tokens and resourceVersion parsing, like kube-apiserver's
 * (apiserver/pkg/storage/etcd3: `encodeContinue`, `decodeContinue`).
 *
 * @module
 */
import { ApiError, badRequest, internalError } from '../status.js';
import { isObject } from '../store/object.js';

/** Decoded continue token. */
interface ContinueToken {
  readonly rv: number;
  readonly start: string;
}

/** Encodes a continue token exactly like the real server (unpadded base64url JSON). */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

export function decodeContinue(token: string): ContinueToken {
  const fail = (why: string): never => {
    throw new ApiError(badRequest(`invalid continue token: continue key is not valid: ${why}`));
  };
  if (!/^[A-Za-z0-9_\-+/]*={0,2}$/.test(token)) return fail('illegal base64 data');
  // Go reports the offending byte itself ('\u0081'), not a UTF-8 replacement character: read bytes as latin1
  const text = Buffer.from(token, 'base64url').toString('latin1');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail(`invalid character '${jsonFirstBad(text)}' looking for beginning of value`);
  }
  if (!isObject(parsed) || parsed['v'] !== 'meta.k8s.io/v1') {
    return fail('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  const rv = parsed['rv'];
  const start = parsed['start'];
  if (typeof rv !== 'number' || !Number.isInteger(rv) || typeof start !== 'string' || start === '') {
    return fail('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  return { rv, start };
}

function jsonFirstBad(text: string): string {
  const c = text.codePointAt(0) ?? 0;
  return c < 0x20 || c > 0x7e ? `\\u${c.toString(16).padStart(4, '0')}` : String.fromCodePoint(c);
}

/** Parses a resourceVersion query/body value like the real server (non-numeric → 500). */
export function parseResourceVersion(value: string, prefix = ''): number {
  if (!/^\d+$/.test(value)) {
    throw new ApiError(
      internalError(`${prefix}strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`),
    );
  }
  return Number(value);
}
