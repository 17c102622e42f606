/**
 * The shape of an `apiextensions.k8s.io/v1` CustomResourceDefinition as plain JSON: the fields
 * `ensureCrd` checks and `crdToTypeScript` reads. Unlisted fields pass through untouched.
 *
 * @module
 */
import type { JSONSchemaProps } from '@rxkube/wire';

import type { ObjectMeta } from '../types.js';

// The schema is @rxkube/wire's, shared with the embedded API server.
export type { JSONSchemaProps } from '@rxkube/wire';

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
