/**
 * Request options as kube-apiserver decodes and validates them before touching an object:
 * `CreateOptions`, `UpdateOptions`, `PatchOptions`, `DeleteOptions` and `ListOptions` from the
 * query (or, for a DELETE with a body, from that body), with the parameter codec's 400s
 * (`strconv.ParseInt: parsing "abc": invalid syntax`) and the 422s of
 * `apimachinery/pkg/apis/meta/v1/validation/validation.go` and
 * `apimachinery/pkg/apis/meta/internalversion/validation/validation.go`, naming the options kind
 * (`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: …`).
 *
 * @module
 */
import { parse as parseYaml } from 'yaml';

import type { DeleteOptions } from '../handlers/engine-types.js';
import { parseJsonLikeGo } from '../handlers/go-json.js';
import type { StatusCause } from '../status.js';
import { ApiError, badRequest, failure, invalidOptions } from '../status.js';
import { isObject } from '../store/object.js';
import { goQuote } from '../validation/names.js';
import { goStringSlice } from '../validation/object-meta.js';
import type { InputMediaType } from './request.js';

/** `fieldManager` longer than this is refused (`FieldManagerMaxLength`). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** Options of create, update and patch. */
export interface WriteQuery {
  /** The `fieldManager` parameter, undefined when absent or empty. */
  readonly fieldManager: string | undefined;
  readonly dryRun: boolean;
}

/** Options of a patch. */
export interface PatchQuery extends WriteQuery {
  readonly force: boolean;
}

/** A list, watch or deletecollection's ListOptions. */
export interface ListQuery {
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  readonly labelSelector: string | null;
  readonly fieldSelector: string | null;
  /** KEP-5866 `shardSelector`. */
  readonly shardSelector?: string | null;
  readonly resourceVersion: string | null;
  readonly resourceVersionMatch: string | null;
  /** `sendInitialEvents` (WatchList); `undefined` when absent or when WatchList is off. */
  readonly sendInitialEvents: boolean | undefined;
  readonly continue: string | null;
  /** 0 = no limit (negative values too). */
  readonly limit: number;
  /** undefined when absent. */
  readonly timeoutSeconds: number | undefined;
}

/** A DELETE's options, with the legacy `orphanDependents` kept for the 202 answer. */
export type DeleteQuery = DeleteOptions & { readonly orphanDependents?: boolean };

/** Go's `Convert_Slice_string_To_bool`: absent → false, `0`/`false` (any case) → false, anything else → true. */
export function goBool(value: string | null): boolean {
  if (value === null) return false;
  return !(value === '0' || value.toLowerCase() === 'false');
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

/** Go's `strconv.ParseInt(s, 10, 64)` with its errors as 400s. */
export function goInt(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) {
    throw new ApiError(badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: invalid syntax`));
  }
  const n = BigInt(value);
  if (n > INT64_MAX || n < INT64_MIN) {
    throw new ApiError(badRequest(`strconv.ParseInt: parsing ${goQuote(value)}: value out of range`));
  }
  return Number(n);
}

/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** `ValidateFieldManager`: at most 128 bytes, printable characters only (byte positions as in Go). */
export function fieldManagerCauses(fieldManager: string, field = 'fieldManager'): StatusCause[] {
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(fieldManager, 'utf8') > FIELD_MANAGER_MAX_LENGTH) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${String(FIELD_MANAGER_MAX_LENGTH)} bytes`,
      field,
    });
  }
  let pos = 0;
  for (const ch of fieldManager) {
    if (!PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0) ?? 0;
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${goQuote(fieldManager)}: invalid character U+${cp.toString(16).toUpperCase().padStart(4, '0')} (at position ${String(pos)})`,
        field,
      });
    }
    pos += Buffer.byteLength(ch, 'utf8');
  }
  return causes;
}

/** `ValidateDryRun`: every value must be `All`. */
export function dryRunCauses(values: readonly string[]): StatusCause[] {
  if (values.every((v) => v === 'All')) return [];
  return [
    {
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${goStringSlice(values)}: supported values: "All"`,
      field: 'dryRun',
    },
  ];
}

const FIELD_VALIDATION = ['', 'Ignore', 'Strict', 'Warn'];

