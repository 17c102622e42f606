// Every relative link of the docs points at a file of the repository, every `#anchor` at a
// heading of its page, and every file path the docs name in a code span exists: moving a section
// (as the kube README's did into docs/guides/) or a file must not leave the docs behind.
import { existsSync, globSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { anchors, docFiles, namedPaths, relativeLinks, slug } from './docs/markdown.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('links of the docs', () => {
  it('computes anchors as GitHub does', () => {
    expect(slug('Fault matrix (what the watcher does, over HTTP)')).toBe(
      'fault-matrix-what-the-watcher-does-over-http',
    );
    expect(slug('3. A test against a real API server')).toBe('3-a-test-against-a-real-api-server');
    expect(slug('Operations: metrics, probes, logs')).toBe('operations-metrics-probes-logs');
    expect(slug('`controller()`')).toBe('controller');
    expect([...anchors('# A\n## B\n```\n# not\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
  });

  it('resolves every relative link and anchor', () => {
    const broken = [];
    for (const doc of docFiles()) {
      const text = readFileSync(join(root, doc), 'utf8');
      for (const { target, line } of relativeLinks(text)) {
        const [path = '', anchor] = target.split('#');
        const file =
          path === '' ? join(root, doc) : normalize(join(root, dirname(doc), decodeURIComponent(path)));
        if (!existsSync(file)) {
          broken.push(`${doc}:${line}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && anchor !== '' && file.endsWith('.md') && statSync(file).isFile()) {
          if (!anchors(readFileSync(file, 'utf8')).has(anchor))
            broken.push(`${doc}:${line}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('names only files that exist', () => {
    const missing = [];
    for (const doc of docFiles()) {
      const text = readFileSync(join(root, doc), 'utf8');
      // `src/…` is relative to the package of a README, or to what a guide says it is relative to.
      const base =
        /^(packages\/(?:examples\/)?[\w-]+)\/README\.md$/.exec(doc)?.[1] ??
        /File paths in this guide are relative to \[`(packages\/[\w-]+)\/`\]/.exec(text)?.[1];
      for (const { path, line } of namedPaths(text, base)) {
        const found = path.includes('*')
          ? globSync(path, { cwd: root }).length > 0
          : existsSync(join(root, path));
        if (!found) missing.push(`${doc}:${line}: ${path}`);
      }
    }
    expect(missing, missing.join('\n')).toEqual([]);
  });
});
