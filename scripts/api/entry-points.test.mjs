// The shape of the public entry points (docs/design.md, "Entry points"): each package's root is
// its users' everyday vocabulary, held at a count; every other entry of @rxkube/kube is a folder's
// `index.ts`, and the root only re-exports names those entries offer.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

import { describe, expect, it } from 'vitest';

import { entryPoints } from './entry-points.mjs';
import { entryNames } from './entry-names.mjs';

/**
 * How many names each package's root entry exports. A name added to a root must be one its users
 * write every day; anything else goes to its folder's entry. Change a count here only with the
 * root's list in the same commit, and say in the commit why the name belongs at the root.
 */
const ROOT_COUNTS = {
  '@rxkube/kube': 56,
  '@rxkube/testing': 47,
  // RxJS's flat operator set: every name is an operator or its options, no building blocks.
  '@rxkube/core': 41,
  // the CRD rules and admission-policy evaluators, their inputs, verdicts and typed errors
  '@rxkube/cel': 19,
  // the wire types kube, testing and cel share (Status, JSONSchemaProps, PolicyRule,
  // LabelSelector), quantities, the FNV-1a shard hash, and the label-selector grammar both sides
  // parse with (its requirements, matcher, printer and two typed errors), and apimachinery's name
  // checks with their messages (the parser and the embedded server's validation): the package has
  // no other entry
  '@rxkube/wire': 28,
};

const entries = entryPoints();
const names = entryNames(entries);

describe('entry points', () => {
  it.each(Object.entries(ROOT_COUNTS))('%s exports %i names at its root', (pkg, count) => {
    const list = names.get(pkg);
    expect(list, `${pkg}'s root exports ${list.length}: ${list.join(', ')}`).toHaveLength(count);
  });

  it("every @rxkube/kube entry other than the root and ./watch is its folder's index.ts", () => {
    const kube = entries.filter(
      (e) => e.pkg.name === '@rxkube/kube' && !['.', './watch'].includes(e.subpath),
    );
    expect(kube.length).toBeGreaterThan(10);
    for (const e of kube) {
      expect(relative(e.dir, e.source), e.name).toBe(`src/${e.subpath.slice(2)}/index.ts`);
      // A folder's index names only what is in its folder or in src/ itself, never another folder.
      const text = readFileSync(e.source, 'utf8').replace(/\/\*[\s\S]*?\*\//g, ''); // not the doc's examples
      for (const [, from] of text.matchAll(/from '([^']+)'/g)) {
        expect(from, `${e.name} re-exports ${from}`).toMatch(/^(\.\/|\.\.\/[^/]+\.js$)/);
      }
    }
  });

  it('@rxkube/kube/watch re-exports whole folder entries, and the root only names other entries offer', () => {
    const text = readFileSync(entries.find((e) => e.name === '@rxkube/kube/watch').source, 'utf8');
    expect(text.match(/^export .*$/gm).every((l) => /^export \* from '\.\/\w+\/index\.js';$/.test(l))).toBe(
      true,
    );
    const elsewhere = new Set(
      [...names].filter(([entry]) => entry.startsWith('@rxkube/kube/')).flatMap(([, list]) => list),
    );
    expect(names.get('@rxkube/kube').filter((n) => !elsewhere.has(n))).toEqual([]);
  });
});
