/**
 * `metadata.managedFields` as kube-apiserver v1.24 reads and writes it
 * (`apiserver/pkg/endpoints/handlers/fieldmanager/internal/managedfields.go` and `fieldmanager.go`):
 * entries decoded into sets by manager identity (`BuildManagerIdentifier`), encoded back sorted
 * (`sortEncodedManagedFields`), the `[{}]` / `[]` reset a client may send, and the validation the
 * object's metadata gets (`ValidateManagedFields`).
 *
 * @module
 */
import { FieldSet, FieldsV1Error } from './field-set.js';
import { isObject } from './json-value.js';
import type { ManagedSets } from './updater.js';

/**
 * One entry of `metadata.managedFields`: which manager owns which fields (`FieldsV1`), by which
 * operation, through which subresource.
 *
 * ## Example
 * ```ts
 * const entry: ManagedFieldsEntry = {
 *   manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-11-22T06:22:59Z',
 *   fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
 * };
 * ```
 */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  /** When the entry last changed (RFC 3339 seconds); absent when a client wrote an entry without it. */
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

/** The decoded managed fields: sets and times by manager identity. */
export interface Managed {
  readonly sets: ManagedSets;
  readonly times: Map<string, string | undefined>;
}

/** What identifies a manager: name, operation, apiVersion (Update only), subresource. */
export interface ManagerInfo {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion?: string;
  readonly subresource?: string;
}

/** `BuildManagerIdentifier`: the JSON of the entry without fields, time and (for Apply) apiVersion. */
export function identity(m: ManagerInfo): string {
  const out: Record<string, string> = {};
  if (m.manager !== '') out['manager'] = m.manager;
  out['operation'] = m.operation;
  if (m.operation === 'Update' && m.apiVersion) out['apiVersion'] = m.apiVersion;
  if (m.subresource) out['subresource'] = m.subresource;
  return JSON.stringify(out);
}

/** Parsed identities (a few per object; cleared when it grows past a thousand). */
const parsed = new Map<string, ManagerInfo>();

/** The parts of an identity. */
export function parseIdentity(id: string): ManagerInfo {
  let info = parsed.get(id);
  if (!info) {
    if (parsed.size > 1000) parsed.clear();
    info = parseIdentityJson(id);
    parsed.set(id, info);
  }
  return info;
}

function parseIdentityJson(id: string): ManagerInfo {
  const o = JSON.parse(id) as Record<string, string | undefined>;
  return {
    manager: o['manager'] ?? '',
    operation: o['operation'] === 'Apply' ? 'Apply' : 'Update',
    ...(o['apiVersion'] ? { apiVersion: o['apiVersion'] } : {}),
    ...(o['subresource'] ? { subresource: o['subresource'] } : {}),
  };
}

/** `printManager`: how messages name a manager (`"a"`, `"c" using v1`, `"s" with subresource "status"`). */
export function describeManager(id: string): string {
  const m = parseIdentity(id);
  let out = JSON.stringify(m.manager);
  if (m.subresource) out += ` with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') out += ` using ${m.apiVersion ?? ''}`;
  return out;
}

/** A `managedFields` the server cannot decode (the request's is then ignored, the live one's is a 500). */
export class ManagedFieldsError extends Error {}

/** No entries. */
export function emptyManaged(): Managed {
  return { sets: new Map(), times: new Map() };
}

/**
 * `DecodeManagedFields`: entries into sets by identity (a later entry with the same identity
 * replaces an earlier one).
 *
 * @throws {ManagedFieldsError} for an operation other than Apply/Update, an empty apiVersion, a
 *   fieldsType other than FieldsV1, or a fieldsV1 that does not parse.
 */
export function decodeManagedFields(raw: unknown): Managed {
  const managed = emptyManaged();
  if (raw === undefined || raw === null) return managed;
  if (!Array.isArray(raw)) throw new ManagedFieldsError('managedFields must be a list');
  raw.forEach((e: unknown, i) => {
    if (!isObject(e)) throw new ManagedFieldsError(`managed fields entry ${String(i)} is not an object`);
    const operation = e['operation'];
    if (operation !== 'Apply' && operation !== 'Update')
      throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    const apiVersion = typeof e['apiVersion'] === 'string' ? e['apiVersion'] : '';
    if (apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
    const fieldsType = typeof e['fieldsType'] === 'string' ? e['fieldsType'] : '';
    if (fieldsType === '')
      throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${String(i)}`);
    if (fieldsType !== 'FieldsV1')
      throw new ManagedFieldsError(
        `invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${String(i)}`,
      );
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e['fieldsV1']);
    } catch (err) {
      if (err instanceof FieldsV1Error) throw new ManagedFieldsError(`error decoding set: ${err.message}`);
      throw err;
    }
    const manager = typeof e['manager'] === 'string' ? e['manager'] : '';
    const subresource = typeof e['subresource'] === 'string' ? e['subresource'] : '';
    const id = identity({ manager, operation, apiVersion, subresource });
    managed.sets.set(id, { set, apiVersion, applied: operation === 'Apply' });
    managed.times.set(id, typeof e['time'] === 'string' ? e['time'] : undefined);
  });
  return managed;
}

