/**
 * Test data: the request sequences `apply.differential.test.ts` sends to the embedded server and
 * to a real kube-apiserver v1.24, and `apply.scenarios.test.ts` runs on the embedded server alone
 * against the recorded answers. Each names the Kubernetes source it exercises. Not exported from
 * the package.
 *
 * @module
 */
import type { Scenario } from './helpers.js';
import { MANAGED_FIELDS } from './managed-fields.js';
import { SEMANTICS } from './semantics.js';

export { SCENARIOS_FIXTURE, type Scenario, WIDGET_CRD } from './helpers.js';

/** Every scenario, in the order they run (later ones use objects earlier ones made). */
export const SCENARIOS: readonly Scenario[] = [...SEMANTICS, ...MANAGED_FIELDS];
