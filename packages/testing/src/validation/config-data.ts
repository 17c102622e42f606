/**
 * ConfigMap and Secret rules of kube-apiserver v1.24 (`pkg/apis/core/validation/validation.go`:
 * ValidateConfigMap(Update), ValidateSecret(Update)) and the decoder's base64 errors for their
 * `[]byte` fields: keys, the 1 MiB total, keys in both `data` and `binaryData`, what each Secret type
 * requires, and `immutable`.
 *
 * @module
 */
import type { StatusCause } from '../status.js';
import type { KObj } from '../store/object.js';
import { isObject } from '../store/object.js';
import { parseJsonLikeGo } from '../handlers/go-json.js';
import { invalidCause, isConfigMapKey } from './names.js';

/** `core.MaxSecretSize`, also the ConfigMap limit. */
export const MAX_DATA_SIZE = 1024 * 1024;

const B64 = new Set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');

/**
 * Where Go's `base64.StdEncoding.DecodeString` fails on `s` (`illegal base64 data at input byte N`),
 * or undefined when it decodes. Newlines are skipped, as Go does.
 */
export function goBase64ErrorOffset(s: string): number | undefined {
  let si = 0;
  for (;;) {
    let j = 0;
    for (; j < 4; j++) {
      if (si === s.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const ch = s[si] ?? '';
      si++;
      if (B64.has(ch)) continue;
      if (ch === '\n' || ch === '\r') {
        j--;
        continue;
      }
      if (ch !== '=') return si - 1;
      // padding: only after two or three characters of the quantum
      if (j < 2) return si - 1;
      if (j === 2) {
        while (si < s.length && (s[si] === '\n' || s[si] === '\r')) si++;
        if (si === s.length) return s.length;
        if (s[si] !== '=') return si - 1;
        si++;
      }
      while (si < s.length && (s[si] === '\n' || s[si] === '\r')) si++;
      return si < s.length ? si : undefined;
    }
  }
}

/** The decode error of a map of base64 `[]byte` values (`Secret.data`, `ConfigMap.binaryData`). */
export function base64DecodeError(o: KObj, field: string, kind: string): string | undefined {
  const m = o[field];
  if (!isObject(m)) return undefined;
  for (const v of Object.values(m)) {
    if (typeof v !== 'string') continue;
    const at = goBase64ErrorOffset(v);
    if (at !== undefined)
      return `${kind} in version "v1" cannot be handled as a ${kind}: illegal base64 data at input byte ${String(at)}`;
  }
  return undefined;
}

function entries(o: KObj, field: string): [string, string][] {
  const m = o[field];
  return isObject(m) ? Object.entries(m).map(([k, v]) => [k, typeof v === 'string' ? v : '']) : [];
}

const decodedLength = (b64: string): number => Buffer.from(b64, 'base64').length;

function keyCauses(field: string, key: string): StatusCause[] {
  return isConfigMapKey(key).map((msg) => invalidCause(`${field}[${key}]`, key, msg));
}

const tooLong = (field: string): StatusCause => ({
  reason: 'FieldValueTooLong',
  message: `Too long: must have at most ${String(MAX_DATA_SIZE)} bytes`,
  field,
});

const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  message: 'Required value',
  field,
});

/** `ValidateConfigMap` (without metadata): keys, keys in both maps, 1 MiB in total. */
export function configMapCauses(o: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  const binary = new Set(entries(o, 'binaryData').map(([k]) => k));
  let total = 0;
  for (const [k, v] of entries(o, 'data')) {
    causes.push(...keyCauses('data', k));
    if (binary.has(k)) causes.push(invalidCause(`data[${k}]`, k, 'duplicate of key present in binaryData'));
    total += Buffer.byteLength(v, 'utf8');
  }
  for (const [k, v] of entries(o, 'binaryData')) {
    causes.push(...keyCauses('binaryData', k));
    total += decodedLength(v);
  }
  // the real server reports the whole object with an empty path, printed as "[]"
  if (total > MAX_DATA_SIZE) causes.push(tooLong('[]'));
  return causes;
}

function immutableCauses(next: KObj, old: KObj, fields: readonly string[]): StatusCause[] {
  if (old['immutable'] !== true) return [];
  const forbidden = (field: string): StatusCause => ({
    reason: 'FieldValueForbidden',
    message: 'Forbidden: field is immutable when `immutable` is set',
    field,
  });
  const causes: StatusCause[] = [];
  if (next['immutable'] !== true) causes.push(forbidden('immutable'));
  for (const f of fields) {
    if (JSON.stringify(next[f] ?? {}) !== JSON.stringify(old[f] ?? {})) causes.push(forbidden(f));
  }
  return causes;
}

/** `ValidateConfigMapUpdate` (without metadata): `immutable` freezes data, binaryData and itself. */
export function configMapUpdateCauses(next: KObj, old: KObj): StatusCause[] {
  return [...immutableCauses(next, old, ['data', 'binaryData']), ...configMapCauses(next)];
}

function jsonCauses(field: string, b64: string): StatusCause[] {
  const parsed = parseJsonLikeGo(Buffer.from(b64, 'base64'));
  let detail = parsed.ok ? undefined : parsed.error;
  if (parsed.ok) {
    const v = parsed.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      const t = Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
      detail = `json: cannot unmarshal ${t} into Go value of type map[string]interface {}`;
    }
  }
  return detail === undefined ? [] : [invalidCause(field, '<secret contents redacted>', detail)];
}

/** `ValidateSecret` (without metadata): keys, 1 MiB of data, what the Secret's type requires. */
export function secretCauses(o: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  const data = new Map(entries(o, 'data'));
  let total = 0;
  for (const [k, v] of data) {
    causes.push(...keyCauses('data', k));
    total += decodedLength(v);
  }
  if (total > MAX_DATA_SIZE) causes.push(tooLong('data'));
  const annotations = isObject(o.metadata.annotations) ? o.metadata.annotations : {};
  switch (o['type']) {
    case 'kubernetes.io/service-account-token':
      if (!annotations['kubernetes.io/service-account.name'])
        causes.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = o['type'] === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      const v = data.get(key);
      if (v === undefined) causes.push(required(`data[${key}]`));
      else causes.push(...jsonCauses(`data[${key}]`, v));
      break;
    }
    case 'kubernetes.io/basic-auth':
      if (!data.has('username') && !data.has('password'))
        causes.push(required('data[username]'), required('data[password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (decodedLength(data.get('ssh-privatekey') ?? '') === 0)
        causes.push(required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!data.has('tls.crt')) causes.push(required('data[tls.crt]'));
      if (!data.has('tls.key')) causes.push(required('data[tls.key]'));
      break;
  }
  return causes;
}

/** `ValidateSecretUpdate` (without metadata): type immutable, `immutable` freezes data and itself. */
export function secretUpdateCauses(next: KObj, old: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  if (next['type'] !== old['type'])
    causes.push(
      invalidCause('type', typeof next['type'] === 'string' ? next['type'] : '', 'field is immutable'),
    );
  causes.push(...immutableCauses(next, old, ['data']), ...secretCauses(next));
  return causes;
}
