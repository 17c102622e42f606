/**
 * Applies YAML manifests (`-f crd.yaml -f sample.yaml`) the way an operator's start-up needs them:
 * Namespaces first, then CustomResourceDefinitions (`ensureCrd`: applied and waited for until
 * Established and served), then everything else with server-side apply. (`rxkube run` applies the
 * Namespaces and CRDs before the module's `setup`, the rest after it.)
 *
 * @module
 */
import { resolve } from 'node:path';
import type { KubeClient, ObjectLike } from '@rxkube/kube';
import { ensureCrd } from '@rxkube/kube';
import { ManifestReadError, readManifestDocuments, type ManifestDocument } from '@rxkube/testing/manifests';

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
 * Parses every document of the given files and folders (a folder's `.yaml`, `.yml` and `.json`
 * files in name order, as `kubectl apply -f dir/`); empty documents are skipped and `List` kinds
 * expanded (origin `list.yaml#1.items[0]`). The reader is `@rxkube/testing/manifests`', which the
 * embedded server's `readManifests` shares.
 *
 * ## Example
 * ```ts
 * const manifests = readManifests(['crd.yaml', 'sample.yaml']);
 * ```
 * @throws {CliError} `InvalidManifest` naming the file and document for a missing or unreadable
 *   file, unreadable YAML or a document without `apiVersion`, `kind` and `metadata.name`.
 */
export function readManifests(files: readonly string[], cwd = process.cwd()): Manifest[] {
  let documents: ManifestDocument[];
  try {
    documents = readManifestDocuments(files, cwd);
  } catch (error) {
    if (!(error instanceof ManifestReadError)) throw error;
    const origin = error.origin ?? error.path;
    throw error.failure === 'invalid-yaml'
      ? new CliError('InvalidManifest', `manifest ${origin} is not valid YAML: ${error.detail}`)
      : error.failure === 'not-an-object'
        ? new CliError('InvalidManifest', notAnObject(origin))
        : new CliError(
            'InvalidManifest',
            `cannot read manifest ${resolve(cwd, error.path)}: ${error.detail}`,
            {
              cause: error.cause,
            },
          );
  }
  return documents.map(({ object, origin }) => {
    const o = object as Partial<ObjectLike> & { metadata?: { name?: unknown; generateName?: unknown } };
    if (
      typeof o.apiVersion !== 'string' ||
      typeof o.kind !== 'string' ||
      typeof o.metadata !== 'object' ||
      (typeof o.metadata.name !== 'string' && typeof o.metadata.generateName !== 'string')
    ) {
      throw new CliError('InvalidManifest', notAnObject(origin));
    }
    return { object: o, origin };
  });
}

const notAnObject = (origin: string): string =>
  `manifest ${origin} is not a Kubernetes object: it needs apiVersion, kind and metadata.name`;

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