function fieldValidationCauses(value: string | null): StatusCause[] {
  if (value === null || FIELD_VALIDATION.includes(value)) return [];
  return [
    {
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${goQuote(value)}: supported values: "", "Ignore", "Strict", "Warn"`,
      field: 'fieldValidation',
    },
  ];
}

function writeQuery(kind: string, query: URLSearchParams, extra: StatusCause[] = []): WriteQuery {
  const fm = query.get('fieldManager') ?? '';
  const dryRun = query.getAll('dryRun');
  const causes = [
    ...extra,
    ...fieldManagerCauses(fm),
    ...dryRunCauses(dryRun),
    ...fieldValidationCauses(query.get('fieldValidation')),
  ];
  if (causes.length > 0) throw new ApiError(invalidOptions(kind, causes));
  return { fieldManager: fm === '' ? undefined : fm, dryRun: dryRun.length > 0 };
}

/** CreateOptions from the query (`ValidateCreateOptions`). */
export function createOptions(query: URLSearchParams): WriteQuery {
  return writeQuery('CreateOptions', query);
}

/** UpdateOptions from the query (`ValidateUpdateOptions`). */
export function updateOptions(query: URLSearchParams): WriteQuery {
  return writeQuery('UpdateOptions', query);
}

/** PatchOptions from the query (`ValidatePatchOptions`): `force` only on apply, which needs a fieldManager. */
export function patchOptions(query: URLSearchParams, apply: boolean): PatchQuery {
  const first: StatusCause[] = [];
  const force = query.get('force');
  if (!apply && force !== null) {
    first.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: may not be specified for non-apply patch',
      field: 'force',
    });
  }
  if (apply && (query.get('fieldManager') ?? '') === '') {
    first.push({
      reason: 'FieldValueRequired',
      message: 'Required value: is required for apply patch',
      field: 'fieldManager',
    });
  }
  return { ...writeQuery('PatchOptions', query, first), force: goBool(force) };
}

/**
 * ListOptions of a list, watch or deletecollection (`ValidateListOptions`). `watchList`: validate
 * as Kubernetes 1.34 with the WatchList feature gate on (`sendInitialEvents` known, and
 * `resourceVersionMatch=NotOlderThan` allowed on a watch that sets it); otherwise as 1.24, which
 * has no `sendInitialEvents` (ignored) and forbids `resourceVersionMatch` on every watch.
 * Texts from apimachinery/pkg/apis/meta/internalversion/validation/validation.go; see
 * fixtures/watch-list/README.md.
 */
export function listOptions(query: URLSearchParams, watch: boolean, watchList = false): ListQuery {
  const limitText = query.get('limit');
  const timeoutText = query.get('timeoutSeconds');
  const limit = limitText === null ? 0 : Math.max(0, goInt(limitText));
  const timeoutSeconds = timeoutText === null ? undefined : goInt(timeoutText);
  const rv = query.get('resourceVersion');
  const match = query.get('resourceVersionMatch');
  const cont = query.get('continue');
  const sendText = watchList ? query.get('sendInitialEvents') : null;
  const sendInitialEvents = sendText === null ? undefined : goBool(sendText);
  const causes: StatusCause[] = [];
  if (watchList && watch) {
    validateWatchListOptions(causes, match, sendInitialEvents, cont);
  } else if (match !== null && match !== '') {
    const forbidden = (detail: string): void => {
      causes.push({
        reason: 'FieldValueForbidden',
        message: `Forbidden: ${detail}`,
        field: 'resourceVersionMatch',
      });
    };
    if (watch) forbidden('resourceVersionMatch is forbidden for watch');
    if (rv === null || rv === '')
      forbidden('resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (cont !== null && cont !== '')
      forbidden('resourceVersionMatch is forbidden when continue is provided');
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${goQuote(match)}: supported values: "Exact", "NotOlderThan", ""`,
        field: 'resourceVersionMatch',
      });
    }
    if (match === 'Exact' && rv === '0')
      forbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  if (watchList && !watch && sendInitialEvents !== undefined) {
    causes.push({
      reason: 'FieldValueForbidden',
      message: 'Forbidden: sendInitialEvents is forbidden for list',
      field: 'sendInitialEvents',
    });
  }
  if (causes.length > 0) throw new ApiError(invalidOptions('ListOptions', causes));
  return {
    watch,
    allowWatchBookmarks: goBool(query.get('allowWatchBookmarks')),
    labelSelector: query.get('labelSelector'),
    fieldSelector: query.get('fieldSelector'),
    shardSelector: query.get('shardSelector'),
    resourceVersion: rv,
    resourceVersionMatch: match === '' ? null : match,
    sendInitialEvents,
    continue: cont,
    limit,
    timeoutSeconds,
  };
}

