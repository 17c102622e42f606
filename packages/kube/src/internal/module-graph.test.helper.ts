/**
 * The static, value-level import graph of a source file, for tests that prove what an entry does
 * not load (`watch-graph.test.ts`, `trace/trace-graph.test.ts`): type-only imports and lazy
 * `import()` are left out, as neither loads anything.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

import type * as TS from 'typescript';

const require = createRequire(import.meta.url);
const ts = require('typescript') as typeof TS;

/** Bare specifiers of the modules `entry` loads when imported, following relative imports. */
export function loadedPackages(entry: string): Map<string, string> {
  return moduleGraph(entry).packages;
}

/** The source files `entry` loads when imported (itself included), following relative imports. */
export function loadedFiles(entry: string): Set<string> {
  return moduleGraph(entry).files;
}

function moduleGraph(entry: string): { packages: Map<string, string>; files: Set<string> } {
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
  return { packages, files: seen };
}
