// The public entry points of the published packages, read from each package.json `exports` map —
// the one list that the API reports, the doc check and the API reference share.
import { join } from 'node:path';

import { publishedPackages } from '../pack/pack.mjs';

/**
 * `[{ pkg, dir, subpath, name, source, types, reportName }]` for every subpath export of every
 * published package: `source` is the TypeScript entry (the `source` condition), `types` its built
 * declarations, `reportName` the API report's file name (`kube`, `kube-watch`, `testing-vitest`).
 */
export function entryPoints() {
  return publishedPackages().flatMap(({ dir, pkg }) =>
    Object.entries(pkg.exports ?? {}).map(([subpath, conditions]) => {
      const unscoped = pkg.name.replace(/^@[^/]+\//, '');
      const rest = subpath === '.' ? '' : subpath.replace(/^\.\//, '');
      return {
        pkg,
        dir,
        subpath,
        name: rest ? `${pkg.name}/${rest}` : pkg.name,
        source: join(dir, conditions.source),
        types: join(dir, conditions.types),
        reportName: [unscoped, ...rest.split('/').filter(Boolean)].join('-'),
      };
    }),
  );
}
