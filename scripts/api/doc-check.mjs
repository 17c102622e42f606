// Every name a published entry point exports has a TSDoc comment with an example (`@example` or
// an `## Example` heading) — the project's rule for its public API. Reads the TypeScript sources
// of the entry points in each package.json `exports` map (no build needed).
//
//   node scripts/api/doc-check.mjs            lists what is missing; fails unless the package is
//                                             listed in PENDING below
//   node scripts/api/doc-check.mjs --all      fails for every package, PENDING ones included
import { relative } from 'node:path';

import ts from 'typescript';

import { root } from '../pack/pack.mjs';
import { entryPoints } from './entry-points.mjs';

/**
 * Packages whose exports are listed but do not fail the check yet, with the reason. Empty this
 * list when their API settles.
 */
const PENDING = new Map([]);

const strict = process.argv.includes('--all');
const entries = entryPoints();
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

/** The comment text and tag names of a declaration's doc comments. */
function docOf(declaration) {
  const parts = ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc);
  const text = parts.map((d) => ts.getTextOfJSDocComment(d.comment) ?? '').join('\n');
  const tags = parts.flatMap((d) => (d.tags ?? []).map((t) => t.tagName.text));
  return { text: text.trim(), tags };
}

const missing = new Map(); // package → Map(name and place → { what, entries })
let exported = 0;
for (const entry of entries) {
  const source = program.getSourceFile(entry.source);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry.name}: cannot read ${entry.source}`);
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    exported++;
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const declarations = target.declarations ?? [];
    const docs = declarations.map(docOf);
    const hasDoc = docs.some((d) => d.text.length > 0);
    const hasExample = docs.some((d) => d.tags.includes('example') || /^#{1,4}\s*Examples?\b/m.test(d.text));
    if (hasDoc && hasExample) continue;
    const where = declarations[0]
      ? `${relative(root, declarations[0].getSourceFile().fileName)}:${
          declarations[0].getSourceFile().getLineAndCharacterOfPosition(declarations[0].getStart()).line + 1
        }`
      : '?';
    // A name exported by several entry points of a package is listed once.
    const byName = missing.get(entry.pkg.name) ?? new Map();
    const key = `${symbol.name} (${where})`;
    const found = byName.get(key) ?? { what: hasDoc ? 'no example' : 'no doc comment', entries: [] };
    found.entries.push(entry.name);
    byName.set(key, found);
    missing.set(entry.pkg.name, byName);
  }
}

// typedoc (`pnpm run docs`) names the entry points of a package with several by their
// `@module <name>` tag; without one, the main entry is shown with an empty name.
const unnamed = entries
  .filter((e) => Object.keys(e.pkg.exports).length > 1)
  .filter((e) => /@module[ \t]+(\S+)/.exec(program.getSourceFile(e.source)?.text ?? '')?.[1] !== e.name)
  .map((e) => `  ${relative(root, e.source)}: its module comment needs \`@module ${e.name}\``);

let failed = unnamed.length > 0;
if (failed) console.error(`entry points without their name:\n${unnamed.join('\n')}`);
for (const [pkg, byName] of missing) {
  const lines = [...byName].map(([key, { what, entries }]) => `  ${key}: ${what} — ${entries.join(', ')}`);
  const pending = !strict && PENDING.has(pkg);
  console[pending ? 'log' : 'error'](
    `${pkg}: ${lines.length} exports without a doc comment or an example${pending ? ` (pending: ${PENDING.get(pkg)})` : ''}`,
  );
  console[pending ? 'log' : 'error'](lines.join('\n'));
  failed ||= !pending;
}
if (failed) {
  console.error(
    'rxkube: every export needs a TSDoc comment with an example (an `@example` block or an `## Example` heading).',
  );
  process.exit(1);
}
console.log(`doc check: ${exported} exports of ${entries.length} entry points checked`);
