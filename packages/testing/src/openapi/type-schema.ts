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
 * Strategic merge patch (`patch/strategic-merge.ts`) and server-side apply (`apply/type-info.ts`)
 * keep their hand tables today; both can read these nodes instead (same questions, one answer).
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
import { builtinDefinitionName, builtinSchemas, refName } from './schemas.js';

/** How server-side apply merges and owns a list. */
export type ListSemantics = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: readonly string[] };

/** One node of a kind's schema (an object, a field, a list item). */
export class SchemaNode {
  /** The node's schema with `$ref`/`allOf` resolved (extensions of the referring node kept). */
  readonly schema: Schema;

  constructor(schema: Schema) {
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
 * The root node of a custom (or user-added) kind's schema: `metadata` is always ObjectMeta, as the
 * real server makes it for CRDs.
 */
export function customTypeSchema(schema: Json): SchemaNode {
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  return new SchemaNode({ ...schema, properties: { ...props, metadata: { $ref: OBJECT_META } } });
}

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
  return root ? new SchemaNode(root) : undefined;
}
