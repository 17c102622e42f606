// The import graph of a package's sources (tests left out), type-only imports included: a cycle
// of types is still two modules that cannot be understood, changed or moved one without the
// other (docs/design.md, "Layers"). Resolution is TypeScript's own (NodeNext: `./x.js` → x.ts).
// `LAYERS` ranks the folders of the layered packages; `upwardImports` lists every import that
// goes up (or sideways between two folders of one rank).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const require = createRequire(import.meta.url);
const ts = require('typescript');

const isSource = (file) =>
  file.endsWith('.ts') && !/\.test(\.helper)?\.ts$/.test(file) && !file.endsWith('.d.ts');

function sourceFiles(dir, out = []) {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
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

/**
 * The ranks of each layered package's folders and top-level files, lowest first
 * (docs/design.md, "Layers"). A file may import a file of its own folder, or of a folder of a
 * lower rank; never one of a higher rank, nor of another folder of its own rank — except in rank 0,
 * the shared modules everything may use (their cycles are caught by `importCycles`). A unit is a
 * folder (`controller`), a top-level file (`errors.ts`), or a more specific path listed here
 * (`internal/applier-loop.ts`), which wins over its folder. Every unit must have a rank.
 */
export const LAYERS = {
  'packages/kube/src': [
    // the shared vocabulary: objects, errors, Status, user-code errors, Node check
    [
      'internal',
      'node-version.ts',
      'status.ts',
      'errors.ts',
      'types.ts',
      'resource.ts',
      'user-code-error.ts',
    ],
    ['config', 'selector'],
    ['transport'],
    ['client'],
    ['watcher'],
    ['reflector'],
    // what a reconcile writes through; the controller's context uses them, so they rank below it
    ['sink', 'finalizer', 'events', 'children', 'crd', 'leader'],
    ['controller'],
    // what the Manager runs beside controllers: metrics, probes and logs; webhooks (issue 23);
    // reconcile traces (issue 24: the controller defines the hooks, trace/ implements them)
    ['ops', 'webhook', 'trace'],
    // the flight recorder, dry run and replay (issue 24): decorate the controllers' Client, redact
    // with ops' logger rules, run controllers in virtual time; the Manager installs them
    ['record'],
    // sharding (issue 22) gates controllers and reports through ops' probes
    ['shard'],
    ['manager'],
    // the entries: ./watch re-exports the folders' index.ts, the root its names' own files
    ['index.ts', 'watch.ts'],
  ],
  'packages/core/src': [
    ['invalid-argument-error.ts', 'errors.ts', 'action.ts', 'internal', 'predicates/meta-object.ts'],
    [
      'backoff.ts',
      'rate-limiter.ts',
      'predicates',
      'run-by-key.ts',
      'sink-by-key.ts',
      'debounce-by-key.ts',
      'group-by-key.ts',
    ],
    ['applier-types.ts'],
    ['internal/applier-loop.ts'],
    ['applier.ts'],
    ['index.ts'],
  ],
  // The embedded API server and the tools around it (issue 20), bottom up: what every layer reads,
  // the request-independent checks and patches, the kinds, the Engine (handlers/), what plugs into
  // it, the HTTP front, the server, then the test kit around a running server. A file listed on its
  // own ranks apart from its folder: it is what lower layers of the server read from that folder.
  'packages/testing/src': [
    // Status errors, users, the object store, JSON values, Go's quoting and field causes; the
    // manifest reader (files, folders, YAML streams, Lists) that rxkube run -f shares
    ['status.ts', 'auth.ts', 'store', 'apply/json-value.ts', 'validation/names.ts', 'manifests'],
    // selector parsing, Go's JSON syntax errors, the recorded OpenAPI schemas, Table printers' cells;
    // what every cluster offers (the Cluster port); the recorded transcripts; fault plans
    [
      'selectors.ts',
      'handlers/go-json.ts',
      'openapi/schemas.ts',
      'table/printers',
      'cluster',
      'fixtures',
      'faults.ts',
    ],
    // object validation, RBAC's rules and authorizer, a kind's type information
    ['shard-selector.ts', 'validation', 'rbac', 'openapi/type-schema.ts'],
    // server-side apply and the patch formats; what a kind is (ResourceType); the audit log
    ['apply', 'patch', 'registry/types.ts', 'audit.ts'],
    // the kinds (strategies, the authorization reviews), protobuf, Tables
    ['registry', 'protobuf', 'table'],
    // the kinds' CEL rules (x-kubernetes-validations), checked on writes and on CRD writes
    ['cel-validation.ts'],
    // the Engine: create, update, patch, delete, list and watch over the store
    ['handlers'],
    // what runs on the Engine: admission, the controllers, CRDs becoming kinds, RBAC's checks and
    // policy, start-up objects
    ['admission', 'controllers', 'registry/crds.ts', 'rbac/engine', 'preload.ts'],
    ['http'],
    // the OpenAPI documents and their handler
    ['openapi'],
    ['server.ts'],
    // around one server: the real control plane, the CLI, transcript replay; the tools of the
    // entries (controller test doubles, permutations, conversion round trips, waitFor)
    ['control-plane', 'cli.ts', 'replay', 'controller', 'permutations.ts', 'conversion', 'wait-for.ts'],
    // a backend of either kind; the tests' HTTP client and twin-server helpers
    ['backends', 'internal'],
    // describeEachBackend, the differential harness, the apply scenarios run on both servers
    ['vitest', 'differential', 'apply/scenarios'],
    // client suites (kubectl, client-go, client-node) on the backends; the rbac entry
    ['clients', 'rbac/index.ts'],
    // the entries
    ['index.ts', 'vitest.ts', 'controller.ts'],
  ],
  // Kubernetes' CEL (issue 23): errors, the schema's values and the cost meter, the libraries, the environment,
  // then what evaluates CRD rules and admission policies
  'packages/cel/src': [
    ['errors.ts', 'field-error.ts', 'schema.ts', 'cost.ts'],
    ['library'],
    ['environment.ts'],
    ['type-check.ts', 'estimator.ts'],
    ['crd.ts', 'policy.ts', 'estimate.ts'],
    ['index.ts'],
  ],
  // Kubernetes' wire vocabulary (issue 20), shared by kube, testing and cel: leaves, then the entry
  'packages/wire/src': [
    [
      'fnv.ts',
      'json-schema-props.ts',
      'label-names.ts',
      'label-selector.ts',
      'policy-rule.ts',
      'quantity.ts',
      'status.ts',
    ],
    ['label-requirements.ts'],
    ['index.ts'],
  ],
  'packages/cli/src': [
    ['errors.ts'],
    ['module-options.ts', 'flags.ts', 'connect.ts', 'manifests.ts', 'webhook-manifests.ts'],
    ['load-module.ts'],
    ['main.ts'],
    ['index.ts'],
    // operator modules the CLI's tests load, written as users write them (through the entry)
    ['fixtures'],
  ],
};

/** The unit of a file: the most specific path of `ranked` it falls under, else its first segment. */
function unitOf(path, ranked) {
  const specific = ranked
    .filter((u) => path === u || path.startsWith(`${u}/`))
    .sort((a, b) => b.length - a.length);
  return specific[0] ?? path.split('/')[0];
}

/**
 * Every import of `srcDir` that breaks `levels` (a `LAYERS` value), as
 * `from → to (unit rank → unit rank)`, and every unit without a rank.
 */
export function upwardImports(srcDir, levels) {
  const graph = importGraph(srcDir);
  const ranked = levels.flat();
  const rank = (unit) => levels.findIndex((level) => level.includes(unit));
  const problems = new Set();
  for (const [file, edges] of graph) {
    const from = relative(srcDir, file);
    const a = unitOf(from, ranked);
    if (rank(a) < 0) {
      problems.add(`${a} has no rank: add it to LAYERS in scripts/import-graph/import-graph.mjs`);
      continue;
    }
    for (const target of edges) {
      const to = relative(srcDir, target);
      const b = unitOf(to, ranked);
      if (a === b || rank(b) < 0) continue;
      if (rank(b) < rank(a) || (rank(a) === 0 && rank(b) === 0)) continue;
      problems.add(`${from} → ${to} (${a} rank ${rank(a)} → ${b} rank ${rank(b)})`);
    }
  }
  return [...problems].sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? 'packages/kube/src';
  const cycles = importCycles(dir, process.cwd());
  for (const c of cycles) console.log(c.join('\n  ↔ '), '\n');
  console.log(`${cycles.length} import cycle(s) in ${dir}`);
  process.exitCode = cycles.length === 0 ? 0 : 1;
}
