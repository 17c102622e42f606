/**
 * The short names this package's own tests use for the kube-wire fixtures (recorded from a real
 * kube-apiserver v1.24): `loadTranscript('04')`, `exchange(t, 'label…')`. They are the public
 * loader of `../fixtures/kube-wire.ts` (`@rxkube/testing/fixtures`) under the names the replay
 * suite and the table-driven unit tests were written with. Test support only: not exported.
 *
 * @module
 */
import {
  kubeWireExchange,
  kubeWireTranscript,
  kubeWireTranscriptNames,
  type KubeWireTranscriptName,
  type KubeWireTranscriptNumber,
} from '../fixtures/kube-wire.js';

export type {
  KubeWireExchange as Exchange,
  KubeWireRequest as WireRequest,
  KubeWireResponse as WireResponse,
  KubeWireTranscript as Transcript,
} from '../fixtures/kube-wire.js';

/** The transcript file names (`01-discovery.json` ... `22-health.json`), sorted. */
export function transcriptFiles(): string[] {
  return kubeWireTranscriptNames.map((n) => `${n}.json`);
}

/** Reads one transcript by file name (with or without `.json`) or by its two-digit prefix (`'11'`). */
export function loadTranscript(nameOrNumber: string): ReturnType<typeof kubeWireTranscript> {
  return kubeWireTranscript(
    nameOrNumber.replace(/\.json$/, '') as KubeWireTranscriptName | KubeWireTranscriptNumber,
  );
}

/** The exchange whose label starts with `labelPrefix` (throws when absent, naming the file). */
export const exchange = kubeWireExchange;
