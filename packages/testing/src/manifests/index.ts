/**
 * `@rxkube/testing/manifests`: the manifest reader (files, folders, YAML streams, `List` kinds)
 * shared by `rxkube run -f` and the embedded server's start-up objects. It loads `yaml` and
 * `node:fs` only, not the server.
 *
 * @example
 * ```ts
 * import { readManifestDocuments } from '@rxkube/testing/manifests';
 *
 * const documents = readManifestDocuments(['deploy/']); // [{ object, origin: 'deploy/crd.yaml#1', file }, …]
 * ```
 *
 * @module @rxkube/testing/manifests
 */
export { ManifestReadError, readManifestDocuments } from './read.js';
export type { ManifestDocument, ManifestReadFailure } from './read.js';
