/**
 * The shape of an `apiextensions.k8s.io/v1` CustomResourceDefinition as plain JSON: the fields
 * `ensureCrd` checks and `crdToTypeScript` reads. Unlisted fields pass through untouched.
 *
 * @module
 */
import type { ObjectMeta } from '../types.js';

/**
 * An OpenAPI v3 schema of a CRD version (`JSONSchemaProps`), the structural subset plus the
 * `x-kubernetes-*` extensions.
 *
 * ## Example
 * ```ts
 * const schema: JSONSchemaProps = {
 *   type: 'object',
 *   properties: { spec: { type: 'object', properties: { size: { type: 'integer' } }, required: ['size'] } },
 * };
 * const version: CustomResourceDefinitionVersion = { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } };
 * ```
 */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps | boolean;
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  [keyword: string]: unknown;
}

/**
 * One entry of `spec.versions`.
 *
 * ## Example
 * ```ts
 * const v1: CustomResourceDefinitionVersion = {
 *   name: 'v1',
 *   served: true,
 *   storage: true,
 *   subresources: { status: {} },
 *   schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
 * };
 * ```
 */
export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: Record<string, never>; scale?: Record<string, unknown> };
  additionalPrinterColumns?: Record<string, unknown>[];
  [field: string]: unknown;
}

/**
 * A condition of `status.conditions` (`Established`, `NamesAccepted`, `Terminating`, …).
 *
 * ## Example
 * ```ts
 * const { crd } = await ensureCrd(client, './crd.yaml');
 * const established: CustomResourceDefinitionCondition | undefined = crd.status?.conditions?.find((c) => c.type === 'Established');
 * ```
 */
export interface CustomResourceDefinitionCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/**
 * An `apiextensions.k8s.io/v1` CustomResourceDefinition.
 *
 * ## Example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 * import { parse } from 'yaml';
 *
 * const crd: CustomResourceDefinition = parse(await readFile('crd.yaml', 'utf8'));
 * crd.spec.versions.find((v) => v.storage)?.name;
 * ```
 */
export interface CustomResourceDefinition {
  apiVersion: 'apiextensions.k8s.io/v1';
  kind: 'CustomResourceDefinition';
  metadata: ObjectMeta;
  spec: {
    group: string;
    scope: 'Namespaced' | 'Cluster';
    names: {
      plural: string;
      singular?: string;
      kind: string;
      listKind?: string;
      shortNames?: string[];
      categories?: string[];
    };
    versions: CustomResourceDefinitionVersion[];
    [field: string]: unknown;
  };
  status?: {
    conditions?: CustomResourceDefinitionCondition[] | null;
    acceptedNames?: { plural?: string; kind?: string };
    storedVersions?: string[];
  };
  [field: string]: unknown;
}
