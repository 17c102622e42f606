/**
 * `/openapi/v2` (Swagger 2.0) and `/openapi/v3` (the index) + `/openapi/v3/<api|apis/group>/<version>`
 * (OpenAPI 3.0) generated from the registry: every served kind (built-in schemas recorded from
 * kube-apiserver v1.24, CRD and user-added schemas wrapped by `definitions.ts`), its list, every
 * schema they reference, and the REST paths of `operations.ts`. Documents are rebuilt only when the
 * registry changed (a CRD was established or removed), so repeated requests cost a lookup.
 *
 * The v2 document converts the v3 schemas as kube-apiserver publishes them in v2: `$ref`s under
 * `#/definitions/`, single-`allOf` wrappers turned into plain `$ref`s, `default` dropped,
 * `IntOrString`/`Quantity` as `type: string`; for custom kinds also `nullable`, `oneOf`, `anyOf`, `not`
 * dropped and no `type` where unknown fields are preserved (the CRD v2 publisher's rules).
 *
 * @module
 */
import { createHash } from 'node:crypto';

import type { Registry } from '../registry/registry.js';
import type { ResourceType } from '../registry/types.js';
import type { Json } from '../store/object.js';
import { isObject } from '../store/object.js';
import type { KindDefinitions } from './definitions.js';
import { collectSchemas, definitionsOf } from './definitions.js';
import type { Operation, PathOperations } from './operations.js';
import { operationsOf } from './operations.js';
import type { Schema } from './schemas.js';

const INFO = { title: 'Kubernetes', version: 'v1.24.0' };
const PRODUCES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** The OpenAPI documents of a registry, cached per registry revision. */
export class OpenApiDocuments {
  private revision = -1;
  private kinds: KindDefinitions[] = [];
  private v2Cache: Json | undefined;
  private v3Cache = new Map<string, { doc: Json; hash: string }>();

  constructor(private readonly registry: Registry) {}

  private refresh(): void {
    if (this.revision === this.registry.revision) return;
    this.revision = this.registry.revision;
    this.kinds = this.registry
      .all()
      .map(definitionsOf)
      .filter((k): k is KindDefinitions => k !== undefined);
    this.v2Cache = undefined;
    this.v3Cache.clear();
  }

  /** `GET /openapi/v2` (JSON form; `protobuf.ts` encodes it for kubectl's default Accept). */
  v2(): Json {
    this.refresh();
    if (this.v2Cache) return this.v2Cache;
    const schemas = new Map<string, Schema>();
    const custom = new Set<string>();
    const paths: Json = {};
    for (const k of this.kinds) {
      collectSchemas([k.name, `${k.name}List`, ...PATH_SCHEMAS], k.own, schemas);
      for (const n of k.own.keys()) custom.add(n);
      for (const p of operationsOf(k.type, k.name)) paths[p.path] = v2Path(p);
    }
    const definitions: Json = {};
    for (const name of [...schemas.keys()].sort()) {
      definitions[name] = toV2(schemas.get(name) ?? {}, custom.has(name));
    }
    this.v2Cache = {
      swagger: '2.0',
      info: INFO,
      paths: sortObject(paths),
      definitions,
      securityDefinitions: {
        BearerToken: {
          description: 'Bearer Token authentication',
          type: 'apiKey',
          name: 'authorization',
          in: 'header',
        },
      },
      security: [{ BearerToken: [] }],
    };
    return this.v2Cache;
  }

  /** The group-versions of `/openapi/v3` (`api/v1`, `apis/apps/v1`). */
  private groupVersions(): string[] {
    const gvs = new Set<string>();
    for (const k of this.kinds) gvs.add(gvPath(k.type));
    return [...gvs].sort();
  }

