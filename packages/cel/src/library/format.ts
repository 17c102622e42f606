/**
 * Kubernetes' format library (`library/format.go`): `format.<name>().validate(s)` returns
 * `optional.none()` when `s` is valid, else the list of errors; `format.named(name)`. Formats:
 * dns1123Label, dns1123Subdomain, dns1035Label, qualifiedName, dns1123LabelPrefix,
 * dns1123SubdomainPrefix, dns1035LabelPrefix, labelValue, uuid, byte, date, datetime, uri.
 *
 * @module
 */
import { type Environment, Optional } from '@marcbachmann/cel-js';

/** A named format. */
export class NamedFormat {
  /** @param name the format's name.  @param check its errors for a value. */
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
  ) {}
}

/** The receiver of `format.<name>()`. */
export class Formats {}

const LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const re = (body: string): RegExp => new RegExp(`^${body}$`);
const dns1123Label = (s: string, prefix = false): string[] => {
  const t = prefix ? s.replace(/-+$/, '') || 'a' : s;
  const out: string[] = [];
  if (s.length > 63) out.push('must be no more than 63 characters');
  if (!re(LABEL).test(t))
    out.push(
      `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${LABEL}')`,
    );
  return out;
};
const SUB = `${LABEL}(\\.${LABEL})*`;
const dns1123Subdomain = (s: string, prefix = false): string[] => {
  const t = prefix ? s.replace(/[-.]+$/, '') || 'a' : s;
  const out: string[] = [];
  if (s.length > 253) out.push('must be no more than 253 characters');
  if (!re(SUB).test(t))
    out.push(
      `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${SUB}')`,
    );
  return out;
};
const L1035 = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035Label = (s: string, prefix = false): string[] => {
  const t = prefix ? s.replace(/-+$/, '') || 'a' : s;
  const out: string[] = [];
  if (s.length > 63) out.push('must be no more than 63 characters');
  if (!re(L1035).test(t))
    out.push(
      `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${L1035}')`,
    );
  return out;
};
const QN = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const qualifiedName = (s: string): string[] => {
  const parts = s.split('/');
  const name = parts.at(-1) ?? '';
  const out: string[] = [];
  if (parts.length > 2)
    return [
      `a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QN}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  if (parts.length === 2) out.push(...dns1123Subdomain(parts[0] ?? '').map((e) => `prefix part ${e}`));
  if (name.length === 0) out.push('name part must be non-empty');
  else if (name.length > 63) out.push('name part must be no more than 63 characters');
  if (name.length > 0 && !re(QN).test(name))
    out.push(
      `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QN}')`,
    );
  return out;
};
const labelValue = (s: string): string[] => {
  const out: string[] = [];
  if (s.length > 63) out.push('must be no more than 63 characters');
  if (s !== '' && !re(QN).test(s))
    out.push(
      `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(${QN})?')`,
    );
  return out;
};
const one = (ok: boolean, msg: string): string[] => (ok ? [] : [msg]);

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: (s) => dns1123Label(s),
  dns1123Subdomain: (s) => dns1123Subdomain(s),
  dns1035Label: (s) => dns1035Label(s),
  qualifiedName,
  dns1123LabelPrefix: (s) => dns1123Label(s, true),
  dns1123SubdomainPrefix: (s) => dns1123Subdomain(s, true),
  dns1035LabelPrefix: (s) => dns1035Label(s, true),
  labelValue,
  uuid: (s) =>
    one(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s),
      'does not match the UUID format',
    ),
  byte: (s) =>
    one(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s), 'invalid base64'),
  date: (s) => one(/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)), 'invalid date'),
  datetime: (s) =>
    one(
      /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s),
      'invalid datetime',
    ),
  uri: (s) => one(/^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$|^\/\S*$/.test(s), 'invalid URI'),
};

/** Registers the format library (`format` is a constant of type `kubernetes.Formats`). */
export function registerFormat(env: Environment): Environment {
  let e = env
    .registerType('kubernetes.Formats', Formats)
    .registerType('kubernetes.NamedFormat', NamedFormat)
    .registerConstant('format', 'kubernetes.Formats', new Formats())
    .registerFunction(
      'kubernetes.Formats.named(string): optional<kubernetes.NamedFormat>',
      (_f: Formats, name: string) => {
        const check = FORMATS[name];
        return check ? Optional.of(new NamedFormat(name, check)) : Optional.none();
      },
    )
    .registerFunction(
      'kubernetes.NamedFormat.validate(string): optional<list<string>>',
      (f: NamedFormat, s: string) => {
        const errs = f.check(s);
        return errs.length === 0 ? Optional.none() : Optional.of(errs);
      },
    );
  for (const [name, check] of Object.entries(FORMATS))
    e = e.registerFunction(
      `kubernetes.Formats.${name}(): kubernetes.NamedFormat`,
      () => new NamedFormat(name, check),
    );
  return e;
}