/** `validateWatchOptions` of Kubernetes 1.34 with the WatchList feature gate on. */
function validateWatchListOptions(
  causes: StatusCause[],
  match: string | null,
  sendInitialEvents: boolean | undefined,
  cont: string | null,
): void {
  const forbidden = (detail: string): void => {
    causes.push({
      reason: 'FieldValueForbidden',
      message: `Forbidden: ${detail}`,
      field: 'resourceVersionMatch',
    });
  };
  if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    forbidden('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  }
  if (match !== null && match !== '') {
    if (sendInitialEvents === undefined) {
      forbidden('resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
    }
    if (match !== 'NotOlderThan') {
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${goQuote(match)}: supported values: "NotOlderThan"`,
        field: 'resourceVersionMatch',
      });
    }
    if (cont !== null && cont !== '')
      forbidden('resourceVersionMatch is forbidden when continue is provided');
  }
}

const INTERNAL_SCHEME = 'k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27';
const DELETE_OPTIONS_VERSIONS = new Set(['', 'v1', 'meta.k8s.io/v1', 'meta.k8s.io/v1beta1']);

/** 500 like the internal-version codec answers an undecodable DeleteOptions body. */
function internal(message: string): ApiError {
  return new ApiError(failure(500, undefined, message));
}

/** Decodes a DeleteOptions body (JSON or YAML); `groupVersion` = the resource's (per-group DeleteOptions). */
function decodeDeleteBody(
  body: Buffer,
  media: InputMediaType,
  groupVersion: string,
): Record<string, unknown> {
  let parsed: unknown;
  if (media === 'json') {
    const result = parseJsonLikeGo(body);
    if (!result.ok) throw internal(`couldn't get version/kind; json parse error: ${result.error}`);
    parsed = result.value;
  } else {
    try {
      parsed = parseYaml(body.toString('utf8'));
    } catch (e) {
      throw internal(
        `couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  if (!isObject(parsed)) {
    const got = Array.isArray(parsed) ? 'array' : parsed === null ? 'null' : typeof parsed;
    throw internal(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${got} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const kind = typeof parsed['kind'] === 'string' ? parsed['kind'] : '';
  const apiVersion = typeof parsed['apiVersion'] === 'string' ? parsed['apiVersion'] : '';
  const versionOk = DELETE_OPTIONS_VERSIONS.has(apiVersion) || apiVersion === groupVersion;
  if ((kind !== '' && kind !== 'DeleteOptions') || !versionOk) {
    throw internal(
      `no kind ${goQuote(kind === '' ? 'DeleteOptions' : kind)} is registered for version ${goQuote(apiVersion === '' ? 'v1' : apiVersion)} in scheme ${goQuote(INTERNAL_SCHEME)}`,
    );
  }
  return parsed;
}

/**
 * DeleteOptions of a DELETE: from the body when there is one (the query is then ignored, as in
 * `handlers/delete.go`), else from the query; validated by `ValidateDeleteOptions` (422).
 * `media` is the body's negotiated media type (the caller answers 415 for others).
 */
export function deleteOptions(
  query: URLSearchParams,
  body: Buffer,
  media: InputMediaType | undefined,
  groupVersion: string,
): DeleteQuery {
  let policy: unknown;
  let orphan: unknown;
  let grace: unknown;
  let dryRun: string[];
  let preconditions: unknown;
  if (body.length > 0 && media !== undefined && media !== 'protobuf') {
    const o = decodeDeleteBody(body, media, groupVersion);
    policy = o['propagationPolicy'] ?? undefined;
    orphan = o['orphanDependents'] ?? undefined;
    grace = o['gracePeriodSeconds'] ?? undefined;
    dryRun = Array.isArray(o['dryRun']) ? o['dryRun'].map(String) : [];
    preconditions = o['preconditions'];
  } else {
    policy = query.get('propagationPolicy') ?? undefined;
    const orphanText = query.get('orphanDependents');
    orphan = orphanText === null ? undefined : goBool(orphanText);
    const graceText = query.get('gracePeriodSeconds');
    grace = graceText === null ? undefined : goInt(graceText);
    dryRun = query.getAll('dryRun');
  }
  const causes: StatusCause[] = [];
  const policyText = typeof policy === 'string' ? policy : JSON.stringify(policy);
  if (orphan !== undefined && policy !== undefined) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goQuote(policyText)}: orphanDependents and deletionPropagation cannot be both set`,
      field: 'propagationPolicy',
    });
  }
  if (policy !== undefined && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${goQuote(policyText)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
      field: 'propagationPolicy',
    });
  }
  causes.push(...dryRunCauses(dryRun));
  if (causes.length > 0) throw new ApiError(invalidOptions('DeleteOptions', causes));
  const opts: { -readonly [K in keyof DeleteQuery]: DeleteQuery[K] } = { dryRun: dryRun.length > 0 };
  if (policy === 'Foreground' || policy === 'Background' || policy === 'Orphan')
    opts.propagationPolicy = policy;
  else if (orphan === true) opts.propagationPolicy = 'Orphan';
  if (typeof orphan === 'boolean') opts.orphanDependents = orphan;
  if (typeof grace === 'number') opts.gracePeriodSeconds = grace;
  if (isObject(preconditions)) {
    const p: { uid?: string; resourceVersion?: string } = {};
    if (typeof preconditions['uid'] === 'string') p.uid = preconditions['uid'];
    if (typeof preconditions['resourceVersion'] === 'string')
      p.resourceVersion = preconditions['resourceVersion'];
    opts.preconditions = p;
  }
  return opts;
}
