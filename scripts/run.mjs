#!/usr/bin/env node
// Bootstrap for a fresh machine: `npm run demo` / `npm test` land here with whatever Node the
// machine has (>= 18). It installs the pinned pnpm (from the npm registry, via npx) and the
// workspace — which brings its own Node 22 binary (the `node` package) — then runs the task with
// pnpm, whose scripts put node_modules/.bin (and so Node 22) first on PATH.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const task = process.argv[2];
const rest = process.argv.slice(3);
if (!task) {
  console.error('usage: node scripts/run.mjs <root script> [args...]');
  process.exit(2);
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// A root script that calls this file must name a different script, or it would call itself.
if (String(pkg.scripts?.[task] ?? '').includes('scripts/run.mjs')) {
  console.error(`rxkube: script "${task}" itself calls scripts/run.mjs; name the script it should run.`);
  process.exit(2);
}
const pnpmVersion = String(pkg.packageManager).replace(/^pnpm@/, '');

// npm exports its own settings as npm_config_* variables; pnpm warns about the ones it does not
// know. Keep the registry and proxy settings, drop the rest.
const env = { ...process.env };
for (const k of Object.keys(env)) {
  if (/^npm_config_/i.test(k) && !/registry|proxy|cafile|strict_ssl|store_dir|cache/i.test(k)) {
    delete env[k];
  }
}

function pnpm(args) {
  const direct = spawnSync('pnpm', ['--version'], { env, encoding: 'utf8', shell: false });
  const cmd =
    direct.status === 0 && direct.stdout.trim() === pnpmVersion
      ? ['pnpm', args]
      : ['npx', ['--yes', `pnpm@${pnpmVersion}`, ...args]];
  const r = spawnSync(cmd[0], cmd[1], {
    cwd: root,
    env,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (r.error) {
    console.error(`rxkube: could not start ${cmd[0]}: ${r.error.message}`);
    return 1;
  }
  return r.status ?? 1;
}

const lockfile = existsSync(join(root, 'pnpm-lock.yaml'));
const installArgs = ['install', '--prefer-offline', ...(lockfile && env.CI ? ['--frozen-lockfile'] : [])];
let status = pnpm(installArgs);
if (status !== 0) {
  console.error('rxkube: `pnpm install` failed (see above). Check that the npm registry is reachable.');
  process.exit(status);
}
status = pnpm(['run', task, ...rest]);
process.exit(status);
