/**
 * The built-in resource types, one file per API group in `kinds/`: core/v1 (`core.ts`), Events in
 * both groups (`events.ts`), apps/v1 (`apps.ts`), autoscaling/v2 (`autoscaling.ts`), batch/v1
 * (`batch.ts`), networking.k8s.io/v1 (`networking.ts`), policy/v1 (`policy.ts`),
 * apiextensions.k8s.io (`apiextensions.ts`), coordination.k8s.io (`coordination.ts`), authorization.k8s.io's reviews (`authorization.ts`),
 * rbac.authorization.k8s.io (`rbac.ts`), core/v1 ResourceQuota and LimitRange from one table
 * (`namespace-policy.ts`), and the other kinds operators own (PodTemplate, ReplicationController,
 * ControllerRevision, IngressClass, PriorityClass, CSIStorageCapacity) from one table
 * (`operator-kinds.ts`). A new built-in
 * kind goes into its group's file (or a new one) and into the list below; `/apis` lists the groups
 * in kube-apiserver's order whatever the order here (`registry.ts`).
 *
 * Does not: emulate every built-in default or validation rule of kube-apiserver (see README).
 *
 * @module
 */
import type { ResourceType } from './types.js';
import { apiextensionsKinds } from './kinds/apiextensions.js';
import { appsKinds } from './kinds/apps.js';
import { authorizationKinds } from './kinds/authorization.js';
import { autoscalingKinds } from './kinds/autoscaling.js';
import { batchKinds } from './kinds/batch.js';
import { admissionregistrationKinds } from './kinds/admissionregistration.js';
import { coordinationKinds } from './kinds/coordination.js';
import { coreKinds } from './kinds/core.js';
import { eventKinds } from './kinds/events.js';
import { namespacePolicyKinds } from './kinds/namespace-policy.js';
import { operatorKinds } from './kinds/operator-kinds.js';
import { networkingKinds } from './kinds/networking.js';
import { policyKinds } from './kinds/policy.js';
import { rbacKinds } from './kinds/rbac.js';

export { storageVersionHash, typedWireForm } from './kinds/builtin.js';
export { omitEmptyBuiltin } from './kinds/omit-empty.js';

/** Creates the built-in resource types. */
export function builtinTypes(): ResourceType[] {
  return [
    ...coreKinds(),
    ...namespacePolicyKinds(),
    ...eventKinds(),
    ...appsKinds(),
    ...autoscalingKinds(),
    ...batchKinds(),
    ...networkingKinds(),
    ...policyKinds(),
    ...apiextensionsKinds(),
    ...coordinationKinds(),
    ...authorizationKinds(),
    ...rbacKinds(),
    ...admissionregistrationKinds(),
    ...operatorKinds(),
  ];
}
