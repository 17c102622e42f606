import js from '@eslint/js';
import rxjsX from 'eslint-plugin-rxjs-x';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'coverage/**',
      'api-reference/**', // pnpm run docs
      // A user's project: type-checked and run by scripts/pack/pack.test.mjs against the installed
      // tarballs; from the workspace root its @rxkube/* imports do not resolve.
      'scripts/pack/consumer/**',
      // Test reports and the docs' TypeScript blocks while scripts/docs-typecheck.test.mjs checks them.
      '.rxkube/**',
      // The TSDoc examples' context: compiled by scripts/docs/tsdoc-examples.test.mjs from inside a
      // package (its imports resolve there), as are the examples while it checks them.
      'scripts/docs/tsdoc-prelude.ts',
      'packages/*/.tsdoc-examples-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  { ...rxjsX.configs.recommended, files: ['**/*.ts'] },
  {
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // One folder per layer; a layer's internal/ is its own (docs/design.md, "Layers"). What several
    // layers share privately lives in the package's src/internal/, which this pattern allows.
    files: ['packages/*/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              // ./<layer>/internal/… or ../…/<layer>/internal/… (not ../internal/: the package's own)
              regex: '^(?:\\./|(?:\\.\\./)+)(?!\\.\\.?/)[^/]+/internal/',
              message:
                "A layer's internal/ is private to it: import what the layer exports, or move what several layers share to src/internal/.",
            },
            {
              group: ['@rxkube/*/src/*', '@rxkube/*/dist/*'],
              message: 'Import a package by its name (its exports map), not by a path into it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', fetch: 'readonly' } },
  },
);
