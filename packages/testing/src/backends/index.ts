/**
 * Test backends: the embedded API server or a real control plane, chosen with
 * `RXKUBE_TEST_BACKEND`, behind one `TestCluster` handle.
 *
 * The public names of `backends/`: the entry `@rxkube/testing/backends` is this file (docs/design.md,
 * "Entry points").
 *
 * @module @rxkube/testing/backends
 */
export { REAL_TIER_HOW, selectedBackends, startTestBackend, TEST_BACKEND_ENV } from './backends.js';
export type { BackendName, BackendSelection, TestBackend, TestBackendOptions } from './backends.js';
export type { TestCluster } from '../cluster/cluster.js';
