/**
 * Name and key validation with the exact messages of kube-apiserver v1.24
 * (`k8s.io/apimachinery/pkg/util/validation` and `.../api/validation`), plus the small Go
 * formatting helpers (`%q`, `%v`) that those messages are built with.
 *
 * What it does not do: decide the HTTP answer. The server turns the returned causes into a
 * `422 Invalid` Status (`<Kind> "<name>" is invalid: <field>: <message>`).
 *
 * @module
 */

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

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';

const dns1123Label = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123Subdomain = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const qualifiedName = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValue = new RegExp(`^${LABEL_VALUE_FMT}$`);
const configMapKey = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/** Go's `validation.RegexError`: the message, examples and the regex. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** Byte length as Go's `len(string)` counts it (UTF-8). */
function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** `IsDNS1123Label`: the error strings (empty when valid). */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1123Label.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

/** `IsDNS1123Subdomain`: the error strings (empty when valid). */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123Subdomain.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

/** `IsQualifiedName` (label and annotation keys): the error strings (empty when valid). */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  const nameMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(nameMsg, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!qualifiedName.test(name)) {
    errs.push(`name part ${regexError(nameMsg, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** `IsValidLabelValue`: the error strings (empty when valid; the empty string is valid). */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!labelValue.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** `IsConfigMapKey` (ConfigMap and Secret data keys): the error strings (empty when valid). */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!configMapKey.test(value)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_MAP_KEY_FMT,
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
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
      return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
    case 'label':
      return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
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
    for (const msg of isQualifiedName(k)) causes.push(invalidCause(field, k, msg));
    if (typeof v === 'string')
      for (const msg of isValidLabelValue(v)) causes.push(invalidCause(field, v, msg));
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
