/**
 * A rule type-checked against its schema node, as kube-apiserver v1.24 compiles it when a CRD is
 * written (`third_party/forked/celopenapi/model/schemas.go` `SchemaDeclType`,
 * `pkg/apiserver/schema/cel/compilation.go`): `self` and `oldSelf` are typed by the schema —
 * objects with their declared properties only (escaped names), `map<string, T>` for
 * `additionalProperties`, `list<T>` for items, `int`, `double`, `bool`, `string`, `bytes`
 * (format `byte`), timestamps (`date`, `date-time`), durations (`duration`), `dyn` for
 * `x-kubernetes-int-or-string`; a resource root also has `apiVersion`, `kind` and
 * `metadata.name`/`generateName`. An undefined field or an operator on the wrong types does not
 * compile, and a rule must evaluate to a bool.
 *
 * @module
 */
import { typedChecker } from './environment.js';
import { type CelSchema, escapeProperty } from './schema.js';

/** kube-apiserver's reason for a rule of another type than bool (not prefixed `compilation failed`). */
export const NOT_BOOL = 'cel expression must evaluate to a bool';

const ROOT_FIELDS: Record<string, CelSchema> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
};

const isObject = (v: unknown): v is CelSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The CEL type declarations of a schema node: the types to declare (leaves first) and its own. */
function declare(
  schema: CelSchema,
  root: boolean,
  types: [string, Record<string, string>][],
): string | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) return 'dyn';
  switch (schema.type) {
    case 'array': {
      const items = isObject(schema.items)
        ? declare(schema.items, schema.items['x-kubernetes-embedded-resource'] === true, types)
        : undefined;
      return items === undefined ? undefined : `list<${items}>`;
    }
    case 'object': {
      const ap = schema.additionalProperties;
      if (isObject(ap)) {
        const v = declare(ap, ap['x-kubernetes-embedded-resource'] === true, types);
        return v === undefined ? undefined : `map<string, ${v}>`;
      }
      const properties = { ...(schema.properties ?? {}) };
      // kube-apiserver keeps a root whose kind, apiVersion and metadata are declared as strings as is
      if (root) Object.assign(properties, { ...ROOT_FIELDS, ...pickDeclaredRoot(properties) });
      const fields: Record<string, string> = {};
      for (const [k, s] of Object.entries(properties)) {
        const name = escapeProperty(k);
        const t = isObject(s) ? declare(s, s['x-kubernetes-embedded-resource'] === true, types) : undefined;
        if (name !== undefined && t !== undefined) fields[name] = t;
      }
      const name = `rxkube.cel.Object${String(types.length)}`;
      types.push([name, fields]);
      return name;
    }
    case 'string':
      switch (schema.format) {
        case 'byte':
          return 'bytes';
        case 'duration':
          return 'google.protobuf.Duration';
        case 'date':
        case 'date-time':
          return 'google.protobuf.Timestamp';
        default:
          return 'string';
      }
    case 'boolean':
      return 'bool';
    case 'number':
      return 'double';
    case 'integer':
      return 'int';
    default:
      return undefined;
  }
}

/** `WithTypeAndObjectMeta`: a root that declares all four as strings keeps its own declarations. */
function pickDeclaredRoot(properties: Record<string, CelSchema>): Record<string, CelSchema> {
  const m = properties['metadata'];
  const complete =
    properties['kind']?.type === 'string' &&
    properties['apiVersion']?.type === 'string' &&
    m?.type === 'object' &&
    m.properties?.['name']?.type === 'string' &&
    m.properties['generateName']?.type === 'string';
  if (!complete) return {};
  return {
    kind: properties['kind'] as CelSchema,
    apiVersion: properties['apiVersion'] as CelSchema,
    metadata: m,
  };
}

type Checker = ReturnType<typeof typedChecker>;
/** One checker per schema node (and root flag): a node's rules share it. */
const checkers = new WeakMap<CelSchema, Map<boolean, Checker | undefined>>();

function checkerOf(schema: CelSchema, root: boolean): Checker | undefined {
  let byRoot = checkers.get(schema);
  if (!byRoot) checkers.set(schema, (byRoot = new Map<boolean, Checker | undefined>()));
  if (byRoot.has(root)) return byRoot.get(root);
  let checker: Checker | undefined;
  try {
    const types: [string, Record<string, string>][] = [];
    const self = declare(schema, root, types);
    checker = self === undefined ? undefined : typedChecker(types, self);
  } catch {
    // a schema the checker cannot declare: left to evaluation, as before
    checker = undefined;
  }
  byRoot.set(root, checker);
  return checker;
}

/** cel-go's wording of the checker's messages where this engine's differ. */
function celGoWording(m: string): string {
  let r: RegExpExecArray | null;
  if ((r = /^No such key: (.+)$/.exec(m))) return `undefined field '${r[1] ?? ''}'`;
  if ((r = /^no such overload: (\S+) (\S+) (\S+)$/.exec(m)))
    return `found no matching overload for '_${r[2] ?? ''}_' applied to '(${r[1] ?? ''}, ${r[3] ?? ''})'`;
  return m;
}

/**
 * Why `rule` does not type-check against `schema` (`root`: a resource root or embedded
 * resource): the checker's message in cel-go's words where known (kube-apiserver prefixes it with
 * `compilation failed: `), or {@link NOT_BOOL}; `undefined` when it does, or when the schema
 * gives `self` no type (left to evaluation, as before).
 */
export function typeCheckRule(rule: string, schema: CelSchema, root: boolean): string | undefined {
  const check = checkerOf(schema, root);
  if (check === undefined) return undefined;
  const checked = check(rule);
  if ('error' in checked) return celGoWording(checked.error);
  // dyn is left to evaluation: this engine types some library results dyn where cel-go does not
  if (checked.type !== 'bool' && checked.type !== 'dyn') return NOT_BOOL;
  return undefined;
}