/** `isResetManagedFields`: `[]` or `[{}]` (an entry with nothing set) asks to drop every entry. */
export function isResetManagedFields(raw: unknown): boolean {
  if (!Array.isArray(raw)) return false;
  if (raw.length === 0) return true;
  if (raw.length !== 1) return false;
  const [only] = raw as unknown[];
  return isObject(only) && Object.values(only).every((v) => v === undefined || v === null || v === '');
}

const seconds = (time: string | undefined): number => {
  const ms = time === undefined ? NaN : Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `encodeManagedFields`: entries sorted Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.sets) {
    const info = parseIdentity(id);
    const time = managed.times.get(id);
    out.push({
      manager: info.manager,
      operation: vs.applied ? 'Apply' : info.operation,
      apiVersion: vs.apiVersion,
      ...(time !== undefined ? { time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: vs.set.toFieldsV1(),
      ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
    });
  }
  return out.sort(
    (a, b) =>
      cmp(a.operation, b.operation) ||
      seconds(a.time) - seconds(b.time) ||
      cmp(a.manager, b.manager) ||
      cmp(a.apiVersion, b.apiVersion) ||
      cmp(a.subresource ?? '', b.subresource ?? ''),
  );
}

/** A copy whose maps can be changed without touching `m`. */
export function copyManaged(m: Managed): Managed {
  return { sets: new Map(m.sets), times: new Map(m.times) };
}

/** One `ValidateManagedFields` failure: its field path and message (as a StatusCause). */
export interface ManagedFieldsCause {
  readonly reason: 'FieldValueTooLong' | 'FieldValueInvalid';
  readonly field: string;
  readonly message: string;
}

/**
 * `ValidateManagedFields` of the stored object: every manager name at most 128 printable
 * characters, subresource at most 256 (operation and fieldsType are always valid once encoded).
 */
export function validateManagedFields(entries: readonly ManagedFieldsEntry[]): ManagedFieldsCause[] {
  const causes: ManagedFieldsCause[] = [];
  entries.forEach((e, i) => {
    const at = `metadata.managedFields[${String(i)}]`;
    // lengths and positions in bytes, as Go's len() and range
    if (Buffer.byteLength(e.manager) > 128)
      causes.push({
        reason: 'FieldValueTooLong',
        field: `${at}.manager`,
        message: 'Too long: must have at most 128 bytes',
      });
    let pos = 0;
    for (const ch of e.manager) {
      if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
        const cp = ch.codePointAt(0) ?? 0;
        causes.push({
          reason: 'FieldValueInvalid',
          field: `${at}.manager`,
          message: `Invalid value: ${JSON.stringify(e.manager)}: invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${String(pos)})`,
        });
      }
      pos += Buffer.byteLength(ch);
    }
    if (Buffer.byteLength(e.subresource ?? '') > 256)
      causes.push({
        reason: 'FieldValueTooLong',
        field: `${at}.subresource`,
        message: 'Too long: must have at most 256 bytes',
      });
  });
  return causes;
}
