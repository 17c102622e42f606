/**
 * `@rxkube/wire`: Kubernetes' wire vocabulary, in one place both sides of the wire import — the
 * client (`@rxkube/kube`), the embedded API server (`@rxkube/testing`) and the CEL evaluator
 * (`@rxkube/cel`) — so neither has to depend on the other for it. No dependencies, no I/O.
 *
 * @packageDocumentation
 */
export { bucketOf, bucketRange, fnv1a64, fnv1a64InRange } from './fnv.js';
export { parseQuantity, type Quantity, type QuantityFormat } from './quantity.js';
export type { Status, StatusCause, StatusDetails } from './status.js';
export type { JSONSchemaProps } from './json-schema-props.js';
export type { PolicyRule } from './policy-rule.js';
export {
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  labelValueErrors,
  qualifiedNameErrors,
} from './label-names.js';
export type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from './label-selector.js';
export {
  formatLabelRequirements,
  LabelSelectorFieldError,
  LabelSelectorSyntaxError,
  labelRequirementError,
  labelRequirementMatches,
  labelSelectorRequirements,
  parseLabelRequirements,
  type LabelRequirement,
  type LabelRequirementOperator,
} from './label-requirements.js';
