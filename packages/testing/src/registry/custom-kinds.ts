/**
 * Kinds a test adds to the server without a CRD (`startApiServer({ kinds: [...] })`): a built-in
 * the server does not emulate (a StorageClass, a VolumeSnapshot), or any type a test needs served.
 * Each is served like a custom resource of that shape — discovery, get/list/watch/create/update/
 * patch/apply/delete, the status subresource when asked, generation on spec changes, the schema's
 * validation, pruning and defaults, printer columns, OpenAPI — and, in a built-in group (no dot in
 * the name, or `*.k8s.io`), with built-in semantics: strategic merge patch accepted, list items
 * without `kind`/`apiVersion`, no `singularName` in discovery (as v1.24 lists built-ins).
 *
 * @module
 */
import type { JSONSchemaProps } from '../validation/schema.js';
import { storageVersionHash } from './builtins.js';
import { typedWireForm } from './kinds/builtin.js';
import type { ResourceType } from './types.js';

/**
 * A kind to serve.
 *
 * ## Example
 * ```ts
 * const server = await startApiServer({
 *   kinds: [
 *     {
 *       group: 'snapshot.storage.k8s.io', version: 'v1', kind: 'VolumeSnapshot',
 *       plural: 'volumesnapshots', scope: 'Namespaced', subresources: { status: true },
 *       schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
 *     },
 *   ],
 * });
 * ```
 */
export interface KindDefinition {
  /** API group (`''` for core). */
  readonly group: string;
  readonly version: string;
  /** `CamelCase` kind. */
  readonly kind: string;
  /** Lower-case plural resource name (the URL segment). */
  readonly plural: string;
  /** Default: the kind in lower case. */
  readonly singular?: string;
  /** Default: `<kind>List`. */
  readonly listKind?: string;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  /**
   * The OpenAPI v3 schema of an object (like a CRD version's `openAPIV3Schema`); default: any
   * fields kept (`x-kubernetes-preserve-unknown-fields: true`).
   */
  readonly schema?: JSONSchemaProps;
  /** Subresources: `status` (the only one served for added kinds). */
  readonly subresources?: { readonly status?: boolean };
  /** `additionalPrinterColumns` for Tables (`kubectl get`). */
  readonly printerColumns?: readonly PrinterColumn[];
}

/**
 * A column `kubectl get` shows for a kind: a CRD version's `additionalPrinterColumns` entry.
 *
 * ## Example
 * ```ts
 * const gizmoKind: KindDefinition = {
 *   group: 'example.com', version: 'v1', kind: 'Gizmo', plural: 'gizmos', scope: 'Namespaced',
 *   schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } },
 * };
 * const replicas: PrinterColumn = { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' };
 * const server = await startApiServer({ kinds: [{ ...gizmoKind, printerColumns: [replicas] }] });
 * ```
 */
export interface PrinterColumn {
  readonly name: string;
  /** OpenAPI type of the value: `string`, `integer`, `number`, `boolean` or `date`. */
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  /** 0 (default) in every Table; higher only with `kubectl get -o wide`. */
  readonly priority?: number;
  /** The JSONPath of the value in the object, e.g. `.spec.replicas`. */
  readonly jsonPath: string;
}

/**
 * A {@link KindDefinition} that cannot be served; the message names the field and what to do.
 *
 * ## Example
 * ```ts
 * const gizmo = { group: 'example.com', version: 'v1', kind: 'Gizmo', scope: 'Namespaced' } as const;
 * await expect(startApiServer({ kinds: [{ ...gizmo, plural: 'Gizmos' }] })).rejects.toThrow(
 *   KindDefinitionError, // plural "Gizmos" must be a lower-case DNS label such as "widgets"
 * );
 * ```
 */
export class KindDefinitionError extends Error {
  readonly _tag = 'KindDefinitionError';
  constructor(message: string) {
    super(message);
    this.name = 'KindDefinitionError';
  }
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** True for the groups of kube-apiserver itself (core, `apps`, `*.k8s.io`, ...). */
export function isBuiltinGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io');
}

/** Checks a definition and builds its served type (throws {@link KindDefinitionError}). */
export function customKindType(def: KindDefinition, index: number): ResourceType {
  const where = `kinds[${String(index)}] (${def.kind || '?'})`;
  const fail = (what: string): never => {
    throw new KindDefinitionError(`${where}: ${what}`);
  };
  if (def.group !== '' && !DNS_SUBDOMAIN.test(def.group))
    fail(`group "${def.group}" is not a DNS subdomain (e.g. "example.com")`);
  if (!DNS_LABEL.test(def.version))
    fail(`version "${def.version}" must be a lower-case DNS label such as "v1"`);
  if (!/^[A-Z][A-Za-z0-9]*$/.test(def.kind))
    fail(`kind "${def.kind}" must be CamelCase, starting with an upper-case letter`);
  if (!DNS_LABEL.test(def.plural))
    fail(`plural "${def.plural}" must be a lower-case DNS label such as "widgets"`);
  if (def.scope !== 'Namespaced' && def.scope !== 'Cluster')
    fail(`scope must be "Namespaced" or "Cluster", got ${JSON.stringify(def.scope)}`);
  const schema: JSONSchemaProps = def.schema ?? {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  };
  if (schema.type !== 'object') fail('schema.type must be "object" at the root');
  const builtin = isBuiltinGroup(def.group);
  const apiVersion = def.group === '' ? def.version : `${def.group}/${def.version}`;
  const listKind = def.listKind ?? `${def.kind}List`;
  const fromStorage = builtin
    ? (o: Parameters<ResourceType['fromStorage']>[0]) => typedWireForm(o, apiVersion, def.kind)
    : (o: Parameters<ResourceType['fromStorage']>[0]) => ({ ...o, apiVersion, kind: def.kind });
  return {
    group: def.group,
    version: def.version,
    apiVersion,
    resource: def.plural,
    singularName: builtin ? '' : (def.singular ?? def.kind.toLowerCase()),
    kind: def.kind,
    listKind,
    namespaced: def.scope === 'Namespaced',
    shortNames: [...(def.shortNames ?? [])],
    categories: [...(def.categories ?? [])],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    hasStatus: def.subresources?.status === true,
    hasGeneration: true,
    builtin,
    storageKey: `${def.group}/${def.plural}`,
    nameRule: 'subdomain',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: builtin,
    selectableFields: [],
    storageVersionHash: storageVersionHash(def.group, def.version, def.kind),
    schema,
    preserveUnknownFields: schema['x-kubernetes-preserve-unknown-fields'] === true,
    ...(def.printerColumns ? { printerColumns: def.printerColumns } : {}),
    fromStorage,
    toStorage: fromStorage,
  };
}
