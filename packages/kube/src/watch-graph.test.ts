/**
 * `@rxkube/kube/watch` loads neither pino, prom-client, `@kubernetes/client-node` nor
 * `@opentelemetry/api` (issue 21, fast start; watch lines are parsed with JSON.parse, ndjson is gone): the static, value-level import graph of src/watch.ts — type-only imports and lazy
 * `import()` left out, as neither loads anything — names only the packages listed here. The pack
 * test checks the same on the installed package at run time.
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
