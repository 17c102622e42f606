/**
 * The types server-side apply works with: structured-merge-diff's schema (`schema.Atom`: a scalar,
 * a list with its element relationship and keys, a map or struct with its fields), built from a
 * kind's OpenAPI schema the way kube-apiserver v1.24 builds them — kube-openapi's `util/proto`
 * parser and `schemaconv.ToSchema` (`pkg/schemaconv/smd.go` at 3ee0da9):
 *
 * - an object with `properties` is a struct: its fields, `x-kubernetes-map-type: atomic` makes it
 *   atomic, `x-kubernetes-preserve-unknown-fields` gives undeclared keys the deduced type (and is
 *   inherited by inline children);
 * - an object without `properties` is a map of `additionalProperties` (or of deduced values);
 * - an array is a list: `x-kubernetes-list-type` `atomic`/`set`/`map` (+ `x-kubernetes-list-map-keys`),
 *   else `x-kubernetes-patch-strategy: merge` makes it associative (keyed by
 *   `x-kubernetes-patch-merge-key`, or a set without one), else atomic;
 * - a schema with neither type nor properties (and CRD `x-kubernetes-int-or-string`) is deduced:
 *   maps granular, lists atomic; `RawExtension` is untyped and atomic.
 *
 * For built-in kinds it also knows what Go's encoder writes for a field that is not set (see
 * `go-form.ts`): the `default` that kube-openapi 1.24 records for every non-pointer field (`{}`
 * for a value struct, `""`/`0`/`false` for a scalar without `omitempty`), `null` for a required
 * field without one (a nil slice, map or pointer without `omitempty`).
 *
 * The schemas come from `openapi/type-schema.ts`, the one source of type information.
 *
 * @module
 */
import { customTypeSchema, SchemaNode, typeSchemaOf } from '../openapi/type-schema.js';
import type { Json } from '../store/object.js';

/** A list type: atomic, or associative (by `keys`; a set when `keys` is empty). */
export interface SmdList {
  readonly atomic: boolean;
  /** Key fields of an associative list (`x-kubernetes-list-map-keys`); empty for a set. */
  readonly keys: readonly string[];
  readonly item: SmdType;
}

/** A declared field of a struct. */
export interface SmdField {
  readonly type: SmdType;
  /** The schema `default` (used for missing keys of associative list items, as SMD does). */
  readonly default: unknown;
  /** What Go serialises for this field when it is not set; `undefined` when it is omitted. */
  readonly goZero: unknown;
}

/** A map or struct type. */
export interface SmdMap {
  /** Owned and replaced whole (`x-kubernetes-map-type: atomic`, `+structType=atomic`). */
  readonly atomic: boolean;
  /** The declared field `name` of a struct. */
  field(name: string): SmdField | undefined;
  /** The declared fields, in schema order (empty for a map). */
  readonly fieldNames: readonly string[];
  /** The type of keys that are not declared fields (map values, preserved unknown fields); none for a closed struct. */
  readonly element: SmdType | undefined;
}

/** The kinds of scalar SMD checks (`schema.Scalar`); `untyped` accepts any. */
export type SmdScalar = 'numeric' | 'string' | 'boolean' | 'untyped';

/** The type of a value: the atoms it may be (deduced types may be any of the three). */
export interface SmdType {
  readonly scalar: SmdScalar | undefined;
  readonly list: SmdList | undefined;
  readonly map: SmdMap | undefined;
  /** True for schemaconv's `__untyped_deduced_` (a map of deduced values without fields). */
  readonly deduced: boolean;
}

const untypedAtomic: SmdType = {
  scalar: 'untyped',
  deduced: false,
  get list(): SmdList {
    return { atomic: true, keys: [], item: untypedAtomic };
  },
  get map(): SmdMap {
    return { atomic: true, field: () => undefined, fieldNames: [], element: untypedAtomic };
  },
};

/** schemaconv's `__untyped_deduced_`: scalars, atomic lists, granular maps of deduced values. */
export const DEDUCED: SmdType = {
  scalar: 'untyped',
  deduced: true,
  list: { atomic: true, keys: [], item: untypedAtomic },
  get map(): SmdMap {
    return DEDUCED_MAP;
  },
};
const DEDUCED_MAP: SmdMap = { atomic: false, field: () => undefined, fieldNames: [], element: DEDUCED };

