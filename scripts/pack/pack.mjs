// Packs the published packages as `pnpm publish` would (workspace: ranges replaced, `files`
// applied), for the pack test (scripts/pack/pack.test.mjs) and `pnpm pack:all`.
//
// Published = every packages/* whose package.json is not `private`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `{ dir, name, pkg }` of each package that is published, in directory order. */
export function publishedPackages() {
  const packagesDir = join(root, 'packages');
  return readdirSync(packagesDir)
    .filter((d) => statSync(join(packagesDir, d)).isDirectory())
    .map((d) => ({
      dir: join(packagesDir, d),
      pkg: JSON.parse(readFileSync(join(packagesDir, d, 'package.json'), 'utf8')),
    }))
    .filter(({ pkg }) => pkg.private !== true)
    .map(({ dir, pkg }) => ({ dir, name: pkg.name, pkg }));
}

/**
 * The environment for npm/pnpm children: `pnpm run` exports its settings as npm_config_*, which
 * another package manager would read as its own; keep only registry, proxy and cache settings.
 */
export function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const k of Object.keys(env)) {
    if (/^npm_config_/i.test(k) && !/registry|proxy|cafile|strict_ssl|cache/i.test(k)) delete env[k];
  }
  return env;
}

/**
 * Runs a command; resolves with its output, rejects with it (and the command) on failure. With
 * `killAfter` (ms) the command runs in a process group of its own, killed whole (SIGKILL) when it
 * has not ended by then — `node` on the PATH may be a launcher whose child a kill of the launcher
 * alone leaves behind — and the promise rejects with what it printed so far.
 */
export function run(cmd, args, options = {}) {
  const { killAfter, ...spawnOptions } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...spawnOptions,
      ...(killAfter === undefined ? {} : { detached: true }),
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer =
      killAfter === undefined
        ? undefined
        : setTimeout(() => {
            killed = true;
            try {
              process.kill(-child.pid, 'SIGKILL');
            } catch {
              // already gone
            }
          }, killAfter);
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && !killed) resolve({ stdout, stderr });
      else {
        const how = killed
          ? `did not end within ${killAfter} ms and was killed`
          : `exited with ${code ?? signal}`;
        const err = new Error(
          `${cmd} ${args.join(' ')} ${how}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`,
        );
        Object.assign(err, { stdout, stderr, code });
        reject(err);
      }
    });
  });
}

/** How to run pnpm: the one running this script (npm_execpath), else `pnpm` from PATH. */
function pnpmCommand() {
  const execPath = process.env.npm_execpath ?? '';
  if (/pnpm/.test(execPath)) {
    return /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath]] : [execPath, []];
  }
  return ['pnpm', []];
}

/** Builds the workspace (`tsc -b`, incremental) so dist/ is current. */
export async function build() {
  await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b'], { cwd: root });
}

/**
 * Removes what `tsc -b` left in `dir`/dist from sources that no longer exist (it never deletes an
 * output): each `x.js.map` whose sources are all gone takes `x.js`, `x.d.ts` and their maps with it.
 * Returns the removed files. (A fresh clone has no dist/; a working copy after a rename does.)
 */
export function pruneStaleOutputs(dir) {
  const removed = [];
  const walk = (d) => {
    if (!existsSync(d)) return;
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.js.map')) {
        const { sources = [] } = JSON.parse(readFileSync(path, 'utf8'));
        if (sources.length === 0 || sources.some((s) => existsSync(resolve(d, s)))) continue;
        const base = path.slice(0, -'.js.map'.length);
        for (const f of [`${base}.js`, `${base}.js.map`, `${base}.d.ts`, `${base}.d.ts.map`]) {
          if (existsSync(f)) {
            rmSync(f);
            removed.push(relative(root, f));
          }
        }
      }
    }
  };
  walk(join(dir, 'dist'));
  return removed;
}

/**
 * Builds, then packs every published package into `outDir`. Resolves with
 * `[{ name, dir, pkg, tarball }]`.
 */
export async function packAll(outDir) {
  mkdirSync(outDir, { recursive: true });
  await build();
  for (const p of publishedPackages()) {
    for (const f of pruneStaleOutputs(p.dir)) console.log(`pack: removed ${f} (its source is gone)`);
  }
  const [cmd, prefix] = pnpmCommand();
  return Promise.all(
    publishedPackages().map(async (p) => {
      const { stdout } = await run(cmd, [...prefix, 'pack', '--json', '--pack-destination', outDir], {
        cwd: p.dir,
        env: cleanEnv(),
      });
      const { filename } = JSON.parse(stdout);
      return { ...p, tarball: filename };
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ?? join(root, '.rxkube', 'pack');
  for (const { name, tarball } of await packAll(outDir)) console.log(`${name}: ${tarball}`);
}
