/**
 * `npm run demo`: starts the embedded API server (`@rxkube/testing`), runs the ConfigMap hasher
 * against it over HTTP, plays a scenario (creates, updates, a burst on one object, a delete, an
 * object that is not opted in), and prints a live log and a summary. Exits 0 when every opted-in
 * ConfigMap converged to the hash of its latest data, 1 otherwise. `--core` runs the
 * `@rxkube/core`-only demo instead.
 */
import { KubeClient } from '@rxkube/kube';
import { startApiServer } from '@rxkube/testing';
import { runCoreDemo } from './core-demo.js';
import { runHasherDemo } from '../configmap-hasher/src/demo.js';

if (process.argv.includes('--core')) {
  process.exitCode = (await runCoreDemo()) ? 0 : 1;
} else {
  const server = await startApiServer();
  console.log(`embedded API server at ${server.url} (kubeconfig: ${server.kubeconfigPath})\n`);
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  try {
    process.exitCode = (await runHasherDemo(client)) ? 0 : 1;
  } finally {
    client.close();
    await server.stop();
  }
}
