/**
 * The fields each endpoint's registry strategy resets before storing (`GetResetFields` of the
 * kube-apiserver v1.24 strategies: `pkg/registry/<group>/<kind>/strategy.go`, apiextensions-apiserver's
 * `customresource/strategy.go` and `status_strategy.go`), which server-side apply and updates
 * leave unowned (`IgnoredFields`). Checked against a real v1.24 server by applying metadata, spec
 * and status through both endpoints of every kind with a status subresource
 * (`apply.differential.test.ts`).
 *
 * @module
 */

/** What the table needs to know about a served type. */
export interface ResetFieldsType {
  readonly group: string;
  readonly kind: string;
  readonly hasStatus: boolean;
  /** A custom resource (served from a CRD or an added kind), not a built-in Go type. */
  readonly custom: boolean;
}

/** Status strategies that reset more than `spec`. */
const STATUS_RESETS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  'apps/Deployment': [['spec'], ['metadata', 'labels']],
  '/Pod': [['spec'], ['metadata', 'deletionTimestamp'], ['metadata', 'ownerReferences']],
  'apiextensions.k8s.io/CustomResourceDefinition': [['metadata'], ['spec']],
};

/**
 * The reset fields of a write to `subresource` (none for the main resource) of `type`: `status`
 * on the main resource and `spec` (plus the exceptions above) on `/status` of a type with a
 * status subresource; nothing otherwise.
 *
 * ## Example
 * ```ts
 * resetFieldsFor({ group: 'apps', kind: 'Deployment', hasStatus: true, custom: false }, 'status');
 * // [['spec'], ['metadata', 'labels']]
 * ```
 */
export function resetFieldsFor(
  type: ResetFieldsType,
  subresource: string | undefined,
): readonly (readonly string[])[] {
  if (!type.hasStatus) return [];
  if (subresource === undefined) return [['status']];
  if (subresource !== 'status') return [];
  if (type.custom) return [['spec']];
  return STATUS_RESETS[`${type.group}/${type.kind}`] ?? [['spec']];
}
