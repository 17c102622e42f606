/**
 * The built-in resource types, one file per API group in `kinds/`: core/v1 (`core.ts`), Events in
 * both groups (`events.ts`), apps/v1 (`apps.ts`), coordination.k8s.io (`coordination.ts`),
 * apiextensions.k8s.io (`apiextensions.ts`). A new built-in kind goes into its group's file (or a
 * new one) and into the list below.
 *
 * Does not: emulate every built-in default or validation rule of kube-apiserver (see README).
 *
 * @module
 */
import type { ResourceType } from './types.js';
import { apiextensionsKinds } from './kinds/apiextensions.js';
import { appsKinds } from './kinds/apps.js';
import { coordinationKinds } from './kinds/coordination.js';
import { coreKinds } from './kinds/core.js';
import { eventKinds } from './kinds/events.js';

export { storageVersionHash, typedWireForm } from './kinds/builtin.js';
export { omitEmptyBuiltin } from './kinds/omit-empty.js';

/** Creates the built-in resource types. */
export function builtinTypes(): ResourceType[] {
  return [...coreKinds(), ...eventKinds(), ...appsKinds(), ...coordinationKinds(), ...apiextensionsKinds()];
}
