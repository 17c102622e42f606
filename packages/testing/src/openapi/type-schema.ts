/**
 * Type information of every served kind from one source: its OpenAPI v3 schema — the recorded
 * kube-apiserver v1.24 schemas for built-in kinds (`schemas.ts`), the CRD's `openAPIV3Schema` for
 * custom resources, the schema given with a kind added through `startApiServer({ kinds })` — with
 * `metadata` always the recorded ObjectMeta. It answers, for any field path of an object:
 *
 * - the field's schema (properties, items, additionalProperties, `type`), `$ref`s and single
 *   `allOf` wrappers resolved;
 * - the strategic-merge-patch meta of a list or map (`x-kubernetes-patch-strategy`,
 *   `x-kubernetes-patch-merge-key`), as `StrategicMergePatch` reads it from the Go tags;
 * - the server-side-apply semantics of a list or map, as kube-openapi's `schemaconv` derives them
 *   for structured-merge-diff: `x-kubernetes-list-type` (`atomic`, `set`, `map` with
 *   `x-kubernetes-list-map-keys`) when given, else an associative list keyed by the patch merge key
 *   (`merge` + key), a set (`merge` without key), and atomic otherwise; `x-kubernetes-map-type`
 *   (`atomic` or `granular`); `x-kubernetes-map-type: atomic`/`x-kubernetes-list-type` also for CRDs.
 *
 * Strategic merge patch (`patch/strategic-merge.ts`) reads the patch meta from these nodes, and
 * server-side apply (`apply/smd-type.ts`) builds structured-merge-diff's types from them.
 *
 * ## Example
 * ```ts
 * const deployment = typeSchemaOf('apps/v1', 'Deployment');
 * const ports = deployment?.at(['spec', 'template', 'spec', 'containers', '*', 'ports']);
 * ports?.listSemantics; // { type: 'map', keys: ['containerPort', 'protocol'] }
 * ports?.patchMergeKey; // 'containerPort'
 * ```
 *
 * @module
 */
import type { Json } from '../store/object.js';
import { isObject } from '../store/object.js';
import type { Schema } from './schemas.js';
import { builtinDefinitionName, builtinSchemas, gvksOf, refName } from './schemas.js';

/** How server-side apply merges and owns a list. */
export type ListSemantics = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: readonly string[] };

/** One node of a kind's schema (an object, a field, a list item). */
export class SchemaNode {
  /** The node's schema with `$ref`/`allOf` resolved (extensions of the referring node kept). */
  readonly schema: Schema;
  /** The schema as written, before resolution (a stable identity for caches). */
  readonly source: Schema;
  /** The definition a `$ref` (or single-`allOf` wrapper) pointed at (`io.k8s.api.core.v1.PodSpec`), if any. */
  readonly ref: string | undefined;

  /** `name`: the definition `schema` is (a kind's root), when it is not reached through a `$ref`. */
  constructor(schema: Schema, name?: string) {
    this.source = schema;
    this.ref = name ?? refOf(schema);
    this.schema = resolve(schema);
  }

  /** The JSON type (`object`, `array`, `string`, `integer`, `number`, `boolean`), if declared. */
  get type(): string | undefined {
    const t = this.schema['type'];
    return typeof t === 'string' ? t : undefined;
  }

  /** The schema of field `name` of this object (a property, or `additionalProperties`). */
  field(name: string): SchemaNode | undefined {
    const props = this.schema['properties'];
    if (isObject(props) && isObject(props[name])) return new SchemaNode(props[name]);
    const additional = this.schema['additionalProperties'];
    return isObject(additional) ? new SchemaNode(additional) : undefined;
  }

  /** The schema of this list's items. */
  items(): SchemaNode | undefined {
    const items = this.schema['items'];
    return isObject(items) ? new SchemaNode(items) : undefined;
  }

  /** The node at a path of field names; `*` steps into list items. */
  at(path: readonly string[]): SchemaNode | undefined {
    const [step, ...rest] = path;
    if (step === undefined) return this;
    const next = step === '*' ? this.items() : this.field(step);
    return next?.at(rest);
  }

  /** `x-kubernetes-patch-strategy` (`merge`, `replace`, `retainKeys`, `merge,retainKeys`). */
  get patchStrategy(): string | undefined {
    const s = this.schema['x-kubernetes-patch-strategy'];
    return typeof s === 'string' ? s : undefined;
  }

  /** `x-kubernetes-patch-merge-key`. */
  get patchMergeKey(): string | undefined {
    const k = this.schema['x-kubernetes-patch-merge-key'];
    return typeof k === 'string' ? k : undefined;
  }

  /** The server-side apply semantics of this list (schemaconv's rules, see the module doc). */
  get listSemantics(): ListSemantics {
    const listType = this.schema['x-kubernetes-list-type'];
    if (listType === 'atomic') return { type: 'atomic' };
    if (listType === 'set') return { type: 'set' };
    if (listType === 'map') {
      const keys = this.schema['x-kubernetes-list-map-keys'];
      return { type: 'map', keys: Array.isArray(keys) ? keys.filter((k) => typeof k === 'string') : [] };
    }
    const strategy = this.patchStrategy?.split(',') ?? [];
    if (strategy.includes('merge')) {
      const key = this.patchMergeKey;
      return key === undefined ? { type: 'set' } : { type: 'map', keys: [key] };
    }
    return { type: 'atomic' };
  }

