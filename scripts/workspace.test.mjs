// The workspace itself: what a fresh clone's first `npm run demo` / `npm test` relies on to install
// without warnings a user would take for a problem, and the root scripts people type.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const readJson = (path) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const rootPkg = readJson('package.json');
const packages = readdirSync(join(root, 'packages'))
  .filter((d) => statSync(join(root, 'packages', d)).isDirectory())
  .map((d) => ({ dir: `packages/${d}`, pkg: readJson(`packages/${d}/package.json`) }));

/** `[major, minor, patch]` of `1.2.3` or of the lower bound of `>=1.2`. */
const version = (v) => {
  const [major = 0, minor = 0, patch = 0] = v
    .replace(/^>=\s*/, '')
    .split('.')
    .map(Number);
  return [major, minor, patch];
};
const atLeast = (v, min) => {
  const [a, b] = [version(v), version(min)];
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
};

describe('workspace', () => {
  it('links every bin from a launcher in the source tree (not from dist/, absent before the build), and ships it', () => {
    const bins = packages.flatMap(({ dir, pkg }) =>
      Object.entries(pkg.bin ?? {}).map(([name, path]) => ({ dir, pkg, name, path })),
    );
    expect(bins.map((b) => b.name).sort()).toEqual(['rxkube', 'rxkube-apiserver', 'rxkube-gen-types']);
    for (const { dir, pkg, name, path } of bins) {
      const file = join(root, dir, path);
      expect(path, `${name}`).not.toMatch(/^(\.\/)?dist\//);
      expect(readFileSync(file, 'utf8').startsWith('#!/usr/bin/env node\n'), `${name} shebang`).toBe(true);
      expect(statSync(file).mode & 0o111, `${name} is executable`).not.toBe(0);
      expect(pkg.files, `${dir} files ship ${name}`).toContain(path.replace(/^\.\//, '').split('/')[0]);
    }
  });

  it('checks engines against the Node the workspace runs on, which every package accepts', () => {
    const workspace = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
    const nodeVersion = /^nodeVersion:\s*(\S+)\s*$/m.exec(workspace)?.[1];
    expect(nodeVersion).toBe(rootPkg.devDependencies.node);
    for (const { dir, pkg } of packages) {
      if (pkg.engines?.node === undefined) continue;
      expect(atLeast(nodeVersion, pkg.engines.node), `${dir} engines ${pkg.engines.node}`).toBe(true);
    }
    // The root asks only what the bootstrap needs (scripts/run.mjs fetches pnpm, which needs 18.12).
    expect(rootPkg.engines.node).toBe('>=18.12');
  });

  it('has no root script named like a tool, so `pnpm <tool>` runs the tool', () => {
    for (const tool of ['vitest', 'eslint', 'prettier', 'tsc', 'node']) {
      expect(Object.keys(rootPkg.scripts), tool).not.toContain(tool);
    }
  });
});
