/**
 * Applies YAML manifests (`-f crd.yaml -f sample.yaml`) the way an operator's start-up needs them:
 * Namespaces first, then CustomResourceDefinitions (`ensureCrd`: applied and waited for until
 * Established and served), then everything else with server-side apply. (`rxkube run` applies the
 * Namespaces and CRDs before the module's `setup`, the rest after it.)
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { KubeClient, ObjectLike } from '@rxkube/kube';
import { ensureCrd } from '@rxkube/kube';
import { parseAllDocuments } from 'yaml';

import { CliError } from './errors.js';

/**
 * One parsed document and where it came from (for messages).
 *
 * ## Example
 * ```ts
 * for (const m of readManifests(['sample.yaml'])) {
 *   console.log(m.origin, m.object.kind); // sample.yaml#1 Widget
 * }
 * ```
 */
export interface Manifest {
  /** The document as an object (`apiVersion`, `kind`, `metadata`, …). */
  readonly object: ObjectLike;
  /** `sample.yaml#2` (1-based document index). */
  readonly origin: string;
}

/**
 * Parses every document of the given files; empty documents are skipped.
 *
 * ## Example
 * ```ts
 * const manifests = readManifests(['crd.yaml', 'sample.yaml']);
 * ```
 * @throws {CliError} `InvalidManifest` naming the file and document for unreadable YAML or a
 *   document without `apiVersion`, `kind` and `metadata.name`.
 */
export function readManifests(files: readonly string[], cwd = process.cwd()): Manifest[] {
  const out: Manifest[] = [];
  for (const f of files) {
    const path = resolve(cwd, f);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new CliError('InvalidManifest', `cannot read manifest ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    parseAllDocuments(text).forEach((doc, i) => {
      const origin = `${f}#${i + 1}`;
      if (doc.errors.length > 0) {
        throw new CliError(
          'InvalidManifest',
          `manifest ${origin} is not valid YAML: ${doc.errors[0]?.message ?? ''}`,
        );
      }
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) return;
      const o = value as Partial<ObjectLike> & { metadata?: { name?: unknown; generateName?: unknown } };
      if (
        typeof o !== 'object' ||
        typeof o.apiVersion !== 'string' ||
        typeof o.kind !== 'string' ||
        typeof o.metadata !== 'object' ||
        (typeof o.metadata.name !== 'string' && typeof o.metadata.generateName !== 'string')
      ) {
        throw new CliError(
          'InvalidManifest',
          `manifest ${origin} is not a Kubernetes object: it needs apiVersion, kind and metadata.name`,
        );
      }
      out.push({ object: o, origin });
    });
  }
  return out;
}

const rank = (m: Manifest): number =>
  m.object.kind === 'Namespace' ? 0 : m.object.kind === 'CustomResourceDefinition' ? 1 : 2;

/**
 * Applies manifests in dependency order and returns one line per object.
 *
 * ## Example
 * ```ts
 * for (const line of await applyManifests(client, readManifests(['crd.yaml']))) console.error(line);
 * ```
 * @throws the API error of the first object that fails, prefixed with its origin.
 */
export async function applyManifests(
  client: KubeClient,
  manifests: readonly Manifest[],
  fieldManager = 'rxkube-cli',
): Promise<string[]> {
  const lines: string[] = [];
  for (const m of [...manifests].sort((a, b) => rank(a) - rank(b))) {
    const { kind } = m.object;
    const metadata = m.object.metadata ?? {};
    const ns = typeof metadata.namespace === 'string' ? `${metadata.namespace}/` : '';
    const what = `${kind} ${ns}${String(metadata.name)}`;
    try {
      if (kind === 'CustomResourceDefinition') {
        await ensureCrd(client, m.object, { fieldManager });
        lines.push(`${what} established (${m.origin})`);
      } else {
        await client.apply(m.object, { fieldManager, force: true });
        lines.push(`${what} applied (${m.origin})`);
      }
    } catch (error) {
      throw new CliError(
        'InvalidManifest',
        `applying ${what} from ${m.origin} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  return lines;
}
