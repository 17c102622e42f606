/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-explicit-any -- fixtures are untyped JSON */
/**
 * kubectl 1.32 with its default flags against the embedded server: `apply -f` and `create -f`
 * download the OpenAPI documents (v3 index, the group-version, then v2 as protobuf) and validate on
 * the client as against a real v1.24 server; `explain` reads v3. Outputs are compared with what the
 * same commands printed against a real kube-apiserver v1.24 (`fixtures/kube-v1.24/kubectl-openapi.json`).
 * Skipped, with the reason printed, where no kubectl binary is installed.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { call } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';

const recorded: any = JSON.parse(
  readFileSync(new URL('../../fixtures/kube-v1.24/kubectl-openapi.json', import.meta.url), 'utf8'),
);
const samples: any = JSON.parse(
  readFileSync(new URL('../../fixtures/kube-v1.24/openapi-samples.json', import.meta.url), 'utf8'),
);

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const available = hasKubectl();
if (!available)
  console.warn('[openapi/kubectl.test] skipped: no kubectl binary on PATH (install kubectl to run it)');

describe.skipIf(!available)('kubectl with default flags (OpenAPI validation, explain)', () => {
  let server: ApiServer;
  let dir: string;
  const kubectl = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      // a fresh cache directory: kubectl caches OpenAPI documents per server
      execFile(
        'kubectl',
        ['--kubeconfig', server.kubeconfigPath, '--cache-dir', join(dir, 'cache'), ...args],
        { timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-kubectl-'));
    server = await startApiServer({ logger: { error: () => undefined } });
    await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: parseYaml(samples.crd),
    });
    for (let i = 0; i < 100 && (await call(server.url, 'GET', '/apis/example.com/v1')).status !== 200; i++)
      await new Promise((r) => setImmediate(r));
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['apply bad.yaml', 'apply w.yaml'])(
    'kubectl %s is refused on the client as by a real server',
    async (key) => {
      const file = join(dir, key.split(' ')[1] ?? 'x.yaml');
      writeFileSync(file, recorded[key].manifest);
      const res = await kubectl('apply', '-f', file);
      expect(res.code).not.toBe(0);
      expect(res.stderr.replaceAll(file, 'FILE')).toBe(
        recorded[key].stderr.replaceAll(`/tmp/kinds-cp/${key.split(' ')[1] ?? ''}`, 'FILE'),
      );
    },
  );

  it('kubectl create -f and apply -f of a valid manifest pass validation and create the objects', async () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(
      file,
      'apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: "0 3 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers: [{name: c, image: busybox}]\n',
    );
    const created = await kubectl('create', '-f', file);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('cronjob.batch/nightly created');
    const applied = await kubectl('apply', '-f', file);
    expect(applied.stdout.trim()).toMatch(/^cronjob\.batch\/nightly (configured|unchanged)$/);
  });

  it.each(['deployment.spec.replicas', 'widgets.spec', 'pvc.spec.accessModes'])(
    'kubectl explain %s prints what it prints against a real server',
    async (what) => {
      const res = await kubectl('explain', what);
      expect(res.stderr).toBe('');
      expect(res.stdout).toBe(recorded[`explain ${what}`]);
    },
  );
});
