/**
 * What the flight recorder removes before a line is written: the logger's redaction
 * (`redactSecrets` of `ops/logging.ts`: token, password, key and credential fields, bearer and
 * basic credentials, JWTs and PEM private keys in strings, a Secret's last-applied annotation),
 * without a log line's size limits — and then a Secret's `data` and `stringData` removed
 * altogether, from objects and from writes to Secrets (patch bodies carry no `kind`).
 *
 * @module
 */
import { redactWhole } from '../ops/logging.js';
import type { ObjectRef } from '../types.js';

const isSecretType = (v: { apiVersion?: unknown; kind?: unknown }): boolean =>
  v.kind === 'Secret' && (v.apiVersion === undefined || v.apiVersion === 'v1');

/**
 * A copy of `value` fit for a recording. `about` is the object a patch body is for (a write to a
 * Secret loses its `data` and `stringData` too).
 *
 * ## Example
 * ```ts
 * redactForRecord({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { pw: 'aGk=' } });
 * // → { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }
 * ```
 */
export function redactForRecord(value: unknown, about?: Pick<ObjectRef, 'apiVersion' | 'kind'>): unknown {
  const clean = redactWhole(value);
  if (clean === null || typeof clean !== 'object' || Array.isArray(clean)) return clean;
  const object = clean as Record<string, unknown>;
  if (isSecretType(object) || (about !== undefined && isSecretType(about))) {
    delete object['data'];
    delete object['stringData'];
  }
  return object;
}
