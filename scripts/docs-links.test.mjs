// Every relative link of the docs points at a file of the repository, and every `#anchor` at a
// heading of its page: moving a section (as the kube README's did into docs/guides/) must not
// leave links behind.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { anchors, docFiles, relativeLinks, slug } from './docs/markdown.mjs';

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
});
