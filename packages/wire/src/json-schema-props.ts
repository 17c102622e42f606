/**
 * `apiextensions.k8s.io/v1` `JSONSchemaProps`: the OpenAPI v3 schema of a CustomResourceDefinition
 * version, as `@rxkube/kube/crd` reads it (`crdToTypeScript`, `ensureCrd`) and the embedded API
 * server validates, prunes and defaults with it.
 *
 * @module
 */

/**
 * An OpenAPI v3 schema of a CRD version (`JSONSchemaProps`): the structural subset and the
 * `x-kubernetes-*` extensions by name; any other keyword passes through as `unknown`.
 *
 * ## Example
 * ```ts
 * const schema: JSONSchemaProps = {
 *   type: 'object',
 *   properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } }, required: ['size'] } },
 * };
 * ```
 */
export interface JSONSchemaProps {
  /** One of the six OpenAPI types; any other string can reach a server too, which refuses it. */
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | (string & {});
  description?: string;
  format?: string;
  properties?: Record<string, JSONSchemaProps>;
  required?: string[];
  items?: JSONSchemaProps;
  additionalProperties?: JSONSchemaProps | boolean;
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  [keyword: string]: unknown;
}
