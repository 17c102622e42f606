/**
 * apiextensions.k8s.io/v1 CustomResourceDefinition (its behaviour lives in `../crds.ts`).
 *
 * @module
 */
import type { ResourceType } from '../types.js';
import { builtin } from './builtin.js';

/** apiextensions.k8s.io/v1 CustomResourceDefinition. */
export function apiextensionsKinds(): ResourceType[] {
  return [
    builtin({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      resource: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      metaValidation: { flavor: 'generic', onUpdate: 'update' },
      etcdPrefix: '/registry/apiextensions.k8s.io/customresourcedefinitions',
      deleteMarksTimestampOnly: true,
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      hasStatus: true,
      hasGeneration: true,
      knownFields: ['spec', 'status'],
    }),
  ];
}
