/**
 * Tracing off costs nothing: the static, value-level import graph (type-only imports and lazy
 * `import()` left out, as neither loads anything) of the controller, the Manager and the root
 * entry names no `@opentelemetry/*` package — and neither does `@rxkube/kube/trace`, which loads
 * `@opentelemetry/api` only inside `loadReconcileTracing()`.
 */
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { loadedPackages } from '../internal/module-graph.test.helper.js';

const otel = (entry: string): string[] =>
  [...loadedPackages(fileURLToPath(new URL(entry, import.meta.url))).keys()].filter((s) =>
    s.startsWith('@opentelemetry/'),
  );

describe('the module graph of tracing', () => {
  it('loads no @opentelemetry package from the controller, the Manager or the root entry', () => {
    expect(otel('../controller/controller.ts')).toEqual([]);
    expect(otel('../manager/manager.ts')).toEqual([]);
    expect(otel('../index.ts')).toEqual([]);
  });

  it('loads none from @rxkube/kube/trace either (the API only lazily)', () => {
    expect(otel('./index.ts')).toEqual([]);
  });

  it('would see a static import of an @opentelemetry package (the check can fail)', () => {
    expect(otel('./reconcile-tracing.integration.test.ts')).toEqual(['@opentelemetry/sdk-trace-base']);
  });
});