  /** True when this map (or struct) is owned and replaced whole (`x-kubernetes-map-type: atomic`). */
  get atomicMap(): boolean {
    return this.schema['x-kubernetes-map-type'] === 'atomic';
  }

  /** `x-kubernetes-list-type` as written (`atomic`, `set`, `map`), if any. */
  get listType(): string | undefined {
    const t = this.schema['x-kubernetes-list-type'];
    return typeof t === 'string' ? t : undefined;
  }

  /** `x-kubernetes-map-type` as written (`atomic`, `granular`), if any. */
  get mapType(): string | undefined {
    const t = this.schema['x-kubernetes-map-type'];
    return typeof t === 'string' ? t : undefined;
  }

  /** The declared properties (a struct's fields), or undefined when the schema has none. */
  properties(): [string, SchemaNode][] | undefined {
    const props = this.schema['properties'];
    if (!isObject(props)) return undefined;
    return Object.entries(props).flatMap(([k, v]) =>
      isObject(v) ? [[k, new SchemaNode(v)] as [string, SchemaNode]] : [],
    );
  }

  /** The schema of a map's values (`additionalProperties`), when it is a schema. */
  additionalProperties(): SchemaNode | undefined {
    const additional = this.schema['additionalProperties'];
    return isObject(additional) ? new SchemaNode(additional) : undefined;
  }

  /** The `required` field names. */
  get required(): readonly string[] {
    const r = this.schema['required'];
    return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
  }

  /** The `default` value, if declared (`undefined` otherwise). */
  get default(): unknown {
    return this.schema['default'];
  }

  /** The `format` (`date-time`, `int-or-string`, `int32`, …), if declared. */
  get format(): string | undefined {
    const f = this.schema['format'];
    return typeof f === 'string' ? f : undefined;
  }

  /** `x-kubernetes-preserve-unknown-fields: true`. */
  get preserveUnknownFields(): boolean {
    return this.schema['x-kubernetes-preserve-unknown-fields'] === true;
  }

  /** `x-kubernetes-embedded-resource: true` (an object with its own apiVersion, kind and metadata). */
  get embeddedResource(): boolean {
    return this.schema['x-kubernetes-embedded-resource'] === true;
  }
}

/** The definition name a schema refers to, directly or through a single `allOf` wrapper. */
function refOf(schema: Schema): string | undefined {
  const allOf = schema['allOf'];
  return (
    refName(schema['$ref']) ??
    (Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0]) ? refName(allOf[0]['$ref']) : undefined)
  );
}

/** Resolves a `$ref` or a single-`allOf` wrapper into the referenced schema, keeping the wrapper's own keys. */
function resolve(schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; depth < 8; depth++) {
    const allOf = current['allOf'];
    const direct = refName(current['$ref']);
    const wrapped =
      Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0])
        ? refName(allOf[0]['$ref'])
        : undefined;
    const name = direct ?? wrapped;
    if (name === undefined) return current;
    const target = builtinSchemas().get(name);
    if (!target) return current;
    const { $ref: _r, allOf: _a, ...own } = current;
    current = { ...target, ...own };
  }
  return current;
}

const OBJECT_META = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * The root node of a custom (or user-added) kind's schema: `metadata` is always ObjectMeta and
 * `apiVersion`/`kind` strings, as the real server's CRD OpenAPI builder makes them.
 */
export function customTypeSchema(schema: Json): SchemaNode {
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  return new SchemaNode({
    ...schema,
    properties: {
      ...props,
      apiVersion: TYPE_META_STRING,
      kind: TYPE_META_STRING,
      metadata: { $ref: OBJECT_META },
    },
  });
}

/** `apiVersion` and `kind` of a custom resource, as the CRD OpenAPI builder adds them. */
const TYPE_META_STRING: Json = { type: 'string' };

/**
 * The root node of a kind: a built-in's recorded schema, or `schema` (a custom resource's
 * `openAPIV3Schema`) when given; undefined for a built-in kind without a recorded schema.
 */
export function typeSchemaOf(apiVersion: string, kind: string, schema?: Json): SchemaNode | undefined {
  if (schema) return customTypeSchema(schema);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const name = builtinDefinitionName(group, version, kind);
  const root = name === undefined ? undefined : builtinSchemas().get(name);
  return root ? new SchemaNode(root, name) : undefined;
}

const byGroupKind = new Map<string, string | undefined>();

/**
 * The root node of a kind by group and kind: `schema` when given, the recorded built-in of that
 * `version` when given, else of the one version recorded for the group and kind.
 *
 * ## Example
 * ```ts
 * typeSchemaOfKind('apps', 'Deployment')?.at(['spec', 'template', 'spec', 'containers'])?.patchMergeKey; // 'name'
 * ```
 */
export function typeSchemaOfKind(
  group: string,
  kind: string,
  version?: string,
  schema?: Json,
): SchemaNode | undefined {
  if (schema) return customTypeSchema(schema);
  if (version !== undefined) return typeSchemaOf(group === '' ? version : `${group}/${version}`, kind);
  const key = `${group}/${kind}`;
  if (!byGroupKind.has(key)) {
    let found: string | undefined;
    for (const [name, s] of builtinSchemas()) {
      const gvks = gvksOf(s);
      if (gvks.length === 1 && gvks[0]?.group === group && gvks[0].kind === kind) found = name;
    }
    byGroupKind.set(key, found);
  }
  const name = byGroupKind.get(key);
  const root = name === undefined ? undefined : builtinSchemas().get(name);
  return root ? new SchemaNode(root, name) : undefined;
}
