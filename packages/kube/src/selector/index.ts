/**
 * `@rxkube/kube/selector`: label and field selectors parsed and matched as kube-apiserver does —
 * the text form, `metav1.LabelSelector` (`matchLabels` + `matchExpressions`) and plain
 * `matchLabels` — with errors that give the position and the server's own message.
 *
 * @example
 * ```ts
 * import { labelMatcher, parseLabelSelector } from '@rxkube/kube/selector';
 *
 * const matches = labelMatcher({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] });
 * matches({ tier: 'web' }); // true
 * parseLabelSelector('app in (a,b'); // throws InvalidSelectorError: … at position 11 …
 * ```
 *
 * @module @rxkube/kube/selector
 */
export { formatLabelSelector, labelMatcher, parseLabelSelector, toLabelSelector } from './label-selector.js';
export type {
  LabelSelector,
  LabelSelectorInput,
  LabelSelectorOperator,
  LabelSelectorRequirement,
  ParsedLabelSelector,
} from './label-selector.js';
export { parseFieldSelector } from './field-selector.js';
export type { FieldSelectorTerm, ParsedFieldSelector } from './field-selector.js';
export { InvalidSelectorError } from './invalid-selector-error.js';
