/**
 * Loads the kube-wire transcripts (recorded from a real kube-apiserver v1.24) that the replay
 * suite and the table-driven unit tests compare against. Test support only: not exported.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** One recorded request. */
export interface WireRequest {
  method: string;
  path: string;
  headers: { 'Content-Type'?: string; Accept?: string };
  body: unknown;
  auth?: string;
}

/** One recorded response (watch streams keep their lines in `body.lines`). */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  trimmed?: unknown;
  stream?: unknown;
  wire?: unknown;
}

/** One request/response pair of a transcript. */
export interface Exchange {
  label: string;
  atMs?: { sent: number; done: number };
  request: WireRequest;
  response?: WireResponse;
  redacted?: string;
  error?: string;
}

/** A whole transcript file. */
export interface Transcript {
  scenario: string;
  description: string;
  server: string;
  exchanges: Exchange[];
  notes?: string[];
}

/** The folder holding the transcripts: `/work/shared/kube-wire` next to the repository. */
export const KUBE_WIRE_DIR = fileURLToPath(new URL('../../../../../shared/kube-wire/', import.meta.url));

/** The transcript file names (`01-discovery.json` ... `22-health.json`), sorted. */
export function transcriptFiles(): string[] {
  return readdirSync(KUBE_WIRE_DIR)
    .filter((f) => /^\d\d-.*\.json$/.test(f))
    .sort();
}

/** Reads one transcript by file name or by its two-digit prefix (`'11'`). */
export function loadTranscript(nameOrNumber: string): Transcript {
  const file = /^\d\d$/.test(nameOrNumber)
    ? transcriptFiles().find((f) => f.startsWith(`${nameOrNumber}-`))
    : nameOrNumber;
  if (file === undefined)
    throw new Error(`no kube-wire transcript numbered ${nameOrNumber} in ${KUBE_WIRE_DIR}`);
  return JSON.parse(readFileSync(`${KUBE_WIRE_DIR}${file}`, 'utf8')) as Transcript;
}

/** The exchange whose label starts with `labelPrefix` (throws when absent, naming the file). */
export function exchange(t: Transcript, labelPrefix: string): Exchange {
  const found = t.exchanges.find((e) => e.label.startsWith(labelPrefix));
  if (found === undefined)
    throw new Error(`transcript ${t.scenario} has no exchange labelled "${labelPrefix}..."`);
  return found;
}
