// The published packages as a user gets them: each is packed with `pnpm pack` (what `pnpm
// publish` uploads), linted with publint and arethetypeswrong, checked for what must and must not
// ship, then installed with `npm install` into an empty project outside the workspace — third-party
// dependencies from the registry — where a consumer is type-checked under NodeNext/strict and run.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { brokenMaps, listFiles, manifestProblems, undeclaredImports, unwantedFiles } from './checks.mjs';
import { cleanEnv, packAll, publishedPackages, root, run } from './pack.mjs';

const work = mkdtempSync(join(tmpdir(), 'rxkube-pack-'));
const packed = new Map(); // name → { tarball, dir (unpacked), files, pkg }
const packages = publishedPackages();

beforeAll(async () => {
  for (const p of await packAll(join(work, 'tarballs'))) {
    const dir = join(work, 'unpacked', p.name.replace('/', '+'));
    mkdirSync(dir, { recursive: true });
    await run('tar', ['-xzf', p.tarball, '-C', dir, '--strip-components=1']);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    packed.set(p.name, {
      tarball: p.tarball,
      dir,
      files: listFiles(dir),
      pkg,
      packageDir: relative(root, p.dir),
    });
  }
}, 300_000);

// RXKUBE_PACK_KEEP=1 keeps the tarballs and the consumer project for a look after a failure.
afterAll(async () => {
  if (process.env.RXKUBE_PACK_KEEP) console.log(`pack test: kept ${work}`);
  else await rm(work, { recursive: true, force: true });
}, 120_000);

describe.each(packages.map((p) => [p.name]))('%s as packed', (name) => {
  const get = () => {
    const p = packed.get(name);
    if (!p) throw new Error(`${name} was not packed (see the beforeAll error)`);
    return p;
  };

  it('passes publint (every rule, suggestions included)', { timeout: 60_000 }, async () => {
    const { tarball } = get();
    const buf = readFileSync(tarball);
    const { messages, pkg } = await publint({
      pack: { tarball: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) },
      level: 'suggestion',
      strict: true,
    });
    expect(messages.map((m) => `${m.type} ${m.code}: ${formatMessage(m, pkg)}`)).toEqual([]);
  });

  it(
    'passes arethetypeswrong (ESM-only profile: node16 from ESM and bundlers)',
    { timeout: 60_000 },
    async () => {
      const { tarball } = get();
      const attw = join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
      const { stdout } = await run(
        process.execPath,
        [attw, tarball, '--profile', 'esm-only', '--format', 'json'],
        {
          env: cleanEnv(),
        },
      ).catch((e) => e); // attw exits 1 on problems; its JSON report says which
      expect(stdout, 'attw printed no JSON report').toMatch(/^\{/);
      const report = JSON.parse(stdout);
      // The packages are ESM only (type: module, no require condition), so node10 resolution
      // (no exports maps) and CommonJS `require` from node16 are out of scope: exactly what the
      // esm-only profile ignores. Everything else attw can find must be absent.
      const problems = (report.analysis?.problems ?? []).filter(
        (p) => !['node10', 'node16-cjs'].includes(p.resolutionKind),
      );
      expect(problems).toEqual([]);
      // Every subpath of the exports map was analysed.
      expect(Object.keys(report.analysis.entrypoints).sort()).toEqual(Object.keys(get().pkg.exports).sort());
    },
  );

  it('ships no tests or build info, and every map points at a shipped file', () => {
    const { dir, files } = get();
    expect([...unwantedFiles(files), ...brokenMaps(dir, files)]).toEqual([]);
  });

  it('declares ESM, exports, license, engines, repository; every export target and bin exists', () => {
    const { dir, pkg, packageDir } = get();
    const license = readFileSync(join(root, 'LICENSE'), 'utf8');
    expect(manifestProblems(dir, pkg, packageDir, license)).toEqual([]);
  });

  it('imports only what it declares as a dependency or peer dependency', () => {
    const { dir, pkg, files } = get();
    expect(undeclaredImports(dir, pkg, files)).toEqual([]);
  });
});

