/**
 * `npm run demo`: starts the embedded API server (`@rxkube/testing`), runs every example operator
 * in one process on one Manager against it over HTTP, applies the samples, plays a scenario and
 * prints a live log and a summary per operator. Exits 0 when every sample converged, 1 otherwise
 * (saying what did not).
 *
 * - `--keep-running`: after the summary, keep the operators and the server up and print a
 *   kubeconfig for kubectl; Ctrl-C stops.
 * - `--hasher`: the ConfigMap hasher demo (watch → Store → debounce → applier, no Manager).
 * - `--core`: the `@rxkube/core`-only demo (no API server).
 */
import { KubeClient } from '@rxkube/kube';
import { startApiServer } from '@rxkube/testing';
import { runHasherDemo } from '../configmap-hasher/src/demo.js';
import { runCoreDemo } from './core-demo.js';
import { runDemo } from './demo/run-demo.js';

const args = process.argv.slice(2);
if (args.includes('--core')) {
  process.exitCode = (await runCoreDemo()) ? 0 : 1;
} else {
  const server = await startApiServer({ simulateDeployments: true });
  console.log(`embedded API server at ${server.url} (kubeconfig: ${server.kubeconfigPath})\n`);
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  try {
    if (args.includes('--hasher')) {
      process.exitCode = (await runHasherDemo(client)) ? 0 : 1;
    } else {
      const outcome = await runDemo(client, {
        out: (line) => console.log(line),
        beforeStop: async () => {
          if (!args.includes('--keep-running')) return;
          console.log(`\nstill running. Poke at it with kubectl:\n`);
          console.log(`  export KUBECONFIG=${server.kubeconfigPath}`);
          console.log(`  kubectl get widgets,echoservers,copyratorrules,deploymentnotifiers -A`);
          console.log(`  kubectl get configmaps -A -l copyrator.rxkube.io/rule\n`);
          console.log('Ctrl-C stops the operators and the API server.');
          await new Promise<void>((resolve) => {
            process.once('SIGINT', () => resolve());
            process.once('SIGTERM', () => resolve());
          });
        },
      });
      process.exitCode = outcome.converged ? 0 : 1;
    }
  } finally {
    client.close();
    await server.stop();
  }
}
