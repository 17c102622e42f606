/**
 * The declaration syntax of the protobuf messages the server speaks, and its parser.
 *
 * A message is declared as the fields of its Go struct, one per line, in the struct's order (the
 * order JSON output follows):
 *
 * ```text
 * jsonName number goType [omitempty]
 * ...inlineName number MessageName        (a Go embedded struct: inline in JSON, a message in protobuf)
 * ```
 *
 * `goType` is a scalar (`string`, `int32`, `int64`, `bool`, `bytes`, `double`), a message name
 * (`core.v1.PodSpec`, `meta.v1.ObjectMeta`), or one of the types with their own encodings: `Time`,
 * `MicroTime`, `Quantity`, `IntOrString`, `FieldsV1`, `RawExtension`. Prefixes: `*` (a Go pointer:
 * absent unless set), `[]` (repeated), `map[string]` (a protobuf map). `omitempty` is the JSON
 * tag's flag, kept only where it has an effect (scalars, slices, maps, pointers).
 *
 * Message names are `<package>.<version>.<Kind>`, the package being the group's first label
 * (`core` for the legacy group, `meta` for meta.k8s.io): see {@link protoMessageName}.
 *
 * ## Example
 * ```ts
 * const decls: MessageDeclarations = {
 *   'core.v1.ConfigMap': `
 *     metadata 1 meta.v1.ObjectMeta
 *     immutable 4 *bool omitempty
 *     data 2 map[string]string omitempty
 *     binaryData 3 map[string]bytes omitempty`,
 * };
 * ```
 *
 * @module
 */

/** Message declarations by message name. */
export type MessageDeclarations = Readonly<Record<string, string>>;

/** Protobuf scalar types used by Kubernetes' API. */
export type ScalarType = 'string' | 'int32' | 'int64' | 'bool' | 'bytes' | 'double';

/** Types with their own protobuf and JSON encodings (apimachinery's custom marshallers). */
export type SpecialType = 'Time' | 'MicroTime' | 'Quantity' | 'IntOrString' | 'FieldsV1' | 'RawExtension';

const SCALARS: ReadonlySet<string> = new Set(['string', 'int32', 'int64', 'bool', 'bytes', 'double']);
const SPECIALS: ReadonlySet<string> = new Set([
  'Time',
  'MicroTime',
  'Quantity',
  'IntOrString',
  'FieldsV1',
  'RawExtension',
]);

/** One declared field. */
export interface FieldDecl {
  /** The JSON name (the Go field name, lower-cased, for inline fields). */
  readonly json: string;
  /** The protobuf field number. */
  readonly number: number;
  /** What one value is. */
  readonly type:
    | { readonly kind: 'scalar'; readonly name: ScalarType }
    | { readonly kind: 'special'; readonly name: SpecialType }
    | { readonly kind: 'message'; readonly name: string };
  /** How values are held: one value, a Go pointer, a slice, or a map keyed by strings. */
  readonly shape: 'value' | 'pointer' | 'repeated' | 'map';
  readonly omitempty: boolean;
  /** A Go embedded struct whose fields appear inline in JSON. */
  readonly inline: boolean;
}

/** A declared message. */
export interface MessageDecl {
  readonly name: string;
  readonly fields: readonly FieldDecl[];
}

/** Why a declaration cannot be read. */
export class DeclarationError extends Error {
  override readonly name = 'DeclarationError';
}

function parseType(message: string, line: string, text: string): Pick<FieldDecl, 'type' | 'shape'> {
  let rest = text;
  let shape: FieldDecl['shape'] = 'value';
  if (rest.startsWith('*')) {
    shape = 'pointer';
    rest = rest.slice(1);
  } else if (rest.startsWith('[]')) {
    shape = 'repeated';
    rest = rest.slice(2);
  } else if (rest.startsWith('map[string]')) {
    shape = 'map';
    rest = rest.slice('map[string]'.length);
  }
  if (SCALARS.has(rest)) return { shape, type: { kind: 'scalar', name: rest as ScalarType } };
  if (SPECIALS.has(rest)) return { shape, type: { kind: 'special', name: rest as SpecialType } };
  if (/^[a-z]+\.v\d+(?:(?:alpha|beta)\d+)?\.[A-Z]\w*$/.test(rest))
    return { shape, type: { kind: 'message', name: rest } };
  throw new DeclarationError(`${message}: cannot read the type of "${line}"; see protobuf/declarations.ts`);
}

/** Parses one message's declaration text. */
export function parseMessage(name: string, text: string): MessageDecl {
  const fields: FieldDecl[] = [];
  const numbers = new Set<number>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const parts = line.split(/\s+/);
    const [jsonPart = '', numberPart = '', typePart = '', flag] = parts;
    if (parts.length > 4 || (flag !== undefined && flag !== 'omitempty')) {
      throw new DeclarationError(
        `${name}: cannot read "${line}": expected "jsonName number type [omitempty]"`,
      );
    }
    const inline = jsonPart.startsWith('...');
    const json = inline ? jsonPart.slice(3) : jsonPart;
    const number = Number(numberPart);
    if (!/^[A-Za-z$][\w$]*$/.test(json) || !Number.isInteger(number) || number < 1) {
      throw new DeclarationError(
        `${name}: cannot read "${line}": expected "jsonName number type [omitempty]"`,
      );
    }
    if (numbers.has(number))
      throw new DeclarationError(`${name}: field number ${String(number)} is declared twice`);
    numbers.add(number);
    const { type, shape } = parseType(name, line, typePart);
    if (inline && (type.kind !== 'message' || shape !== 'value')) {
      throw new DeclarationError(`${name}: the inline field "${line}" must be a message held by value`);
    }
    fields.push({ json, number, type, shape, omitempty: flag === 'omitempty', inline });
  }
  return { name, fields };
}

/**
 * Parses every declaration and checks that each referenced message is declared.
 *
 * @throws DeclarationError naming the message and line that cannot be read.
 */
export function parseDeclarations(...sets: readonly MessageDeclarations[]): Map<string, MessageDecl> {
  const out = new Map<string, MessageDecl>();
  for (const set of sets) {
    for (const [name, text] of Object.entries(set)) {
      if (out.has(name)) throw new DeclarationError(`${name} is declared twice`);
      out.set(name, parseMessage(name, text));
    }
  }
  for (const decl of out.values()) {
    for (const f of decl.fields) {
      if (f.type.kind === 'message' && !out.has(f.type.name)) {
        throw new DeclarationError(`${decl.name}.${f.json} refers to ${f.type.name}, which is not declared`);
      }
    }
  }
  return out;
}

/**
 * The message name of a Kind: `<package>.<version>.<Kind>` where the package is the group's first
 * DNS label, `core` for the legacy group and `meta` for `meta.k8s.io`.
 *
 * ## Example
 * ```ts
 * protoMessageName('rbac.authorization.k8s.io', 'v1', 'Role'); // 'rbac.v1.Role'
 * ```
 */
export function protoMessageName(group: string, version: string, kind: string): string {
  const pkg = group === '' ? 'core' : (group.split('.')[0] ?? group);
  return `${pkg}.${version}.${kind}`;
}
