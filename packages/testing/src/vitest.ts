/**
 * `@rxkube/testing/vitest`: test helpers that need vitest (an optional peer dependency of
 * `@rxkube/testing`). The types these helpers take and give (`TestBackend`, `ApiServer`, …) are
 * exported by `@rxkube/testing`; its API report lists them as not exported from this entry point.
 *
 * @module @rxkube/testing/vitest
 */
export { describeEachBackend } from './vitest/describe-each-backend.js';
export type {
  BackendContext,
  DescribeEachBackendOptions,
  TestFunction,
} from './vitest/describe-each-backend.js';
export { testScheduler } from './vitest/test-scheduler.js';
