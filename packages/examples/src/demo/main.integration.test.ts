/**
 * The `npm run demo` command: its arguments, `--real` without binaries (one line naming what is
 * missing), and `--real` with them (the whole demo on a control plane it starts: real tier only).
 */
import { selectedBackends } from '@rxkube/testing';
import { describe, expect, it } from 'vitest';

import type { DemoIo } from './main.js';
import { demoMain } from './main.js';

function io(env: Readonly<Record<string, string | undefined>>) {
  const out: string[] = [];
  const err: string[] = [];
  const demoIo: DemoIo = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env,
    interrupted: () => Promise.resolve(),
  };
  return { out, err, io: demoIo };
}

describe('npm run demo', () => {
  it('refuses an unknown argument with the usage', async () => {
    const r = io({});
    expect(await demoMain(['--frob'], r.io)).toBe(2);
    expect(r.err.join('\n')).toMatch(/^demo: unknown argument --frob\nusage: npm run demo -- \[--real\]/);
  });

  it('--real without control-plane binaries says in one line what is missing and how to get it', async () => {
    const unset = io({});
    expect(await demoMain(['--real'], unset.io)).toBe(2);
    expect(unset.err).toHaveLength(1);
    expect(unset.err[0]).toMatch(
      /^demo: --real needs a control plane: no control-plane binaries: KUBEBUILDER_ASSETS is not set\. Point KUBEBUILDER_ASSETS at a directory holding kube-apiserver, etcd and kube-controller-manager/,
    );
    const missing = io({ KUBEBUILDER_ASSETS: '/nonexistent/rxkube-assets' });
    expect(await demoMain(['--real'], missing.io)).toBe(2);
    expect(missing.err).toEqual([
      expect.stringContaining('/nonexistent/rxkube-assets (KUBEBUILDER_ASSETS) is not a directory'),
    ]);
    expect([...unset.out, ...missing.out]).toEqual([]);
  });

  const real = selectedBackends().find((b) => b.name === 'real');
  it.skipIf(real?.enabled !== true)(
    `--real runs every operator on a real control plane it starts, and converges${
      real?.enabled === true ? '' : ` — skipped: ${real?.reason ?? ''}`
    }`,
    async () => {
      const r = io(process.env);
      const code = await demoMain(['--real'], r.io);
      const text = r.out.join('\n');
      expect(code, text).toBe(0);
      expect(r.out[0]).toMatch(
        /^real control plane \(etcd, kube-apiserver, kube-controller-manager; pods marked ready by a stand-in kubelet\) at https:\/\/127\.0\.0\.1:\d+ \(kubeconfig: /,
      );
      expect(text).toMatch(/converged: every sample reached the state its operator promises/);
      expect(r.err).toEqual([]);
    },
    180_000,
  );
});
