/**
 * packages/examples/Dockerfile, checked by reading it (there is no Docker engine where these tests
 * run, so the image is not built here): multi-stage, the pinned Node base and pnpm, a frozen
 * install pruned with `pnpm deploy --prod`, a numeric non-root USER, the probe and metrics ports,
 * exec-form ENTRYPOINT/CMD running `rxkube run`, and COPY sources that exist in the build context.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HEALTH_PORT, METRICS_PORT, SHIPPED_EXAMPLES } from './manifests.js';

const examplesDir = fileURLToPath(new URL('../../', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

interface Instruction {
  readonly op: string;
  readonly args: string;
  readonly stage: number;
}

/** Instructions of a Dockerfile: continuation lines joined, comments dropped, stage index attached. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue; // a comment inside a continued instruction
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^(\S+)\s*(.*)$/s.exec(full);
    if (m === null) continue;
    const op = m[1]!.toUpperCase();
    if (op === 'FROM') stage++;
    out.push({ op, args: m[2]!, stage });
  }
  return out;
}

const text = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
const instructions = parseDockerfile(text);
const stages = Math.max(...instructions.map((i) => i.stage)) + 1;
const finalStage = instructions.filter((i) => i.stage === stages - 1);
const buildStage = instructions.filter((i) => i.stage === 0);
const globalArgs = new Map(
  instructions
    .filter((i) => i.stage === -1 && i.op === 'ARG')
    .map((i) => i.args.split('=') as [string, string]),
);
const rootPackage = JSON.parse(readFileSync(`${repoRoot}package.json`, 'utf8')) as {
  packageManager: string;
  devDependencies: Record<string, string>;
};
const runs = (list: readonly Instruction[]) => list.filter((i) => i.op === 'RUN').map((i) => i.args);
const execForm = (i: Instruction | undefined): string[] => JSON.parse(i?.args ?? 'null') as string[];

describe('packages/examples/Dockerfile (parsed; not built here)', () => {
  it('has a build stage and a runtime stage on the same pinned Node 22 image', () => {
    expect(stages).toBeGreaterThanOrEqual(2);
    const froms = instructions.filter((i) => i.op === 'FROM').map((i) => i.args);
    expect(froms[0]).toMatch(/^\$\{NODE_IMAGE\} AS build$/i);
    expect(froms.at(-1)).toBe('${NODE_IMAGE}');
    const image = globalArgs.get('NODE_IMAGE') ?? '';
    // a full version tag, no digest, no floating `latest`/major-only tag
    expect(image).toMatch(/^node:22\.\d+\.\d+-(alpine|slim)$/);
    // the Node release the repository pins for its own toolchain
    expect(image).toBe(`node:${rootPackage.devDependencies['node']}-alpine`);
  });

  it('installs with pnpm at the root packageManager version (corepack), frozen, without install scripts', () => {
    expect(rootPackage.packageManager).toMatch(/^pnpm@\d+\.\d+\.\d+$/);
    expect(runs(buildStage)).toContain('corepack enable');
    // corepack reads `packageManager`; no other pnpm version may sneak in
    expect(text).not.toMatch(/pnpm@(?!\d)/);
    for (const m of text.matchAll(/pnpm@(\d+\.\d+\.\d+)/g))
      expect(`pnpm@${m[1]}`).toBe(rootPackage.packageManager);
    expect(runs(buildStage)).toContain('pnpm install --frozen-lockfile --ignore-scripts');
  });

  it('compiles, then prunes to production dependencies with pnpm deploy --prod', () => {
    const build = runs(buildStage);
    expect(build.some((r) => /tsc -b packages\/cli packages\/examples/.test(r))).toBe(true);
    const deploy = build.find((r) => r.includes(' deploy '));
    expect(deploy).toMatch(/--filter=@rxkube\/examples/);
    expect(deploy).toMatch(/--prod/);
    // the runtime stage copies only the assembled tree from the build stage
    const copies = finalStage.filter((i) => i.op === 'COPY');
    expect(copies.map((c) => c.args)).toEqual(['--from=build /app ./']);
    expect(runs(finalStage)).toEqual([]);
  });

  it('selects the example with ARG EXAMPLE (default copyrator, a shipped example) and links operator.js to it', () => {
    const arg = buildStage.find((i) => i.op === 'ARG' && i.args.startsWith('EXAMPLE'));
    expect(arg?.args).toBe('EXAMPLE=copyrator');
    expect(SHIPPED_EXAMPLES.map((e) => e.name)).toContain('copyrator');
    expect(runs(buildStage).join('\n')).toContain('ln -s "dist/${EXAMPLE}/src/operator.js" /app/operator.js');
    for (const e of SHIPPED_EXAMPLES)
      expect(existsSync(`${examplesDir}${e.name}/src/operator.ts`)).toBe(true);
  });

  it('runs as a numeric non-root USER, set before the entrypoint', () => {
    const users = finalStage.filter((i) => i.op === 'USER');
    expect(users).toHaveLength(1);
    const [uid, gid] = users[0]!.args.split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    expect(gid).toBeGreaterThan(0);
    const at = (op: string) => finalStage.findIndex((i) => i.op === op);
    expect(at('USER')).toBeLessThan(at('ENTRYPOINT'));
    expect(at('USER')).toBeLessThan(at('CMD'));
  });

  it('exposes 8080 (metrics) and 8081 (probes), with no HEALTHCHECK (Kubernetes probes instead)', () => {
    const exposed = finalStage.filter((i) => i.op === 'EXPOSE').flatMap((i) => i.args.split(/\s+/));
    expect(exposed.sort()).toEqual([String(METRICS_PORT), String(HEALTH_PORT)].sort());
    expect(instructions.some((i) => i.op === 'HEALTHCHECK')).toBe(false);
  });

  it('starts node directly (no shell) on the rxkube bin, CMD `run operator.js` with the ports', () => {
    const entrypoint = execForm(finalStage.find((i) => i.op === 'ENTRYPOINT'));
    expect(entrypoint).toEqual(['node', '/app/node_modules/@rxkube/cli/bin/rxkube.js']);
    const cli = JSON.parse(readFileSync(`${repoRoot}packages/cli/package.json`, 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(cli.bin['rxkube']).toBe('./bin/rxkube.js');
    const cmd = execForm(finalStage.find((i) => i.op === 'CMD'));
    expect(cmd).toEqual([
      'run',
      'operator.js',
      '--health-port',
      String(HEALTH_PORT),
      '--metrics-port',
      String(METRICS_PORT),
    ]);
  });

  it('copies from the build context only files that exist and .dockerignore keeps', () => {
    const ignore = readFileSync(`${repoRoot}.dockerignore`, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(ignore).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
    const ignored = (path: string) =>
      ignore.some((p) => {
        const name = p.replace(/^\*\*\//, '');
        return path === p || path.split('/').includes(name);
      });
    const sources = instructions
      .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const src of sources) {
      expect(existsSync(`${repoRoot}${src}`), `${src} exists`).toBe(true);
      expect(ignored(src), `${src} is not ignored`).toBe(false);
    }
  });
});
