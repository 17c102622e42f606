// Every ```ts block of a TSDoc comment in the sources of @rxkube/kube, core, testing, cel and wire (the
// `## Example` of each export) is type-checked, strict, against the sources — as
// scripts/docs-typecheck.test.mjs does for the guides. A block is a snippet: it may use every name the package's entries export without
// importing it (the imports are added, from the most specific entry), and the names of
// `tsdoc-prelude.ts` without declaring them (a client, a Manager, the Widget resource, …). A block
// may also use, without importing them, the names its own module exports (an internal module's
// example calls that module) and, outside core, vitest's `describe`/`it`/`expect`/…; it imports
// the modules beside its own by relative path, as code in that folder does.
// A block that is a shape rather than code is fenced ```ts fragment: counted and listed, not compiled.
//
// When this test was written (issue 20) some blocks did not compile, most for a name of their
// context they do not declare: `NOT_YET_COMPILING` is how many per file, a ratchet — a file may
// have fewer, never more, and a file not listed none. Fix a block, then lower its file's count.
// `TSDOC_ALL=1` lists every block that does not compile; `TSDOC_LEDGER=1` prints the counts.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

import { entryNames } from '../api/entry-names.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = ['kube', 'core', 'testing', 'cel', 'wire'];

/** Blocks per file that do not compile yet (issue 20's baseline); may only go down. */
const NOT_YET_COMPILING = process.env.TSDOC_ALL ? {} : {};

function sources(dir, out = []) {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (p.endsWith('.ts') && !/\.test(\.helper)?\.ts$/.test(p)) out.push(p);
  }
  return out;
}

/** The ```ts blocks of the doc comments of a file, with the line each starts on. */
export function docBlocks(text) {
  const blocks = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const lines = comment[0]
      .split('\n')
      .map((l) => l.replace(/^\s*(\/\*\*|\*\/|\*)\s?/, '').replace(/\*\/$/, ''));
    const start = text.slice(0, comment.index).split('\n').length;
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(ts|typescript)\b(.*)$/.exec(lines[i]);
      if (!open) continue;
      const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      if (end < 0) break;
      blocks.push({
        line: start + i,
        flags: open[2].trim().split(/\s+/),
        code: lines.slice(i + 1, end).join('\n'),
      });
      i = end;
    }
  }
  return blocks;
}

const declaredIn = (code) =>
  new Set(
    [
      ...code.matchAll(/\b(?:const|let|var|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g),
      ...code.matchAll(/\b(?:const|let|var)\s+\{([^}]*)\}/g),
      ...code.matchAll(/\b(?:const|let|var)\s+\[([^\]]*)\]/g),
    ].flatMap((m) => m[1].split(',').map((s) => s.split(':').pop().split('=')[0].trim())),
  );

/** The names a module exports itself (not those it re-exports from elsewhere). */
export function ownExports(text) {
  return new Set([
    ...[
      ...text.matchAll(
        /^export (?:declare )?(?:async )?(?:abstract )?(?:function\*?|const|let|class|interface|type|enum) ([\w$]+)/gm,
      ),
    ].map((m) => m[1]),
    ...[...text.matchAll(/^export (?:type )?\{([^}]*)\}(?! from)/gm)].flatMap((m) =>
      m[1]
        .split(',')
        .map((s) =>
          s
            .trim()
            .split(/\s+as\s+/)
            .pop()
            .replace(/^type\s+/, ''),
        )
        .filter(Boolean),
    ),
  ]);
}

describe('ownExports', () => {
  it('lists the names a module declares and exports, not those it re-exports or its default', () => {
    const text = [
      'export function f() {}',
      'export async function af() {}',
      'export const c = 1;',
      'export interface I {}',
      'export type T = 1;',
      'export abstract class K {}',
      'const g = 1;',
      'type T2 = 2;',
      'export { g as h, type T2 };',
      "export { x } from './x.js';",
      'export default function d() {}',
    ].join('\n');
    expect([...ownExports(text)].sort()).toEqual(['I', 'K', 'T', 'T2', 'af', 'c', 'f', 'h']);
  });
});

