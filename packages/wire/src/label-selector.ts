/**
 * `metav1.LabelSelector`, the object form of a label selector (a Deployment's `spec.selector`, a
 * custom resource's spec): the types only. The text grammar's parser, the matcher and the
 * conversion of this form to requirements are in `label-requirements.ts`.
 *
 * @module
 */

/**
 * The operator of a {@link LabelSelectorRequirement} (`metav1.LabelSelectorOperator`).
 *
 * ## Example
 * ```ts
 * import type { LabelSelectorOperator } from '@rxkube/wire';
 *
 * const op: LabelSelectorOperator = 'NotIn';
 * ```
 */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/**
 * One `matchExpressions` entry (`metav1.LabelSelectorRequirement`): `values` non-empty for `In` and
 * `NotIn`, absent or empty for `Exists` and `DoesNotExist`.
 *
 * ## Example
 * ```ts
 * import type { LabelSelectorRequirement } from '@rxkube/wire';
 *
 * const requirement: LabelSelectorRequirement = { key: 'tier', operator: 'In', values: ['web', 'db'] };
 * ```
 */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values?: readonly string[];
}

/**
 * A `metav1.LabelSelector`, as in a Deployment's `spec.selector` or a custom resource's spec: every
 * `matchLabels` entry and every `matchExpressions` requirement must hold. `{}` selects everything.
 *
 * ## Example
 * ```ts
 * import type { LabelSelector } from '@rxkube/wire';
 *
 * const selector: LabelSelector = {
 *   matchLabels: { app: 'web' },
 *   matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }],
 * };
 * ```
 */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}
