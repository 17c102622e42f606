/**
 * Name and key validation with the exact messages of kube-apiserver v1.24
 * (`k8s.io/apimachinery/pkg/util/validation` and `.../api/validation`), plus the small Go
 * formatting helpers (`%q`, `%v`) that those messages are built with. The name checks themselves
 * (`IsDNS1123Label`, `IsDNS1123Subdomain`, `IsQualifiedName`, `IsValidLabelValue`) are
 * `@rxkube/wire`'s, which the label-selector parser uses too; `IsConfigMapKey` is here.
 *
 * What it does not do: decide the HTTP answer. The server turns the returned causes into a
 * `422 Invalid` Status (`<Kind> "<name>" is invalid: <field>: <message>`).
 *
 * @module
 */
import {
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  labelValueErrors,
  qualifiedNameErrors,
} from '@rxkube/wire';

/**
 * One entry of `Status.details.causes` from field validation: what failed, on which field, in
 * apiserver words. A `StatusCause` whose `reason` and `field` are always set.
 *
 * ## Example
 * ```ts
 * const cause: FieldCause = { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' };
 * ```
 */
export interface FieldCause {
  /** `FieldValueInvalid`, `FieldValueRequired`, `FieldValueTypeInvalid`, `FieldValueNotSupported`, ... */
  reason: string;
  /** The message without the field prefix, e.g. `Invalid value: "x": must be ...`. */
  message: string;
  /** The field path, e.g. `metadata.name`, `spec.size`, `data[bad key!]`. */
  field: string;
}

/**
 * Which name rule a resource uses (`ValidateObjectMeta`'s `nameFn`).
 *
 * ## Example
 * ```ts
 * const rule: NameRule = 'label'; // Namespaces and Services
 * validateObjectName('my.ns', rule); // a cause: dots are not allowed in an RFC 1123 label
 * ```
 */
export type NameRule = 'subdomain' | 'label' | 'path-segment';

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const configMapKey = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/** `IsConfigMapKey` (ConfigMap and Secret data keys): the error strings (empty when valid). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value, 'utf8') > 253) errs.push('must be no more than 253 characters');
  if (!configMapKey.test(value)) {
    // Go's validation.RegexError(msg, fmt, examples...)
    errs.push(
      `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '${CONFIG_MAP_KEY_FMT}')`,
    );
  }
  if (value === '.') errs.push(`must not be '.'`);
  else if (value === '..') errs.push(`must not be '..'`);
  else if (value.startsWith('..')) errs.push(`must not start with '..'`);
  return errs;
}

/** `IsValidPathSegmentName` (and its prefix variant for `generateName`). */
function isValidPathSegmentName(name: string, prefix: boolean): string[] {
  if (!prefix) {
    for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  }
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/** `maskTrailingDash`: a generateName prefix may end with `-`. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;
}

function nameErrors(name: string, rule: NameRule, prefix: boolean): string[] {
  switch (rule) {
    case 'subdomain':
      return dns1123SubdomainErrors(prefix ? maskTrailingDash(name) : name);
    case 'label':
      return dns1123LabelErrors(prefix ? maskTrailingDash(name) : name);
    case 'path-segment':
      return isValidPathSegmentName(name, prefix);
  }
}

/**
 * Go's `strconv.Quote` / `%q` for a string: double quotes, `\"`, `\\`, and Go escapes for
 * control characters; printable Unicode is kept as is.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * How `field.Error` prints a bad value (`ErrorBody`): strings quoted (`%q`), numbers and booleans
 * plain (`%v`), `null` for nil, and a Go-like rendering for maps and slices of decoded JSON.
 */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSliceItem).join(', ')}}`;
  if (typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${goQuote(k)}:${goSliceItem((value as Record<string, unknown>)[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return typeof value === 'bigint' ? value.toString() : typeof value;
}

function goSliceItem(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  return goValue(value);
}

/** A `FieldValueInvalid` cause: `Invalid value: <value>: <detail>`. */
export function invalidCause(field: string, value: unknown, detail: string): FieldCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${goValue(value)}: ${detail}`, field };
}

/** A `FieldValueRequired` cause: `Required value[: <detail>]`. */
export function requiredCause(field: string, detail = ''): FieldCause {
  return {
    reason: 'FieldValueRequired',
    message: detail ? `Required value: ${detail}` : 'Required value',
    field,
  };
}

/**
 * Validates `metadata.name` (and `metadata.generateName`) the way `ValidateObjectMeta` does.
 *
 * ## Example
 * ```ts
 * validateObjectName('Bad_Name!', 'subdomain');
 * // [{ reason: 'FieldValueInvalid', field: 'metadata.name',
 * //    message: 'Invalid value: "Bad_Name!": a lowercase RFC 1123 subdomain must consist of ...' }]
 * validateObjectName(undefined, 'subdomain');
 * // [{ reason: 'FieldValueRequired', field: 'metadata.name',
 * //    message: 'Required value: name or generateName is required' }]
 * ```
 *
 * @param name `metadata.name`; `undefined` or `''` means missing.
 * @param rule `subdomain` for most resources (ConfigMap, Secret, Deployment, custom resources),
 *   `label` for Namespaces and Services, `path-segment` for the few that allow anything URL-safe.
 * @param generateName `metadata.generateName`, validated as a prefix when present.
 * @returns the causes, in apiserver order; empty when valid.
 */
export function validateObjectName(
  name: string | undefined,
  rule: NameRule,
  generateName?: string,
): FieldCause[] {
  const causes: FieldCause[] = [];
  if (generateName !== undefined && generateName.length > 0) {
    for (const msg of nameErrors(generateName, rule, true)) {
      causes.push(invalidCause('metadata.generateName', generateName, msg));
    }
  }
  if (name === undefined || name.length === 0) {
    causes.push(requiredCause('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of nameErrors(name, rule, false)) causes.push(invalidCause('metadata.name', name, msg));
  }
  return causes;
}

/**
 * Validates `metadata.labels` like `ValidateLabels`: keys are qualified names, values label values.
 *
 * ## Example
 * ```ts
 * validateLabels({ 'bad key': 'x' }); // [{ field: 'metadata.labels', message: 'Invalid value: "bad key": name part must ...' }]
 * ```
 */
export function validateLabels(
  labels: Readonly<Record<string, unknown>> | undefined,
  field = 'metadata.labels',
): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    for (const msg of qualifiedNameErrors(k)) causes.push(invalidCause(field, k, msg));
    if (typeof v === 'string')
      for (const msg of labelValueErrors(v)) causes.push(invalidCause(field, v, msg));
  }
  return causes;
}

/**
 * Validates ConfigMap/Secret data keys like `ValidateConfigMap`: field `data[<key>]`.
 *
 * ## Example
 * ```ts
 * validateDataKeys({ 'bad key!': 'x' }, 'data');
 * // [{ field: 'data[bad key!]', message: 'Invalid value: "bad key!": a valid config key must consist of ...' }]
 * ```
 */
export function validateDataKeys(
  data: Readonly<Record<string, unknown>> | undefined,
  field: string,
): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const k of Object.keys(data ?? {})) {
    for (const msg of isConfigMapKey(k)) causes.push(invalidCause(`${field}[${k}]`, k, msg));
  }
  return causes;
}
