/**
 * `@rxkube/kube/watch` loads neither pino, prom-client, `@kubernetes/client-node` nor
 * `@opentelemetry/api` (issue 21, fast start; watch lines are parsed with JSON.parse, ndjson is gone),
 * and the root entry loads neither pino, prom-client nor a YAML parser until they are used
 * (`internal/lazy-modules.ts`: `js-yaml` on the first kubeconfig read, `yaml` on a CRD given as text):
 * the static, value-level import graph of src/watch.ts — type-only imports and lazy
 * `import()` left out, as neither loads anything — names only the packages listed here. The pack
 * test checks the same on the installed package at run time.
 */
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { loadedFiles, loadedPackages } from './internal/module-graph.test.helper.js';

describe('the module graph of @rxkube/kube/watch', () => {
  // @rxkube/wire (no dependencies) parses label selectors when a watch is registered
  it('loads rxjs, @rxkube/core, @rxkube/wire and Node built-ins only', () => {
    const packages = loadedPackages(fileURLToPath(new URL('./watch.ts', import.meta.url)));
    const names = [...packages.keys()].filter((s) => !s.startsWith('node:')).sort();
    expect(names).toEqual(['@rxkube/core', '@rxkube/wire', 'rxjs']);
  });

  it('the root entry loads neither pino, prom-client nor a YAML parser at import, only when they are used', () => {
    const packages = loadedPackages(fileURLToPath(new URL('./index.ts', import.meta.url)));
    const names = [...packages.keys()].filter((s) => !s.startsWith('node:')).sort();
    expect(names).not.toContain('pino');
    expect(names).not.toContain('prom-client');
    expect(names).not.toContain('@kubernetes/client-node');
    // kubeconfigs are read with js-yaml (one file), CRD text with yaml (72): both on first use
    expect(names).not.toContain('yaml');
    expect(names).not.toContain('js-yaml');
    // the check can fail: the root entry's graph is wider than ./watch's (draftStatus's immer)
    expect(names).toEqual(expect.arrayContaining(['@rxkube/core', 'immer', 'rxjs']));
  });

  it('imports no built-in whose ES namespace runs costly getters; exec plugins and probes take theirs on use', () => {
    // node:http, https, util, crypto, fs, tls: an ES-module import builds the whole namespace,
    // running every lazy getter (undici, parseArgs and assert's diff, webcrypto, fs.promises);
    // process.getBuiltinModule does not. child_process and perf_hooks load only when used.
    const costly = [
      'node:child_process',
      'node:crypto',
      'node:fs',
      'node:http',
      'node:https',
      'node:perf_hooks',
      'node:tls',
      'node:util',
    ];
    for (const entry of ['./watch.ts', './index.ts']) {
      const packages = loadedPackages(fileURLToPath(new URL(entry, import.meta.url)));
      const builtins = [...packages.keys()].filter((s) => costly.includes(s));
      expect(
        builtins.map((s) => `${s} (${String(packages.get(s))})`),
        entry,
      ).toEqual([]);
    }
  });

  it('the root entry loads the files of its names, not whole folders through their index.ts nor what they use late', () => {
    const src = fileURLToPath(new URL('.', import.meta.url));
    const files = [...loadedFiles(fileURLToPath(new URL('./index.ts', import.meta.url)))].map((f) =>
      f.slice(src.length),
    );
    // the check can fail: ./watch's graph is all five folders' indexes
    expect(
      [...loadedFiles(fileURLToPath(new URL('./watch.ts', import.meta.url)))].filter((f) =>
        f.endsWith('/index.ts'),
      ),
    ).toHaveLength(5);
    expect(files.filter((f) => f.endsWith('/index.ts'))).toEqual([]);
    // what only a folder's entry offers: CRD type generation, RBAC manifests, statusSink
    expect(files).not.toContain('crd/crd-to-typescript.ts');
    expect(files).not.toContain('manager/rbac.ts');
    expect(files).not.toContain('sink/status-sink.ts');
    // and self-managed webhook certificates, imported when a webhook server first issues one
    expect(files).toContain('webhook/webhook-server.ts');
    expect(files).not.toContain('webhook/ensure-certificates.ts');
  });
});
