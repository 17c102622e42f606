#!/usr/bin/env node
// Runs a root script of the workspace on another Node than the workspace's own (Node 22, the `node`
// devDependency), fetched from the npm registry like that one:
//
//   node scripts/run-on-node.mjs 24 test:run                      # the test suite on Node 24
//   node scripts/run-on-node.mjs 24 -- vitest run packages/core   # any command line
//
// The Node binary is the registry package the `node` package itself installs
// (node-<platform>-<arch>@<version>), kept in .rxkube/node/<version>/. The script runs through
// `sh -c` as `pnpm run` would, with a PATH whose `node` is that binary and whose tools (vitest,
// tsc, …) are links to their JavaScript entry points, so they start on it too. (pnpm's own
// node_modules/.bin shims prefer the `node` beside them, which is Node 22.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Node releases CI runs on besides the workspace's own; bump with the release lines. */
export const PINNED = { 24: '24.21.0' };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function fail(message) {
  console.error(`rxkube: ${message}`);
  process.exit(2);
}

/** Installs (once) and returns the path of the Node binary of `version`. */
export function ensureNode(version) {
  const dir = join(root, '.rxkube', 'node', version);
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  const name = `${prefix}-${platform}-${process.arch}`;
  const pkgJson = join(dir, 'node_modules', name, 'package.json');
  if (!existsSync(pkgJson)) {
    console.error(`rxkube: installing Node ${version} (${name}) from the npm registry into ${dir}`);
    mkdirSync(dir, { recursive: true });
    const env = { ...process.env };
    for (const k of Object.keys(env)) {
      if (/^npm_config_/i.test(k) && !/registry|proxy|cafile|strict_ssl|cache/i.test(k)) delete env[k];
    }
    const r = spawnSync(
      'npm',
      [
        'install',
        '--prefix',
        dir,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        `${name}@${version}`,
      ],
      { stdio: 'inherit', env, shell: process.platform === 'win32' },
    );
    if (r.status !== 0 || !existsSync(pkgJson)) fail(`could not install ${name}@${version} (see above).`);
  }
  const bin = JSON.parse(readFileSync(pkgJson, 'utf8')).bin?.node;
  if (typeof bin !== 'string') fail(`${name}@${version} has no bin.node`);
  return resolve(dirname(pkgJson), bin);
}

/**
 * A directory for the front of PATH: `node` → `nodeBinary`, and each bin of the root's
 * dependencies → its JavaScript file (whose `#!/usr/bin/env node` then finds that `node`).
 */
function binDir(version, nodeBinary) {
  const dir = join(root, '.rxkube', 'node', version, 'path');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  symlinkSync(nodeBinary, join(dir, 'node'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    const depJson = join(root, 'node_modules', dep, 'package.json');
    if (dep === 'node' || !existsSync(depJson)) continue;
    const { bin, name } = JSON.parse(readFileSync(depJson, 'utf8'));
    const bins = typeof bin === 'string' ? { [name.replace(/^@[^/]+\//, '')]: bin } : (bin ?? {});
    for (const [binName, file] of Object.entries(bins)) {
      if (!existsSync(join(dir, binName))) symlinkSync(resolve(dirname(depJson), file), join(dir, binName));
    }
  }
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [wanted, script, ...rest] = process.argv.slice(2);
  if (!wanted || !script) {
    fail(
      'usage: node scripts/run-on-node.mjs <major|version> (<root script> [args...] | -- <command> [args...])',
    );
  }
  if (process.platform === 'win32') fail('run-on-node needs a POSIX shell (Linux or macOS).');
  const version = PINNED[wanted] ?? (/^\d+\.\d+\.\d+$/.test(wanted) ? wanted : undefined);
  if (!version) fail(`no pinned Node ${wanted}; pinned: ${Object.keys(PINNED).join(', ')} (or give x.y.z).`);
  // `--` runs the rest as a command line instead of a root script: `… 24 -- vitest run packages/core`.
  const command =
    script === '--' ? '' : JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts?.[script];
  if (typeof command !== 'string') fail(`no root script "${script}".`);
  if (script === '--' && rest.length === 0) fail('nothing to run after --');

  const nodeBinary = ensureNode(version);
  const front = binDir(version, nodeBinary);
  // Drop every node_modules/.bin (pnpm run put them first): their shims would start Node 22.
  const path = (process.env.PATH ?? '').split(delimiter).filter((p) => !/node_modules[\\/]\.bin$/.test(p));
  // RXKUBE_NODE_VERSION: scripts/run-on-node.test.mjs checks the tests really run on it.
  const env = { ...process.env, PATH: [front, ...path].join(delimiter), RXKUBE_NODE_VERSION: version };
  const shown = spawnSync(nodeBinary, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.error(`rxkube: running "${script === '--' ? rest.join(' ') : script}" on Node ${shown}`);
  const quoted = rest.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const r = spawnSync('sh', ['-c', `${command} ${quoted}`.trim()], { cwd: root, env, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
