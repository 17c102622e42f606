/**
 * Protobuf messages of policy/v1 PodDisruptionBudget: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** policy/v1 PodDisruptionBudget. */
export const POLICY_V1: MessageDeclarations = {
  'policy.v1.PodDisruptionBudget': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 policy.v1.PodDisruptionBudgetSpec
    status 3 policy.v1.PodDisruptionBudgetStatus`,
  'policy.v1.PodDisruptionBudgetList': `
    metadata 1 meta.v1.ListMeta
    items 2 []policy.v1.PodDisruptionBudget`,
  'policy.v1.PodDisruptionBudgetSpec': `
    minAvailable 1 *IntOrString omitempty
    selector 2 *meta.v1.LabelSelector omitempty
    maxUnavailable 3 *IntOrString omitempty`,
  'policy.v1.PodDisruptionBudgetStatus': `
    observedGeneration 1 int64 omitempty
    disruptedPods 2 map[string]Time omitempty
    disruptionsAllowed 3 int32
    currentHealthy 4 int32
    desiredHealthy 5 int32
    expectedPods 6 int32
    conditions 7 []meta.v1.Condition omitempty`,
};
