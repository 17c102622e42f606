// Every TypeScript block of the docs is type-checked against the packages' sources: the guides
// (docs/**/*.md), the READMEs (root, packages/*, packages/examples/*) and CONTRIBUTING.md. Each
// ```ts block is written to a temporary file inside the workspace and the lot is compiled with the
// TypeScript API under the repository's strict settings, `@rxkube/*` resolving to the sources (the
// `source` export condition), so a block that no longer matches the API fails here.
//
// Fence markers (after `ts`):
// - `fragment`: a piece that cannot stand alone (a shape, a line of a larger program); not
//   compiled, but counted, and printed in the summary so reviewers see how many there are.
// - `file=<path>`: the block is that file of the repository, byte for byte (the five-minute guide's
//   operator and its test, which are compiled by `tsc -b` and run by vitest).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

import { codeBlocks, docFiles } from './docs/markdown.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const isTs = (b) => b.lang === 'ts' || b.lang === 'typescript' || b.lang === 'tsx';

// Strict settings of tsconfig.base.json, without the build outputs; `@rxkube/*` → their sources.
const compilerOptions = {
  target: ts.ScriptTarget.ES2023,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  customConditions: ['source'],
  types: ['node'],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noFallthroughCasesInSwitch: true,
  useUnknownInCatchVariables: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  esModuleInterop: false,
  skipLibCheck: true,
  noEmit: true,
};

// Where a block's imports are resolved from when its own folder cannot: a docs block is read as a
// user's file would be, with the packages (and what they depend on, like @kubernetes/client-node)
// installed.
const resolutionHomes = ['examples', 'kube', 'testing', 'cli', 'core'].map((p) =>
  join(root, 'packages', p, 'src', 'index.ts'),
);

/**
 * Type-checks `files` in one program; `homeOf(file)` names extra files to resolve a relative
 * import from (an example's README block imports `./operator.js` of the example's `src/`).
 */
function typecheck(files, homeOf = () => []) {
  const host = ts.createCompilerHost(compilerOptions, true);
  const cache = ts.createModuleResolutionCache(root, (s) => s, compilerOptions);
  host.resolveModuleNameLiterals = (literals, containingFile, _redirect, options, sourceFile) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(sourceFile, literal, options);
      const relativeImport = literal.text.startsWith('.');
      const homes = relativeImport ? homeOf(containingFile) : resolutionHomes;
      for (const from of [containingFile, ...homes]) {
        const r = ts.resolveModuleName(literal.text, from, options, host, cache, undefined, mode);
        if (r.resolvedModule) return r;
      }
      return { resolvedModule: undefined };
    });
  const program = ts.createProgram({ rootNames: files, options: compilerOptions, host });
  return files.map((file) => {
    const sf = program.getSourceFile(file);
    const diagnostics = sf
      ? [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]
      : [];
    return diagnostics.map((d) => {
      const { line } =
        d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : { line: 0 };
      return { line, code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') };
    });
  });
}

const docs = docFiles();
const blocks = docs.flatMap((doc) =>
  codeBlocks(readFileSync(join(root, doc), 'utf8'))
    .filter(isTs)
    .map((b) => ({ ...b, doc })),
);
const fragments = blocks.filter((b) => b.flags.includes('fragment'));
const checked = blocks.filter((b) => !b.flags.includes('fragment'));

// Inside the workspace (so node_modules and the `source` condition apply), removed afterwards.
const tmp = join(root, '.rxkube', `docs-typecheck-${process.pid}`);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('TypeScript blocks of the docs', () => {
  it('finds the blocks (and says how many are fragments)', () => {
    console.log(
      `docs typecheck: ${blocks.length} TypeScript blocks in ${docs.length} files: ${checked.length} checked, ${fragments.length} fragments` +
        fragments.map((b) => `\n  fragment: ${b.doc}:${b.line - 1}`).join(''),
    );
    expect(checked.length).toBeGreaterThan(0);
    expect(docs).toContain('packages/kube/README.md');
  });

  it('type-checks every block that is not marked `fragment`, strict, against the sources', () => {
    mkdirSync(tmp, { recursive: true });
    const files = checked.map((b, i) => {
      if (b.file !== undefined) return join(root, b.file); // checked where it lives (its imports are relative)
      const name = `${b.doc.replace(/[^\w]+/g, '-')}-L${b.line}-${i}.ts`;
      const path = join(tmp, name);
      // A block without import/export would be a script sharing one scope with the others.
      writeFileSync(path, /^\s*(import|export)\s/m.test(b.code) ? b.code : `${b.code}export {};\n`);
      return path;
    });
    const docOf = new Map(files.map((f, i) => [f, checked[i].doc]));
    // A relative import in a README resolves from the folder's src/, then the folder itself.
    const homeOf = (file) => {
      const doc = docOf.get(file);
      return doc === undefined ? [] : ['src/index.ts', 'index.ts'].map((f) => join(root, dirname(doc), f));
    };
    const results = typecheck(files, homeOf);
    const failures = results.flatMap((diagnostics, i) => {
      const b = checked[i];
      return diagnostics.map((d) => `${b.doc}:${b.line + d.line}: TS${d.code} ${d.message}`);
    });
    expect(
      failures,
      `${failures.length} errors in the docs' TypeScript blocks:\n${failures.join('\n')}`,
    ).toEqual([]);
    expect(relative(root, tmp).startsWith('.rxkube')).toBe(true);
  }, 120_000);

  it('keeps every `file=` block identical to the file it names', () => {
    const withFile = blocks.filter((b) => b.file !== undefined);
    for (const b of withFile) {
      expect(b.code, `${b.doc}:${b.line - 1} ≠ ${b.file}`).toBe(readFileSync(join(root, b.file), 'utf8'));
    }
  });

  it('reads fences as Markdown does', () => {
    const md =
      '# t\n\n```ts fragment\na;\n```\n\n- item\n\n  ```ts file=x.ts\n  b;\n  ```\n\n````md\n```ts\nc\n```\n````\n';
    expect(codeBlocks(md)).toEqual([
      { lang: 'ts', flags: ['fragment'], code: 'a;\n', line: 4 },
      { lang: 'ts', flags: [], file: 'x.ts', code: 'b;\n', line: 10 },
      { lang: 'md', flags: [], code: '```ts\nc\n```\n', line: 14 },
    ]);
  });
});
