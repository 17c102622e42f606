/**
 * `@rxkube/kube/watch` loads neither pino, prom-client, `@kubernetes/client-node` nor
 * `@opentelemetry/api` (issue 21, fast start; watch lines are parsed with JSON.parse, ndjson is gone): the static, value-level import graph of src/watch.ts — type-only imports and lazy
 * `import()` left out, as neither loads anything — names only the packages listed here. The pack
 * test checks the same on the installed package at run time.
 */
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { loadedPackages } from './internal/module-graph.test.helper.js';

describe('the module graph of @rxkube/kube/watch', () => {
  it('loads rxjs, yaml, @rxkube/core and Node built-ins only', () => {
    const packages = loadedPackages(fileURLToPath(new URL('./watch.ts', import.meta.url)));
    const names = [...packages.keys()].filter((s) => !s.startsWith('node:')).sort();
    expect(names).toEqual(['@rxkube/core', 'rxjs', 'yaml']);
  });

  it('would see a static import of pino (the check can fail)', () => {
    // the root entry loads the Manager, with pino and prom-client
    const packages = loadedPackages(fileURLToPath(new URL('./index.ts', import.meta.url)));
    expect([...packages.keys()]).toEqual(expect.arrayContaining(['pino', 'prom-client']));
  });
});
