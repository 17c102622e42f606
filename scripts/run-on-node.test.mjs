// The test run is on the Node it claims: the workspace's own (the `node` devDependency) under
// `pnpm run`, or the one scripts/run-on-node.mjs installed (it sets RXKUBE_NODE_VERSION).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { root } from './pack/pack.mjs';

describe('the Node the tests run on', () => {
  it('is the workspace Node, or the one run-on-node.mjs chose', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const expected = process.env.RXKUBE_NODE_VERSION ?? pkg.devDependencies.node;
    expect(process.version).toBe(`v${expected}`);
  });
});
