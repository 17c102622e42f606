/**
 * `@rxkube/testing/vitest`: test helpers that need vitest (an optional peer dependency of
 * `@rxkube/testing`).
 *
 * @module
 */
export { describeEachBackend } from './vitest/describe-each-backend.js';
export type {
  BackendContext,
  DescribeEachBackendOptions,
  TestFunction,
} from './vitest/describe-each-backend.js';
export { testScheduler } from './vitest/test-scheduler.js';