  /** `GET /openapi/v3`: the index of group-version documents with their content hashes. */
  v3Index(): Json {
    this.refresh();
    const paths: Json = {};
    for (const gv of this.groupVersions()) {
      const { hash } = this.v3Entry(gv) ?? { hash: '' };
      paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` };
    }
    return { paths };
  }

  /** `GET /openapi/v3/<gv>` (`api/v1`, `apis/apps/v1`); undefined when nothing is served there. */
  v3(gv: string): { doc: Json; hash: string } | undefined {
    this.refresh();
    return this.v3Entry(gv);
  }

  private v3Entry(gv: string): { doc: Json; hash: string } | undefined {
    const cached = this.v3Cache.get(gv);
    if (cached) return cached;
    const kinds = this.kinds.filter((k) => gvPath(k.type) === gv);
    if (kinds.length === 0) return undefined;
    const schemas = new Map<string, Schema>();
    const paths: Json = {};
    for (const k of kinds) {
      collectSchemas([k.name, `${k.name}List`, ...PATH_SCHEMAS], k.own, schemas);
      for (const p of operationsOf(k.type, k.name)) paths[p.path] = v3Path(p);
    }
    const components: Json = {};
    for (const name of [...schemas.keys()].sort()) components[name] = schemas.get(name);
    const doc: Json = {
      openapi: '3.0.0',
      info: INFO,
      paths: sortObject(paths),
      components: {
        schemas: components,
        securitySchemes: {
          BearerToken: {
            type: 'apiKey',
            description: 'Bearer Token authentication',
            name: 'authorization',
            in: 'header',
          },
        },
      },
    };
    const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
    const entry = { doc, hash };
    this.v3Cache.set(gv, entry);
    return entry;
  }
}

/** Meta schemas every path names (request and answer bodies). */
const PATH_SCHEMAS = [`${META}.DeleteOptions`, `${META}.Status`, `${META}.Patch`];

function gvPath(t: ResourceType): string {
  return t.group === '' ? `api/${t.version}` : `apis/${t.group}/${t.version}`;
}

function sortObject(o: Json): Json {
  const out: Json = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k];
  return out;
}

function pathParams(p: PathOperations): { name: string; description: string }[] {
  const out: { name: string; description: string }[] = [];
  if (p.named) out.push({ name: 'name', description: 'name of the resource' });
  if (p.path.includes('{namespace}'))
    out.push({
      name: 'namespace',
      description: 'object name and auth scope, such as for teams and projects',
    });
  return out;
}

const PRETTY = {
  name: 'pretty',
  description: "If 'true', then the output is pretty printed.",
};

function v2Path(p: PathOperations): Json {
  const out: Json = {};
  for (const op of p.operations) out[op.method] = v2Operation(op);
  out['parameters'] = [
    ...pathParams(p).map((x) => ({
      uniqueItems: true,
      type: 'string',
      description: x.description,
      name: x.name,
      in: 'path',
      required: true,
    })),
    { uniqueItems: true, type: 'string', description: PRETTY.description, name: PRETTY.name, in: 'query' },
  ];
  return out;
}

function v2Operation(op: Operation): Json {
  const parameters: Json[] = [];
  if (op.body !== undefined)
    parameters.push({
      name: 'body',
      in: 'body',
      ...(op.bodyRequired ? { required: true } : {}),
      schema: { $ref: `#/definitions/${op.body}` },
    });
  for (const q of op.params)
    parameters.push({
      uniqueItems: true,
      type: q.type,
      description: q.description,
      name: q.name,
      in: 'query',
    });
  const ok = { description: 'OK', schema: { $ref: `#/definitions/${op.response}` } };
  const responses: Json = { '200': ok };
  if (op.created) responses['201'] = { description: 'Created', schema: ok.schema };
  if (op.accepted) responses['202'] = { description: 'Accepted', schema: ok.schema };
  responses['401'] = { description: 'Unauthorized' };
  return {
    description: op.description,
    consumes: op.method === 'patch' ? op.patchTypes : ['*/*'],
    produces: PRODUCES,
    schemes: ['https'],
    tags: [op.tag],
    operationId: op.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': op.gvk,
  };
}

