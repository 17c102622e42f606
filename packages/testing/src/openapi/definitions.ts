/**
 * The definitions (OpenAPI v3 schemas) of every served kind and its list: the recorded built-in
 * schemas, and for custom resources (CRDs and kinds added with `startApiServer({ kinds })`) the
 * version's schema (a kind's `schema`) wrapped as kube-apiserver's CRD OpenAPI builder does
 * (`apiextensions-apiserver/pkg/controller/openapi/builder`): `apiVersion`, `kind` and `metadata`
 * (ObjectMeta) properties, `x-kubernetes-group-version-kind`, and a `<Kind>List`.
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';
import type { Json } from '../store/object.js';
import { isObject } from '../store/object.js';
import type { Schema } from './schemas.js';
import { builtinDefinitionName, builtinSchemas, crdDefinitionName, refName } from './schemas.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const API_VERSION = {
  description:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  type: 'string',
};
const KIND = {
  description:
    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  type: 'string',
};

/** A served kind's definition names and the schemas to publish. */
export interface KindDefinitions {
  readonly type: ResourceType;
  readonly name: string;
  /** The schemas this kind adds (custom kinds: its own and its list; built-ins: none, they are recorded). */
  readonly own: ReadonlyMap<string, Schema>;
}

/** The definitions of a served type; undefined for a built-in kind without a recorded schema. */
export function definitionsOf(type: ResourceType): KindDefinitions | undefined {
  if (!type.schema) {
    const name = builtinDefinitionName(type.group, type.version, type.kind);
    return name === undefined ? undefined : { type, name, own: new Map() };
  }
  const name = crdDefinitionName(type.group, type.version, type.kind);
  const gvk = (kind: string): Json[] => [{ group: type.group, kind, version: type.version }];
  const schema: Json = isObject(type.schema) ? { ...type.schema } : { type: 'object' };
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  const kindSchema: Schema = {
    ...schema,
    properties: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: {
        description:
          "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
        allOf: [{ $ref: `#/components/schemas/${META}.ObjectMeta` }],
      },
      ...Object.fromEntries(
        Object.entries(props).filter(([k]) => !['apiVersion', 'kind', 'metadata'].includes(k)),
      ),
    },
    'x-kubernetes-group-version-kind': gvk(type.kind),
  };
  const listSchema: Schema = {
    description: `${type.listKind} is a list of ${type.kind}`,
    required: ['items'],
    properties: {
      apiVersion: API_VERSION,
      items: {
        description: `List of ${type.resource}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        type: 'array',
        items: { $ref: `#/components/schemas/${name}` },
      },
      kind: KIND,
      metadata: {
        description:
          'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
        allOf: [{ $ref: `#/components/schemas/${META}.ListMeta` }],
      },
    },
    'x-kubernetes-group-version-kind': gvk(type.listKind),
  };
  return {
    type,
    name,
    own: new Map([
      [name, kindSchema],
      [`${name}List`, listSchema],
    ]),
  };
}

/**
 * Adds `names` and every schema they reference (transitively) from `own` or the recorded
 * built-ins to `into`.
 */
export function collectSchemas(
  names: Iterable<string>,
  own: ReadonlyMap<string, Schema>,
  into: Map<string, Schema>,
): void {
  const recorded = builtinSchemas();
  const visit = (name: string): void => {
    if (into.has(name)) return;
    const schema = own.get(name) ?? recorded.get(name);
    if (!schema) return;
    into.set(name, schema);
    walkRefs(schema, visit);
  };
  for (const n of names) visit(n);
}

function walkRefs(v: unknown, found: (name: string) => void): void {
  if (Array.isArray(v)) {
    for (const x of v) walkRefs(x, found);
    return;
  }
  if (!isObject(v)) return;
  const name = refName(v['$ref']);
  if (name !== undefined && typeof v['$ref'] === 'string') found(name);
  for (const [k, x] of Object.entries(v)) if (k !== '$ref' || typeof x !== 'string') walkRefs(x, found);
}
