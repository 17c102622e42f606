import { defineConfig } from 'vitest/config';

// Tests run on the TypeScript sources: workspace packages resolve through the `source` export
// condition, so no build is needed before `vitest`.
export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    include: ['packages/**/src/**/*.test.ts', 'scripts/**/*.test.mjs'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
  },
});
