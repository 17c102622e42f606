/**
 * The OpenAPI v3 schemas of the built-in kinds, as kube-apiserver v1.24 publishes them under
 * `/openapi/v3/<group-version>` (`components.schemas`), recorded from a real server into
 * `fixtures/kube-v1.24/openapi-v3-schemas.json` for every served kind, its list and everything they
 * reference (plus the RBAC kinds, the authorization.k8s.io review kinds, Scale and the meta types the
 * paths name). Read once, on first use.
 *
 * These recorded schemas are the single source of type information of built-in kinds: the OpenAPI
 * documents (`v2.ts`, `v3.ts`), and `type-schema.ts`, which answers list types, merge keys and
 * patch strategies for strategic merge patch and server-side apply, all read them.
 *
 * @module
 */
import { readFileSync } from 'node:fs';

import type { Json } from '../store/object.js';
import { isObject } from '../store/object.js';

/** A schema in OpenAPI v3 form (`$ref`s point at `#/components/schemas/<name>`). */
export type Schema = Json;

let recorded: ReadonlyMap<string, Schema> | undefined;
let byGvk: ReadonlyMap<string, string> | undefined;

/** Every recorded built-in schema, by definition name (`io.k8s.api.apps.v1.Deployment`). */
export function builtinSchemas(): ReadonlyMap<string, Schema> {
  if (!recorded) {
    const text = readFileSync(
      new URL('../../fixtures/kube-v1.24/openapi-v3-schemas.json', import.meta.url),
      'utf8',
    );
    recorded = new Map(Object.entries(JSON.parse(text) as Record<string, Schema>));
  }
  return recorded;
}

/** `group/version/Kind` of a group-version-kind. */
export function gvkKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/** The `x-kubernetes-group-version-kind` entries of a schema. */
export function gvksOf(schema: Schema): { group: string; version: string; kind: string }[] {
  const ext = schema['x-kubernetes-group-version-kind'];
  if (!Array.isArray(ext)) return [];
  return ext.filter(isObject).map((g) => ({
    group: typeof g['group'] === 'string' ? g['group'] : '',
    version: typeof g['version'] === 'string' ? g['version'] : '',
    kind: typeof g['kind'] === 'string' ? g['kind'] : '',
  }));
}

/** The definition name of a built-in kind (`apps`, `v1`, `Deployment` → `io.k8s.api.apps.v1.Deployment`). */
export function builtinDefinitionName(group: string, version: string, kind: string): string | undefined {
  if (!byGvk) {
    const index = new Map<string, string>();
    for (const [name, schema] of builtinSchemas()) {
      const gvks = gvksOf(schema);
      // meta types (DeleteOptions, WatchEvent) list every group-version; only a kind's own schema has one
      if (gvks.length !== 1) continue;
      for (const g of gvks) index.set(gvkKey(g.group, g.version, g.kind), name);
    }
    byGvk = index;
  }
  return byGvk.get(gvkKey(group, version, kind));
}

/** The name a CRD's schema gets: the group reversed, the version, the kind (`com.example.v1.Widget`). */
export function crdDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** The definition name a `$ref` points at (v2 `#/definitions/x` or v3 `#/components/schemas/x`). */
export function refName(ref: unknown): string | undefined {
  if (typeof ref !== 'string') return undefined;
  const i = ref.lastIndexOf('/');
  return i < 0 ? undefined : ref.slice(i + 1);
}
