/**
 * CustomResourceDefinitions: ensuring one is installed and Established, validating it, and
 * generating TypeScript types from its schema.
 *
 * The public names of `crd/`: the entry `@rxkube/kube/crd` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/crd
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { ensureCrd } from './ensure-crd.js';
export type { EnsureCrdOptions, EnsureCrdResult } from './ensure-crd.js';
export { validateCrd } from './validate-crd.js';
export { InvalidCrdError } from './invalid-crd-error.js';
export type { CrdCause } from './invalid-crd-error.js';
export { CrdNotEstablishedError } from './crd-not-established-error.js';
export type {
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionVersion,
  JSONSchemaProps,
} from './custom-resource-definition.js';
export { crdToTypeScript } from './crd-to-typescript.js';
export type { CrdToTypeScriptOptions } from './crd-to-typescript.js';
