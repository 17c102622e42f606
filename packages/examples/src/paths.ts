/**
 * Where an example's files (`crd.yaml`, `sample.yaml`) are, from source (vitest) and from `dist/`
 * alike: resolved against the `@rxkube/examples` package root, found by walking up from this file.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === '@rxkube/examples') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('@rxkube/examples: package.json not found above ' + import.meta.url);
    dir = parent;
  }
}

/**
 * The URL of an example's file, e.g. `exampleFile('copyrator', 'crd.yaml')` →
 * `file:///…/packages/examples/copyrator/crd.yaml`.
 *
 * ## Example
 * ```ts
 * await ensureCrd(client, exampleFile('widget', 'crd.yaml'));
 * ```
 */
export function exampleFile(example: string, file: string): URL {
  return pathToFileURL(join(packageRoot(), example, file));
}
