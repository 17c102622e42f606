/**
 * Validation as the embedded API server does it: object names, OpenAPI v3 schemas (with pruning
 * and defaults), and label and field selectors.
 *
 * The public names of `validation/`: the entry `@rxkube/testing/validation` is this file (docs/design.md,
 * "Entry points").
 *
 * @module @rxkube/testing/validation
 */
export { validateObjectName } from './names.js';
export type { FieldCause, NameRule } from './names.js';
export { validateAgainstSchema, pruneUnknownFields, applySchemaDefaults } from './schema.js';
export type { JSONSchemaProps } from './schema.js';
export { parseLabelSelector, parseFieldSelector, SelectorError } from '../selectors.js';
export type { LabelSelector, FieldSelector } from '../selectors.js';