const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const OBJECT_META_REF = '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * Go fields without `omitempty` that the schema still calls optional (`+optional`): Go writes
 * `null` for them when nil, so they exist in an object that does not set them (no `.` member when
 * they are filled in later; file 12 shows CRD `status.conditions`).
 */
const NULL_WHEN_NIL: Readonly<Record<string, readonly string[]>> = {
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus': [
    'conditions',
    'storedVersions',
  ],
  'io.k8s.api.rbac.v1.ClusterRole': ['rules'],
  'io.k8s.api.rbac.v1.Role': ['rules'],
};

/** Types built so far, by the schema object they were built from (and the inherited flag). */
const cache = new WeakMap<object, [SmdType | undefined, SmdType | undefined]>();
const named = new Map<string, SmdType>();

/** The SMD type of a schema node; `preserve` is the inherited `x-kubernetes-preserve-unknown-fields`. */
export function smdTypeOf(node: SchemaNode, preserve = false): SmdType {
  if (node.ref !== undefined) {
    // Named types are converted once, at the top level (nothing inherited), as schemaconv's makeRef.
    if (node.ref === RAW_EXTENSION) return untypedAtomic;
    let t = named.get(node.ref);
    if (!t) {
      t = build(node, false);
      named.set(node.ref, t);
    }
    return t;
  }
  const slot = cache.get(node.source) ?? [undefined, undefined];
  const i = preserve ? 1 : 0;
  let t = slot[i];
  if (!t) {
    t = build(node, preserve);
    slot[i] = t;
    cache.set(node.source, slot);
  }
  return t;
}

function build(node: SchemaNode, inherited: boolean): SmdType {
  const props = node.properties();
  const type = node.type;
  if (node.embeddedResource) return struct(node, inherited || node.preserveUnknownFields, true);
  if (props !== undefined && (type === undefined || type === 'object'))
    return struct(node, inherited || node.preserveUnknownFields, false);
  if (type === 'object') return mapOf(node, inherited);
  if (type === 'array') return listOf(node, inherited);
  if (type === undefined) return DEDUCED;
  return SCALARS[scalarKind(node)];
}

/** schemaconv's VisitPrimitive: numbers, plain strings and booleans are checked; the rest is untyped. */
function scalarKind(node: SchemaNode): SmdScalar {
  if (node.ref === QUANTITY) return 'untyped';
  switch (node.type) {
    case 'integer':
    case 'number':
      return 'numeric';
    case 'boolean':
      return 'boolean';
    case 'string':
      return node.format === undefined || node.format === '' || node.format === 'byte' ? 'string' : 'untyped';
    default:
      return 'untyped';
  }
}

const SCALARS: Readonly<Record<SmdScalar, SmdType>> = {
  numeric: { scalar: 'numeric', list: undefined, map: undefined, deduced: false },
  string: { scalar: 'string', list: undefined, map: undefined, deduced: false },
  boolean: { scalar: 'boolean', list: undefined, map: undefined, deduced: false },
  untyped: { scalar: 'untyped', list: undefined, map: undefined, deduced: false },
};

function mapOf(node: SchemaNode, inherited: boolean): SmdType {
  const additional = node.additionalProperties();
  const atomic = node.mapType === 'atomic';
  return {
    scalar: undefined,
    list: undefined,
    deduced: false,
    map: {
      atomic,
      field: () => undefined,
      fieldNames: [],
      get element() {
        return additional ? smdTypeOf(additional, inherited) : DEDUCED;
      },
    },
  };
}