describe('installed with npm into an empty project outside the workspace', () => {
  const consumer = join(work, 'consumer');
  const node = (args, options = {}) =>
    run(process.execPath, args, { cwd: consumer, env: cleanEnv(), ...options });

  beforeAll(async () => {
    cpSync(join(root, 'scripts', 'pack', 'consumer'), consumer, { recursive: true });
    const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    writeFileSync(
      join(consumer, 'package.json'),
      `${JSON.stringify({ name: 'rxkube-consumer', private: true, type: 'module' }, null, 2)}\n`,
    );
    const tarballs = packages.map((p) => {
      const entry = packed.get(p.name);
      if (!entry) throw new Error(`${p.name} was not packed (see the first beforeAll error)`);
      return entry.tarball;
    });
    // What a user adds next to the packages: rxjs (their peer dependency) and Node's types.
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--loglevel=error',
        ...tarballs,
        'rxjs@^7.8.0',
        `@types/node@${rootPkg.devDependencies['@types/node']}`,
      ],
      { cwd: consumer, env: cleanEnv() },
    );
  }, 300_000);

  it('type-checks a consumer and our declarations under NodeNext, strict, exactOptionalPropertyTypes', async () => {
    // The workspace's TypeScript, resolving everything from the consumer's node_modules.
    const { stdout } = await node([join(root, 'scripts', 'pack', 'typecheck.mjs')]);
    expect(stdout).toMatch(/^typecheck ok: [1-9]\d* consumer files, [1-9]\d* rxkube declaration files/);
  }, 180_000);

  it.each([['core.ts'], ['kube-watch.ts'], ['kube.ts'], ['testing.ts'], ['wire.ts']])(
    'runs %s',
    async (file) => {
      // Killed (with any child) well before the test's timeout, so a hung consumer fails the test
      // with its output and is not left running.
      const { stdout } = await node([file], { killAfter: 45_000 });
      expect(stdout).toMatch(/ ok\n$/);
    },
    60_000,
  );

  it('@rxkube/kube/watch loads only core, wire and rxjs; @rxkube/kube loads prom-client, pino and js-yaml only when used', async () => {
    const loaded = async (...args) => JSON.parse((await node(['loaded-packages.mjs', ...args])).stdout);
    const watch = await loaded('@rxkube/kube/watch');
    // no pino, prom-client, client-node or @opentelemetry/api (installed here: prom-client's dependency);
    // @rxkube/wire (no dependencies) holds the label-selector parser a watch's selector is checked with
    expect(watch).toEqual(['@rxkube/core', '@rxkube/kube', '@rxkube/wire', 'rxjs']);
    // the root entry loads them when they are first used (src/internal/lazy-modules.ts), not at import
    const root = await loaded('@rxkube/kube');
    expect(root).not.toContain('prom-client');
    expect(root).not.toContain('pino');
    expect(root).not.toContain('js-yaml');
    expect(root).not.toContain('yaml');
    // The control: reading a kubeconfig and constructing a Manager loads them, so the probe sees
    // them when they load; `yaml` (CRD text) still does not.
    const manager = await loaded('@rxkube/kube', 'manager');
    expect(manager).toEqual(expect.arrayContaining(['prom-client', 'pino', 'js-yaml']));
    expect(manager).not.toContain('yaml');
  }, 60_000);

  it('bins work: rxkube --help, rxkube-gen-types, rxkube-apiserver', async () => {
    const bin = (name) => join(consumer, 'node_modules', '.bin', name);
    const help = await run(bin('rxkube'), ['--help'], { cwd: consumer, env: cleanEnv() });
    expect(help.stdout).toMatch(/rxkube run <module/);

    const types = await run(bin('rxkube-gen-types'), ['widget-crd.yaml'], { cwd: consumer, env: cleanEnv() });
    expect(types.stdout).toMatch(/export interface Widget/);

    // In a process group of its own: `node` on the PATH may be a launcher (the `node` npm package's
    // bin) running the real binary as its child, which a kill of the launcher alone leaves behind.
    const server = spawn(bin('rxkube-apiserver'), ['--port', '0'], {
      cwd: consumer,
      env: cleanEnv(),
      detached: true,
    });
    const exited = new Promise((resolve) => server.on('exit', resolve));
    try {
      const url = await new Promise((resolve, reject) => {
        let out = '';
        server.stdout.setEncoding('utf8').on('data', (d) => {
          out += d;
          const m = /listening on (\S+)/.exec(out);
          if (m) resolve(m[1]);
        });
        server.on('exit', (code) => reject(new Error(`rxkube-apiserver exited with ${code}: ${out}`)));
      });
      const res = await fetch(`${url}/version`);
      expect(res.status).toBe(200);
    } finally {
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await exited;
    }
  }, 60_000);
});
