import { defineConfig } from 'vitest/config';

// Tests run on the TypeScript sources: workspace packages resolve through the `source` export
// condition, so no build is needed before `vitest`. Integration tests written with
// describeEachBackend run once per test backend (RXKUBE_TEST_BACKEND=embedded|real|both; unset:
// embedded, plus real when KUBEBUILDER_ASSETS holds the control-plane binaries); the global setup
// says which at the start of the run.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    include: ['packages/**/src/**/*.test.ts', 'scripts/**/*.test.mjs'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    globalSetup: ['packages/testing/src/vitest/global-setup.ts'],
    testTimeout: 20_000,
  },
});
