/**
 * Tracing off costs nothing: the static, value-level import graph (type-only imports and lazy
 * `import()` left out, as neither loads anything) of the controller, the Manager and the root
 * entry names no `@opentelemetry/*` package — and neither does `@rxkube/kube/trace`, which loads
 * `@opentelemetry/api` only inside `loadReconcileTracing()`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import type * as TS from 'typescript';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const ts = require('typescript') as typeof TS;

/** Bare specifiers of the modules `entry` loads when imported, following relative imports. */
function loadedPackages(entry: string): Map<string, string> {
  const packages = new Map<string, string>(); // specifier → first file importing it
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
    for (const st of sf.statements) {
      let spec: string | undefined;
      if (ts.isImportDeclaration(st)) {
        const clause = st.importClause;
        const typeOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined &&
              clause.namedBindings !== undefined &&
              ts.isNamedImports(clause.namedBindings) &&
              clause.namedBindings.elements.length > 0 &&
              clause.namedBindings.elements.every((e) => e.isTypeOnly)));
        if (!typeOnly) spec = (st.moduleSpecifier as TS.StringLiteral).text;
      } else if (ts.isExportDeclaration(st) && st.moduleSpecifier !== undefined && !st.isTypeOnly) {
        const named = st.exportClause;
        const allTypes =
          named !== undefined && ts.isNamedExports(named) && named.elements.every((e) => e.isTypeOnly);
        if (!allTypes) spec = (st.moduleSpecifier as TS.StringLiteral).text;
      }
      if (spec === undefined) continue;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!packages.has(spec)) packages.set(spec, file);
    }
  };
  visit(entry);
  return packages;
}

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
