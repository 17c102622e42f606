import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { assertSupportedNode, MINIMUM_NODE_VERSION } from './node-version.js';

/** A Node older than the supported one on this machine (the system Node), if any. */
function oldNode(): { path: string; version: string } | undefined {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 19)) return { path, version };
  }
  return undefined;
}

describe('Node version guard (issue 12 §3)', () => {
  it('names the required and the running version for an older Node, and accepts a supported one', () => {
    expect(() => assertSupportedNode('20.20.2')).toThrow(
      `@rxkube/kube needs Node >= ${MINIMUM_NODE_VERSION}; this is Node 20.20.2.`,
    );
    expect(() => assertSupportedNode('22.18.0')).toThrow(/needs Node >= 22\.19\.0/);
    expect(() => assertSupportedNode('22.19.0')).not.toThrow();
    expect(() => assertSupportedNode('24.1.0')).not.toThrow();
  });

  const node = oldNode();
  const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  const bin = fileURLToPath(new URL('../../cli/bin/rxkube.js', import.meta.url));
  const why =
    node === undefined
      ? 'no Node older than 22.19 on this machine'
      : !existsSync(dist)
        ? 'packages/kube is not built (tsc -b)'
        : undefined;
  if (why !== undefined) console.log(`skipped: the old-Node import test (${why})`);
  it.skipIf(why !== undefined)(
    'import "@rxkube/kube" and the rxkube command print the required version on an older Node instead of crashing in undici',
    () => {
      const imported = spawnSync(
        node?.path ?? 'node',
        ['--input-type=module', '-e', `await import(${JSON.stringify(dist)})`],
        {
          encoding: 'utf8',
        },
      );
      expect(imported.status).not.toBe(0);
      expect(imported.stderr).toContain(
        `@rxkube/kube needs Node >= ${MINIMUM_NODE_VERSION}; this is Node ${node?.version ?? ''}`,
      );
      expect(imported.stderr).not.toContain('Cannot read properties of undefined'); // undici's crash
      const cli = spawnSync(node?.path ?? 'node', [bin, 'run', 'x.js'], { encoding: 'utf8' });
      expect(cli.status).toBe(1);
      expect(cli.stderr).toBe(
        `rxkube: Node ${node?.version ?? ''} is too old; rxkube needs Node >= 22.19. Install Node 22 LTS or newer (e.g. \`nvm install 22\`).\n`,
      );
    },
  );
});
