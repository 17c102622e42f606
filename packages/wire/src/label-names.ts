/**
 * The name checks of `k8s.io/apimachinery/pkg/util/validation` (`IsDNS1123Label`,
 * `IsDNS1123Subdomain`, `IsQualifiedName`, `IsValidLabelValue`), with kube-apiserver v1.24's
 * messages to the byte: one home for the label-selector parser here and the embedded API server's
 * field validation in `@rxkube/testing`, which puts these messages in its `422 Invalid` answers.
 *
 * @module
 */

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const dns1123Label = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123Subdomain = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const qualifiedName = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValue = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** Go's `validation.RegexError`: the message, examples and the regex. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const maxLen = (n: number): string => `must be no more than ${n} characters`;

/** Go's `len(string)`: UTF-8 bytes. */
const byteLength = (s: string): number => new TextEncoder().encode(s).length;

const NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const DNS1123_LABEL_ERROR = regexError(
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  DNS1123_LABEL_FMT,
  'my-name',
  '123-abc',
);
const DNS1123_SUBDOMAIN_ERROR = regexError(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  DNS1123_SUBDOMAIN_FMT,
  'example.com',
);
const LABEL_VALUE_ERROR = regexError(
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  LABEL_VALUE_FMT,
  'MyValue',
  'my_value',
  '12345',
);

/** The shape of Go's `Is…` checks: a byte-length limit, then the pattern with its message. */
function patternErrors(value: string, max: number, pattern: RegExp, error: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > max) errs.push(maxLen(max));
  if (!pattern.test(value)) errs.push(error);
  return errs;
}

/**
 * `IsDNS1123Label` (Namespace and Service names, a Service port's name): the error strings,
 * empty when valid.
 *
 * ## Example
 * ```ts
 * dns1123LabelErrors('my-name'); // []
 * dns1123LabelErrors('my.name')[0]?.startsWith('a lowercase RFC 1123 label must consist of'); // true
 * ```
 */
export function dns1123LabelErrors(value: string): string[] {
  return patternErrors(value, 63, dns1123Label, DNS1123_LABEL_ERROR);
}

/**
 * `IsDNS1123Subdomain` (most object names, a qualified name's prefix): the error strings, empty
 * when valid.
 *
 * ## Example
 * ```ts
 * dns1123SubdomainErrors('example.com'); // []
 * dns1123SubdomainErrors('a'.repeat(254)); // ['must be no more than 253 characters']
 * ```
 */
export function dns1123SubdomainErrors(value: string): string[] {
  return patternErrors(value, 253, dns1123Subdomain, DNS1123_SUBDOMAIN_ERROR);
}

/**
 * `IsQualifiedName` (label and annotation keys): the error strings, empty when valid.
 *
 * ## Example
 * ```ts
 * qualifiedNameErrors('app.kubernetes.io/name'); // []
 * qualifiedNameErrors('/x'); // ['prefix part must be non-empty']
 * qualifiedNameErrors('x/'); // ['name part must be non-empty', 'name part must consist of ...']
 * ```
 */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? '';
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLen(63)}`);
  if (!qualifiedName.test(name)) {
    errs.push(`name part ${regexError(NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/**
 * `IsValidLabelValue`: the error strings, empty when valid (`''` is valid).
 *
 * ## Example
 * ```ts
 * labelValueErrors(''); // []
 * labelValueErrors('a'.repeat(64)); // ['must be no more than 63 characters']
 * ```
 */
export function labelValueErrors(value: string): string[] {
  return patternErrors(value, 63, labelValue, LABEL_VALUE_ERROR);
}

/** Go's `%q` of a string (printable text kept, control characters escaped). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
