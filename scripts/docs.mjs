// `pnpm docs`: the API reference of the published packages, built with typedoc into
// api-reference/ (git-ignored). Each package is documented from its package.json `exports` map —
// the entry points users import and the API reports cover — so the package list comes from the
// same place: every packages/* that is not private. Options: typedoc.json.
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';

import { publishedPackages, root } from './pack/pack.mjs';

const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');
const entryPoints = publishedPackages().flatMap((p) => ['--entryPoints', relative(root, p.dir)]);
const r = spawnSync(
  process.execPath,
  [typedoc, '--options', 'typedoc.json', ...entryPoints, ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
process.exit(r.status ?? 1);
