/**
 * Runs copyrator. With `KUBECONFIG` set: against that cluster, until
 * SIGTERM/SIGINT — the operator as it would run in a pod. Without: starts the embedded API
 * server (`@rxkube/testing`), plays the demo scenario (`demo.ts`) and exits 0 when it converged.
 * `--demo` plays the scenario against a cluster too (it creates namespaces platform, team-a,
 * team-b, team-c: use a scratch cluster).
 *
 * ```sh
 * pnpm exec tsc -b packages/examples
 * node packages/examples/dist/copyrator/src/main.js                 # embedded API server + scenario
 * KUBECONFIG=~/.kube/config node packages/examples/dist/copyrator/src/main.js   # a real cluster
 * ```
 *
 * @module
 */
import { KubeClient, Manager } from '@rxkube/kube';
import { startApiServer } from '@rxkube/testing';
import { printSummary, runCopyratorDemo } from './demo.js';
import { name, setup } from './operator.js';

const demo = process.argv.includes('--demo');
const kubeconfig = process.env['KUBECONFIG'];

if (kubeconfig !== undefined && kubeconfig !== '') {
  const client = KubeClient.default();
  const mgr = new Manager({
    client,
    name,
    healthPort: demo ? false : 8081,
    ...(demo ? { logLevel: 'warn' as const } : {}),
  });
  await setup(mgr);
  if (demo) {
    await mgr.start();
    const ok = await runCopyratorDemo(mgr);
    await mgr.stop();
    client.close();
    process.exitCode = ok ? 0 : 1;
  } else {
    process.exitCode = await mgr.run();
    await printSummary(mgr);
    client.close();
  }
} else {
  const server = await startApiServer();
  console.log(`embedded API server at ${server.url} (kubeconfig: ${server.kubeconfigPath})\n`);
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  const mgr = new Manager({ client, name, logLevel: 'warn' });
  try {
    await setup(mgr);
    await mgr.start();
    process.exitCode = (await runCopyratorDemo(mgr)) ? 0 : 1;
  } finally {
    await mgr.stop();
    client.close();
    await server.stop();
  }
}
