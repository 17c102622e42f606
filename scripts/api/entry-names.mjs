// The names each published entry point exports, read from the TypeScript sources (the `source`
// export condition; no build needed). Shared by the entry-point test and `--print`:
//
//   node scripts/api/entry-names.mjs   prints `<count> <entry>` for every entry point
import ts from 'typescript';

import { entryPoints } from './entry-points.mjs';

/** `Map(entry name → sorted exported names)` for every entry point of every published package. */
export function entryNames(entries = entryPoints()) {
  const program = ts.createProgram({
    rootNames: entries.map((e) => e.source),
    options: {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['source'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    },
  });
  const checker = program.getTypeChecker();
  const names = new Map();
  for (const entry of entries) {
    const source = program.getSourceFile(entry.source);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`${entry.name}: cannot read ${entry.source}`);
    names.set(
      entry.name,
      checker
        .getExportsOfModule(symbol)
        .map((s) => s.name)
        .sort(),
    );
  }
  return names;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [entry, list] of entryNames()) console.log(String(list.length).padStart(4), entry);
}
