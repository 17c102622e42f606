/**
 * The command behind `npm run demo`: which demo, against which API server.
 *
 * - (default) every example operator on one Manager (`runDemo`), against the embedded API server
 *   with simulated Deployment rollouts;
 * - `--real`: the same against a real control plane — etcd, kube-apiserver and
 *   kube-controller-manager from `KUBEBUILDER_ASSETS` (envtest's binaries), Deployment rollouts
 *   simulated as a client since there is no kubelet — or one line naming what is missing;
 * - `--keep-running`: after the summary, keep the operators and the server up and print a
 *   kubeconfig for kubectl until Ctrl-C;
 * - `--hasher`: the ConfigMap hasher demo (watch → Store → debounce → applier, no Manager);
 * - `--core`: the `@rxkube/core`-only demo (no API server).
 *
 * @module
 */
import { KubeClient } from '@rxkube/kube';
import type { TestCluster } from '@rxkube/testing';
import { startApiServer, startControlPlane } from '@rxkube/testing';
import { ControlPlaneAssetsError } from '@rxkube/testing/control-plane';

import { runHasherDemo } from '../../configmap-hasher/src/demo.js';
import { runCoreDemo } from '../core-demo.js';
import { runDemo } from './run-demo.js';

/** Where the demo writes, what it reads, and how it waits for Ctrl-C (`--keep-running`). */
export interface DemoIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Resolves on SIGINT/SIGTERM. */
  readonly interrupted: () => Promise<void>;
}

const FLAGS = ['--real', '--keep-running', '--hasher', '--core'] as const;

const USAGE = `usage: npm run demo -- [--real] [--keep-running] [--hasher | --core]
  --real          run against a real control plane (KUBEBUILDER_ASSETS: kube-apiserver, etcd, kube-controller-manager)
  --keep-running  keep the operators and the API server up after the summary (Ctrl-C stops)
  --hasher        the ConfigMap hasher demo (the layers without the Manager)
  --core          the @rxkube/core demo (no API server)`;

const defaultIo: DemoIo = {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
  interrupted: () =>
    new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }),
};

/**
 * Runs the demo named by `args`; resolves with the exit code: 0 when it converged, 1 when it did
 * not (saying what did not), 2 for a usage error or a missing control plane (one line).
 *
 * ## Example
 * ```ts
 * process.exitCode = await demoMain(process.argv.slice(2));
 * ```
 */
export async function demoMain(args: readonly string[], io: DemoIo = defaultIo): Promise<number> {
  const unknown = args.filter((a) => !(FLAGS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    io.err(`demo: unknown argument ${unknown.join(' ')}\n${USAGE}`);
    return 2;
  }
  if (args.includes('--core')) return (await runCoreDemo()) ? 0 : 1;

  let cluster: TestCluster;
  if (args.includes('--real')) {
    try {
      cluster = await startControlPlane({
        controllerManager: true,
        simulatePods: true,
        assetsDir: io.env['KUBEBUILDER_ASSETS'] ?? '',
      });
    } catch (error) {
      if (error instanceof ControlPlaneAssetsError) {
        io.err(`demo: --real needs a control plane: ${error.message}`);
        return 2;
      }
      throw error;
    }
    io.out(
      `real control plane (etcd, kube-apiserver, kube-controller-manager; pods marked ready by a stand-in kubelet) at ${cluster.url} (kubeconfig: ${cluster.kubeconfigPath})\n`,
    );
  } else {
    cluster = await startApiServer({ simulateDeployments: true });
    io.out(`embedded API server at ${cluster.url} (kubeconfig: ${cluster.kubeconfigPath})\n`);
  }
  const client = KubeClient.fromKubeConfig(cluster.kubeConfig);
  try {
    if (args.includes('--hasher')) return (await runHasherDemo(client, io.out)) ? 0 : 1;
    const outcome = await runDemo(client, {
      out: io.out,
      beforeStop: async () => {
        if (!args.includes('--keep-running')) return;
        io.out(`\nstill running. Poke at it with kubectl:\n`);
        io.out(`  export KUBECONFIG=${cluster.kubeconfigPath}`);
        io.out(`  kubectl get widgets,echoservers,copyratorrules,deploymentnotifiers -A`);
        io.out(`  kubectl get configmaps -A -l copyrator.rxkube.io/rule\n`);
        io.out('Ctrl-C stops the operators and the API server.');
        await io.interrupted();
      },
    });
    return outcome.converged ? 0 : 1;
  } finally {
    client.close();
    await cluster.stop();
  }
}
