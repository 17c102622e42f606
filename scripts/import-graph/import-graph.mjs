// The import graph of a package's sources (tests left out), type-only imports included: a cycle
// of types is still two modules that cannot be understood, changed or moved one without the
// other (docs/design.md, "Layers"). Resolution is TypeScript's own (NodeNext: `./x.js` → x.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const isSource = (file) =>
  file.endsWith('.ts') && !/\.test(\.helper)?\.ts$/.test(file) && !file.endsWith('.d.ts');

function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (isSource(path)) out.push(path);
  }
  return out;
}

/**
 * `file → files it imports` (relative imports within `srcDir` only), type-only imports and
 * `export … from` included.
 */
export function importGraph(srcDir) {
  const files = sourceFiles(srcDir);
  const known = new Set(files);
  const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
  const host = ts.createCompilerHost(options);
  const graph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const edges = new Set();
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const resolved = ts.resolveModuleName(ref.fileName, file, options, host).resolvedModule;
      if (resolved !== undefined && known.has(resolved.resolvedFileName))
        edges.add(resolved.resolvedFileName);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** Every cycle of the graph as a list of files relative to `root` (one per strongly connected set). */
export function importCycles(srcDir, root = srcDir) {
  const graph = importGraph(srcDir);
  // Tarjan's strongly connected components.
  let index = 0;
  const stack = [];
  const meta = new Map();
  const cycles = [];
  const visit = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index++;
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!meta.has(w)) {
        visit(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) {
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
      }
    }
    if (meta.get(v).low === meta.get(v).index) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? new Set()).has(v)) {
        cycles.push(component.map((f) => relative(root, f)).sort());
      }
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) visit(v);
  return cycles;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? 'packages/kube/src';
  const cycles = importCycles(dir, process.cwd());
  for (const c of cycles) console.log(c.join('\n  ↔ '), '\n');
  console.log(`${cycles.length} import cycle(s) in ${dir}`);
  process.exitCode = cycles.length === 0 ? 0 : 1;
}
