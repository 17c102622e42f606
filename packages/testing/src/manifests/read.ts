/**
 * The manifest reader both `rxkube run -f` (`@rxkube/cli`) and the embedded server's start-up
 * objects (`readManifests`, `rxkube-apiserver -f`) use: files and folders (a folder's `.yaml`,
 * `.yml` and `.json` files in name order, not recursively, as `kubectl apply -f dir/`), several
 * YAML documents per file, `List` kinds expanded, each document with its origin. Only `yaml` and
 * `node:fs`: importing it does not load the server.
 *
 * What it does not do: check that a document is a Kubernetes object. Each caller does, with its
 * own errors.
 *
 * @module
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { parseAllDocuments } from 'yaml';

/**
 * One document read by {@link readManifestDocuments}, with where it came from.
 *
 * ## Example
 * ```ts
 * import { readManifestDocuments, type ManifestDocument } from '@rxkube/testing/manifests';
 *
 * const [first]: ManifestDocument[] = readManifestDocuments(['sample.yaml']);
 * console.log(first?.origin); // sample.yaml#1
 * ```
 */
export interface ManifestDocument {
  /** The document (or a `List`'s item) as parsed. */
  readonly object: Readonly<Record<string, unknown>>;
  /** `sample.yaml#2` (1-based document index), `deploy/list.yaml#1.items[0]` for a `List`'s item. */
  readonly origin: string;
  /** The file, as given or joined to the given folder. */
  readonly file: string;
}

/**
 * Why {@link readManifestDocuments} failed: `not-found` (no such file or folder), `unreadable`,
 * `invalid-yaml`, `not-an-object` (a document is a scalar or an array).
 *
 * ## Example
 * ```ts
 * import type { ManifestReadFailure } from '@rxkube/testing/manifests';
 *
 * const failure: ManifestReadFailure = 'invalid-yaml';
 * ```
 */
export type ManifestReadFailure = 'not-found' | 'unreadable' | 'invalid-yaml' | 'not-an-object';

/**
 * A manifest path or document that could not be read: which (`path`, and `origin` for a
 * document), why (`failure`) and the underlying words (`detail`). Callers wrap it in their own
 * errors (`CliError` in `rxkube run`, `PreloadError` in `readManifests`).
 *
 * ## Example
 * ```ts
 * import { ManifestReadError, readManifestDocuments } from '@rxkube/testing/manifests';
 *
 * try {
 *   readManifestDocuments(['missing.yaml']);
 * } catch (e) {
 *   if (e instanceof ManifestReadError) console.log(e.failure, e.path); // not-found missing.yaml
 * }
 * ```
 */
export class ManifestReadError extends Error {
  readonly _tag = 'ManifestReadError';
  /**
   * @param failure why.
   * @param path the path as given (a folder's file joined to it).
   * @param detail the underlying message.
   * @param origin the document (`file#n`), for `invalid-yaml` and `not-an-object`.
   * @param cause the file system's error.
   */
  constructor(
    readonly failure: ManifestReadFailure,
    readonly path: string,
    readonly detail: string,
    readonly origin?: string,
    override readonly cause?: unknown,
  ) {
    super(`${origin ?? path}: ${detail}`);
    this.name = 'ManifestReadError';
  }
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads every document of the given files and folders, in order; empty documents are skipped and
 * `List` kinds (`kind` ending in `List`, with `items`) expanded into their items.
 *
 * ## Example
 * ```ts
 * import { readManifestDocuments } from '@rxkube/testing/manifests';
 *
 * for (const { origin, object } of readManifestDocuments(['crd.yaml', 'samples/'])) {
 *   console.log(origin, object['kind']); // crd.yaml#1 CustomResourceDefinition …
 * }
 * ```
 *
 * @param paths files and folders, relative to `cwd`; origins name them as given.
 * @param cwd where relative paths start.
 * @throws {ManifestReadError} for a missing path, an unreadable file, invalid YAML or a document
 *   that is not an object.
 */
export function readManifestDocuments(paths: readonly string[], cwd = process.cwd()): ManifestDocument[] {
  const files: string[] = [];
  for (const p of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(resolve(cwd, p)).isDirectory();
    } catch (e) {
      throw new ManifestReadError('not-found', p, messageOf(e), undefined, e);
    }
    if (!isDirectory) files.push(p);
    else
      for (const f of readdirSync(resolve(cwd, p)).sort())
        if (/\.(ya?ml|json)$/.test(f) && statSync(resolve(cwd, p, f)).isFile()) files.push(join(p, f));
  }
  const out: ManifestDocument[] = [];
  const add = (value: unknown, file: string, origin: string): void => {
    if (value === null || value === undefined) return;
    if (!isRecord(value))
      throw new ManifestReadError('not-an-object', file, 'a document is not an object', origin);
    const kind = value['kind'];
    const items = value['items'];
    if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(items)) {
      items.forEach((item, i) => add(item, file, `${origin}.items[${i}]`));
      return;
    }
    out.push({ object: value, origin, file });
  };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(resolve(cwd, file), 'utf8');
    } catch (e) {
      throw new ManifestReadError('unreadable', file, messageOf(e), undefined, e);
    }
    parseAllDocuments(text).forEach((doc, i) => {
      const origin = `${file}#${i + 1}`;
      if (doc.errors.length > 0)
        throw new ManifestReadError('invalid-yaml', file, doc.errors[0]?.message ?? 'invalid YAML', origin);
      add(doc.toJS(), file, origin);
    });
  }
  return out;
}
