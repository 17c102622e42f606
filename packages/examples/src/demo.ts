/**
 * `npm run demo`: starts the embedded API server (`@rxkube/testing`) — or, with `--real`, a real
 * control plane from `KUBEBUILDER_ASSETS` — runs every example operator in one process on one
 * Manager against it over HTTP, applies the samples, plays a scenario and prints a live log and a
 * summary per operator. Exits 0 when every sample converged, 1 otherwise (saying what did not), 2
 * for a usage error or missing control-plane binaries (one line naming them).
 *
 * - `--real`: etcd, kube-apiserver and kube-controller-manager (envtest's binaries) instead of the
 *   embedded server.
 * - `--keep-running`: after the summary, keep the operators and the server up and print a
 *   kubeconfig for kubectl; Ctrl-C stops.
 * - `--hasher`: the ConfigMap hasher demo (watch → Store → debounce → applier, no Manager).
 * - `--core`: the `@rxkube/core`-only demo (no API server).
 */
import { demoMain } from './demo/main.js';

process.exitCode = await demoMain(process.argv.slice(2));
