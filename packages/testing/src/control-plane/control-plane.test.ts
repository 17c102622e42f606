import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { selectedBackends } from '../backends/backends.js';
import { AdminClient } from '../cluster/admin-client.js';
import { ControlPlaneAssetsError, findControlPlaneAssets } from './assets.js';
import type { ControlPlane } from './control-plane.js';
import { startControlPlane } from './control-plane.js';
import { WATCHDOG_SOURCE } from './processes.js';

const alive = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Resolves once `probe()` holds, polling every 50 ms; rejects after `ms`. */
async function eventually(what: string, probe: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('findControlPlaneAssets (envtest: KUBEBUILDER_ASSETS)', () => {
  it('names the variable when it is not set', () => {
    expect(() => findControlPlaneAssets(['etcd'], '')).toThrow(ControlPlaneAssetsError);
    expect(() => findControlPlaneAssets(['etcd'], '')).toThrow(/KUBEBUILDER_ASSETS is not set/);
  });

  it('names every missing binary and how to get them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxkube-assets-'));
    try {
      writeFileSync(join(dir, 'etcd'), '#!/bin/sh\n', { mode: 0o755 });
      writeFileSync(join(dir, 'kube-apiserver'), 'not executable', { mode: 0o644 });
      let error: unknown;
      try {
        findControlPlaneAssets(['etcd', 'kube-apiserver', 'kube-controller-manager'], dir);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ControlPlaneAssetsError);
      expect((error as ControlPlaneAssetsError).missing).toEqual([
        'kube-apiserver',
        'kube-controller-manager',
      ]);
      expect((error as Error).message).toContain(dir);
      expect((error as Error).message).toMatch(/setup-envtest/);
      expect(findControlPlaneAssets(['etcd'], dir)).toBe(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('selectedBackends (RXKUBE_TEST_BACKEND)', () => {
  it('runs the embedded tier alone without binaries, saying how to enable the real one', () => {
    const [embedded, real] = selectedBackends({});
    expect(embedded).toMatchObject({ name: 'embedded', enabled: true });
    expect(real).toMatchObject({ name: 'real', enabled: false, required: false });
    expect(real?.reason).toMatch(/KUBEBUILDER_ASSETS/);
  });

  it('runs the real tier when asked for, even without binaries (so the suite fails naming them)', () => {
    expect(selectedBackends({ RXKUBE_TEST_BACKEND: 'real' }).map((b) => [b.name, b.enabled])).toEqual([
      ['embedded', false],
      ['real', true],
    ]);
    expect(selectedBackends({ RXKUBE_TEST_BACKEND: 'embedded' }).map((b) => b.enabled)).toEqual([
      true,
      false,
    ]);
  });

  it('refuses an unknown value', () => {
    expect(() => selectedBackends({ RXKUBE_TEST_BACKEND: 'kind' })).toThrow(/embedded, real or both/);
  });
});

describe('the control-plane watchdog', () => {
  it('kills the processes of a test process that was killed with SIGKILL', async () => {
    // A stand-in for a test process: starts the watchdog with our source and a long sleep,
    // registers the sleep's PID, prints it, and waits to be killed.
    const parentSource = `
      const { spawn } = require('node:child_process');
      const w = spawn(process.execPath, ['-e', ${JSON.stringify(WATCHDOG_SOURCE)}], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
      const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
      w.stdin.write('+' + sleeper.pid + '\\n');
      process.stdout.write(String(sleeper.pid) + '\\n');
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['-e', parentSource], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      parent.once('error', reject);
    });
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL');
    await eventually('the sleep to be killed by the watchdog', () => !alive(pid));
  });
});

const real = selectedBackends().find((b) => b.name === 'real');
const describeReal = real?.enabled === true ? describe : describe.skip;

describeReal(
  `startControlPlane against the binaries${real?.enabled === true ? '' : ` — skipped: ${real?.reason ?? ''}`}`,
  () => {
    let cp: ControlPlane;
    beforeAll(async () => {
      cp = await startControlPlane({ controllerManager: true });
    }, 120_000);
    afterAll(async () => {
      await cp?.stop();
    }, 60_000);

    it('serves the API over TLS verified with its CA, to the admin token only', async () => {
      expect(cp.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect((await cp.list('namespaces')).map((n) => n.metadata.name)).toEqual(
        expect.arrayContaining(['default', 'kube-system']),
      );
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          `${cp.url}/api/v1/namespaces`,
          { ca: cp.ca, headers: { Authorization: 'Bearer wrong' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(401);
      expect(cp.processes.map((p) => p.name)).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager']);
    });

    it('restartApiServer keeps etcd (objects stay) and empties the watch cache (an old RV gets 410)', async () => {
      expect(cp.kubeConfig.getCurrentCluster()?.server).toBe(cp.url);
      const admin = new AdminClient({ url: cp.url, token: cp.token, ca: cp.ca });
      try {
        const first = await admin.request('POST', '/api/v1/namespaces', { metadata: { name: 'restart-a' } });
        expect(first.status).toBe(201);
        const oldRv = (first.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
        expect(
          (await admin.request('POST', '/api/v1/namespaces', { metadata: { name: 'restart-b' } })).status,
        ).toBe(201);
        const before = await cp.list('namespaces');
        await cp.restartApiServer();
        expect((await cp.list('namespaces')).map((n) => n.metadata.uid)).toEqual(
          before.map((n) => n.metadata.uid),
        );
        const events: { type: string; object: Record<string, unknown> }[] = [];
        const abort = new AbortController();
        const watched = admin.watch(
          `/api/v1/namespaces?watch=true&resourceVersion=${oldRv}`,
          (e) => {
            events.push(e);
            abort.abort();
          },
          abort.signal,
        );
        await watched;
        expect(events[0]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
      } finally {
        admin.close();
      }
    }, 120_000);

    it('stop() kills every process by PID and removes its files', async () => {
      const other = await startControlPlane();
      const pids = other.processes.map((p) => p.pid);
      expect(pids.every(alive)).toBe(true);
      await other.stop();
      expect(pids.some(alive)).toBe(false);
      expect(existsSync(other.dir)).toBe(false);
    }, 120_000);
  },
);