describe.each(PACKAGES)('TSDoc examples of @rxkube/%s', (pkg) => {
  const pkgDir = join(root, 'packages', pkg);
  // Inside @rxkube/kube, which depends on the others: every import of a block and of the prelude
  // resolves there. @rxkube/cel is no dependency of kube (it stays out of the watch path): its
  // blocks compile inside @rxkube/testing, which depends on it and on kube.
  const host = pkg === 'cel' ? 'packages/testing' : 'packages/kube';
  const tmp = join(root, host, `.tsdoc-examples-${process.pid}-${pkg}`);
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  const blocks = sources(join(pkgDir, 'src')).flatMap((file) =>
    docBlocks(readFileSync(file, 'utf8')).map((b) => ({ ...b, file: relative(root, file) })),
  );
  const fragments = blocks.filter((b) => b.flags.includes('fragment'));
  const checked = blocks.filter((b) => !b.flags.includes('fragment'));

  it('finds the blocks (and lists the fragments)', () => {
    console.log(
      `tsdoc examples of @rxkube/${pkg}: ${blocks.length} blocks, ${checked.length} checked, ${fragments.length} fragments` +
        fragments.map((b) => `\n  fragment: ${b.file}:${b.line}`).join(''),
    );
    expect(checked.length).toBeGreaterThan({ cel: 15, wire: 3 }[pkg] ?? 40);
  });

  it('type-checks every block that is not a fragment, strict, against the sources', () => {
    // Where a name comes from: the prelude first, then the most specific entry exporting it,
    // then rxjs and rxjs/testing. @rxkube/core's users have neither kube nor testing: its blocks
    // get core's names and rxjs only.
    const prelude = readFileSync(join(root, 'scripts/docs/tsdoc-prelude.ts'), 'utf8');
    const home = new Map();
    if (pkg !== 'core')
      for (const m of prelude.matchAll(/^export (?:declare const|interface|type) ([\w$]+)/gm))
        home.set(m[1], './prelude.js');
    const entries = [...entryNames()].filter(
      ([entry]) => !entry.endsWith('global-setup') && (pkg !== 'core' || entry === '@rxkube/core'),
    );
    for (const [entry, names] of entries.sort((a, b) => b[0].split('/').length - a[0].split('/').length))
      for (const n of names) if (!home.has(n)) home.set(n, entry);
    const require = createRequire(join(root, 'packages/kube/package.json'));
    for (const [spec, mod] of [
      ['rxjs', require('rxjs')],
      ['rxjs/testing', require('rxjs/testing')],
    ])
      for (const n of Object.keys(mod)) if (!home.has(n)) home.set(n, spec);
    // the test kit's blocks are vitest tests: its globals come from vitest, as in a test file
    if (pkg !== 'core')
      for (const n of [
        'describe',
        'it',
        'test',
        'expect',
        'beforeAll',
        'afterAll',
        'beforeEach',
        'afterEach',
        'vi',
      ])
        if (!home.has(n)) home.set(n, 'vitest');
    const generic = new Set(['rxjs', 'rxjs/testing', 'vitest']);

    mkdirSync(tmp, { recursive: true });
    writeFileSync(join(tmp, 'prelude.ts'), prelude);
    const files = checked.map((b, i) => {
      // A block of a module no entry exports (an internal one) uses that module's own exports, and
      // imports the modules beside it by relative path, as code in that folder does.
      const source = join(root, b.file);
      const fromTmp = (path) => {
        const rel = relative(tmp, path).replace(/\.ts$/, '.js');
        return rel.startsWith('.') ? rel : `./${rel}`;
      };
      const own = ownExports(readFileSync(source, 'utf8'));
      const code = b.code.replace(
        /^(import [\s\S]*? from ')(\.\.?\/[^']+)(';)/gm,
        (_, head, spec, tail) => `${head}${fromTmp(join(dirname(source), spec))}${tail}`,
      );
      const declared = declaredIn(b.code);
      const imported = new Set(
        [...b.code.matchAll(/^import [\s\S]*?from/gm)].flatMap((m) => m[0].match(/[\w$]+/g)),
      );
      const byModule = new Map();
      // (a name after `.` is a property, after `...` a spread of the name)
      for (const name of new Set(b.code.match(/(?<![\w$'"`])(?<![^.]\.)[A-Za-z_$][\w$]*/g))) {
        const entry = home.get(name);
        // its own module's name, unless the package (or the prelude) offers it under an entry
        const foreign =
          entry === undefined ||
          generic.has(entry) ||
          (entry !== './prelude.js' && entry !== `@rxkube/${pkg}` && !entry.startsWith(`@rxkube/${pkg}/`));
        const from = own.has(name) && foreign ? fromTmp(source) : entry;
        if (from && !declared.has(name) && !imported.has(name))
          byModule.set(from, [...(byModule.get(from) ?? []), name]);
      }
      const head = [...byModule].map(([from, names]) => `import { ${names.join(', ')} } from '${from}';`);
      const path = join(tmp, `${b.file.replace(/[^\w]+/g, '-')}-L${b.line}-${i}.ts`);
      writeFileSync(path, `${head.join(' ')}\nexport {};\n${code}\n`);
      return path;
    });
    const options = {
      target: ts.ScriptTarget.ES2023,
      lib: ['lib.es2023.d.ts'],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['source'],
      types: ['node'],
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: true,
      noEmit: true,
    };
    const program = ts.createProgram({ rootNames: files, options });
    const failing = new Map(); // file → diagnostics of its failing blocks
    files.forEach((file, i) => {
      const sf = program.getSourceFile(file);
      const diagnostics = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)];
      if (diagnostics.length === 0) return;
      const where = checked[i].file;
      const messages = diagnostics.map((d) => {
        const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line - 1;
        return `${where}:${checked[i].line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
      });
      failing.set(where, [...(failing.get(where) ?? []), messages]);
    });
    const over = [...failing]
      .filter(([file, blocks]) => blocks.length > (NOT_YET_COMPILING[file] ?? 0))
      .flatMap(([file, blocks]) => [
        `${file}: ${blocks.length} blocks do not compile (allowed ${NOT_YET_COMPILING[file] ?? 0}):`,
        ...blocks.flat(),
      ]);
    const better = Object.entries(NOT_YET_COMPILING)
      .filter(([file]) => file.startsWith(`packages/${pkg}/`))
      .filter(([file, allowed]) => (failing.get(file)?.length ?? 0) < allowed)
      .map(([file, allowed]) => `${file}: ${failing.get(file)?.length ?? 0} (was ${allowed})`);
    if (better.length > 0)
      console.log(`tsdoc examples: lower NOT_YET_COMPILING to\n  ${better.join('\n  ')}`);
    console.log(
      `tsdoc examples of @rxkube/${pkg}: ${checked.length - [...failing.values()].flat().length} of ${checked.length} compile`,
    );
    if (process.env.TSDOC_LEDGER)
      console.log(JSON.stringify(Object.fromEntries([...failing].map(([f, b]) => [f, b.length]).sort())));
    expect(over).toEqual([]);
  }, 180_000);
});