function listOf(node: SchemaNode, inherited: boolean): SmdType {
  const items = node.items();
  const listType = node.listType;
  let atomic = true;
  let keys: readonly string[] = [];
  if (listType === 'set') atomic = false;
  else if (listType === 'map') {
    atomic = false;
    const k = node.schema['x-kubernetes-list-map-keys'];
    keys = Array.isArray(k) ? k.filter((x): x is string => typeof x === 'string') : [];
  } else if (listType === undefined) {
    const strategy = node.patchStrategy;
    if (strategy === 'merge' || strategy === 'merge,retainKeys') {
      atomic = false;
      const key = node.patchMergeKey;
      keys = key === undefined ? [] : [key];
    }
  }
  let item: SmdType | undefined;
  const list: SmdList = {
    atomic,
    keys,
    get item() {
      item ??= items ? smdTypeOf(items, inherited) : untypedAtomic;
      return item;
    },
  };
  return { scalar: undefined, list, map: undefined, deduced: false };
}

function struct(node: SchemaNode, preserve: boolean, embedded: boolean): SmdType {
  let fields: Map<string, SmdField> | undefined;
  const load = (): Map<string, SmdField> => {
    if (fields) return fields;
    fields = new Map();
    const required = new Set([...node.required, ...(node.ref ? (NULL_WHEN_NIL[node.ref] ?? []) : [])]);
    const props = node.properties() ?? [];
    if (embedded) {
      props.push(['apiVersion', new SchemaNode({ type: 'string' })]);
      props.push(['kind', new SchemaNode({ type: 'string' })]);
      props.push(['metadata', new SchemaNode({ $ref: OBJECT_META_REF })]);
    }
    for (const [name, child] of props) {
      const type = smdTypeOf(child, preserve);
      fields.set(name, { type, default: child.default, goZero: goZeroOf(child, type, required.has(name)) });
    }
    return fields;
  };
  let names: readonly string[] | undefined;
  const map: SmdMap = {
    atomic: node.mapType === 'atomic',
    field: (name) => load().get(name),
    get fieldNames() {
      names ??= [...load().keys()];
      return names;
    },
    element: preserve ? DEDUCED : undefined,
  };
  return { scalar: undefined, list: undefined, map, deduced: false };
}

/** What Go writes for an unset field (see the module documentation); `undefined` = omitted. */
function goZeroOf(node: SchemaNode, type: SmdType, required: boolean): unknown {
  const d = node.default;
  if (d === undefined) return required ? null : undefined;
  if (typeof d === 'object' && d !== null && !Array.isArray(d) && Object.keys(d).length === 0) {
    if (type.map && type.map.fieldNames.length > 0) return GO_STRUCT;
    // value structs that marshal as scalars: Time/MicroTime (null when zero), IntOrString, Quantity
    if (node.format === 'date-time') return null;
    if (node.format === 'int-or-string') return 0;
    if (node.ref === QUANTITY) return '0';
    return {};
  }
  // a zero default is a field without omitempty; another (`protocol: TCP`) is a +default marker
  if (d === '' || d === 0 || d === false) return d;
  return undefined;
}

/** Marks a value struct: its Go form is the struct's own zero form (filled in by `go-form.ts`). */
export const GO_STRUCT: unique symbol = Symbol('go-struct');

/** Types of custom kinds, by the schema object of their version. */
const customRoots = new WeakMap<object, SmdType>();

/**
 * The type of a served kind: its recorded schema for a built-in, `schema` (the CRD version's
 * `openAPIV3Schema`, or an added kind's) for a custom one; deduced when neither is known (a custom
 * kind without a schema, as the real server's `DeducedTypeConverter`).
 *
 * ## Example
 * ```ts
 * const deployment = kindType('apps/v1', 'Deployment');
 * deployment.map?.field('spec')?.type.map?.field('selector')?.type.map?.atomic; // true (LabelSelector)
 * ```
 */
export function kindType(apiVersion: string, kind: string, schema?: Json): SmdType {
  if (schema) {
    let t = customRoots.get(schema);
    if (!t) {
      t = smdTypeOf(customTypeSchema(schema));
      customRoots.set(schema, t);
    }
    return t;
  }
  const key = `${apiVersion}/${kind}`;
  let t = builtinRoots.get(key);
  if (!t) {
    const node = typeSchemaOf(apiVersion, kind);
    t = node ? smdTypeOf(node) : DEDUCED;
    builtinRoots.set(key, t);
  }
  return t;
}

/** Types of built-in kinds, by `apiVersion/kind` (a fixed set: the recorded schemas). */
const builtinRoots = new Map<string, SmdType>();