function v3Path(p: PathOperations): Json {
  const out: Json = {};
  for (const op of p.operations) out[op.method] = v3Operation(op);
  out['parameters'] = [
    ...pathParams(p).map((x) => ({
      name: x.name,
      in: 'path',
      description: x.description,
      required: true,
      schema: { type: 'string', uniqueItems: true },
    })),
    {
      name: PRETTY.name,
      in: 'query',
      description: PRETTY.description,
      schema: { type: 'string', uniqueItems: true },
    },
  ];
  return out;
}

function v3Operation(op: Operation): Json {
  const content = (def: string, types: readonly string[]): Json =>
    Object.fromEntries(types.map((t) => [t, { schema: { $ref: `#/components/schemas/${def}` } }]));
  const ok = { description: 'OK', content: content(op.response, PRODUCES) };
  const responses: Json = { '200': ok };
  if (op.created) responses['201'] = { description: 'Created', content: ok.content };
  if (op.accepted) responses['202'] = { description: 'Accepted', content: ok.content };
  responses['401'] = { description: 'Unauthorized' };
  return {
    tags: [op.tag],
    description: op.description,
    operationId: op.operationId,
    ...(op.params.length > 0
      ? {
          parameters: op.params.map((q) => ({
            name: q.name,
            in: 'query',
            description: q.description,
            schema: { type: q.type, uniqueItems: true },
          })),
        }
      : {}),
    ...(op.body !== undefined
      ? {
          requestBody: {
            // a Go map in the real document: keys sorted
            content: content(op.body, op.method === 'patch' ? [...op.patchTypes].sort() : ['*/*']),
            ...(op.bodyRequired ? { required: true } : {}),
          },
        }
      : {}),
    responses,
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': op.gvk,
  };
}

/** Keys whose value is a schema, or an array or map of schemas. */
const SCHEMA_KEYS = new Set(['items', 'additionalProperties', 'not']);
const SCHEMA_LIST_KEYS = new Set(['allOf', 'anyOf', 'oneOf']);
const SCHEMA_MAP_KEYS = new Set(['properties', 'patternProperties', 'definitions']);

/** A v3 schema in v2 form (see the module doc); `custom` for CRD and user-added schemas. */
export function toV2(schema: Schema, custom: boolean): Json {
  let s: Json = schema;
  const allOf = s['allOf'];
  if (
    Array.isArray(allOf) &&
    allOf.length === 1 &&
    isObject(allOf[0]) &&
    typeof allOf[0]['$ref'] === 'string'
  ) {
    const { allOf: _a, ...rest } = s;
    s = { ...rest, $ref: allOf[0]['$ref'] };
  }
  if (Array.isArray(s['oneOf']) && !custom) {
    // IntOrString and Quantity: `oneOf: [integer|number, string]` in v3, `type: string` in v2
    const { oneOf: _o, ...rest } = s;
    s = { type: 'string', ...rest };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'default') continue;
    if (custom && (k === 'nullable' || k === 'oneOf' || k === 'anyOf' || k === 'not')) continue;
    if (custom && k === 'type' && s['x-kubernetes-preserve-unknown-fields'] === true) continue;
    if (k === '$ref' && typeof v === 'string') out[k] = v.replace('#/components/schemas/', '#/definitions/');
    else if (SCHEMA_KEYS.has(k) && isObject(v)) out[k] = toV2(v, custom);
    else if (SCHEMA_LIST_KEYS.has(k) && Array.isArray(v))
      out[k] = (v as unknown[]).map((x) => (isObject(x) ? toV2(x, custom) : x));
    else if (SCHEMA_MAP_KEYS.has(k) && isObject(v)) {
      const m: Json = {};
      for (const [name, sub] of Object.entries(v)) m[name] = isObject(sub) ? toV2(sub, custom) : sub;
      out[k] = m;
    } else out[k] = v;
  }
  return out;
}
