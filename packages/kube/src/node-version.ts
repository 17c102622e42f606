/**
 * The Node version guard of `@rxkube/kube`: imported first by the package entry, so that on a Node
 * older than the supported one the import fails with the required version instead of a
 * `TypeError` deep inside undici (whose import needs zlib's zstd, new in Node 22.15, through
 * `@kubernetes/client-node` 2.x).
 *
 * @module
 */

/**
 * The oldest Node `@rxkube/kube` runs on (its `engines`).
 *
 * ## Example
 * ```ts
 * console.log(`needs Node >= ${MINIMUM_NODE_VERSION}`); // the version assertSupportedNode checks against
 * ```
 */
export const MINIMUM_NODE_VERSION = '22.19.0';

/**
 * Throws an Error naming the required and the running version when `version` is older than
 * {@link MINIMUM_NODE_VERSION}.
 *
 * ## Example
 * ```ts
 * assertSupportedNode(process.versions.node);
 * ```
 */
export function assertSupportedNode(version: string = process.versions.node): void {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [needMajor = 0, needMinor = 0] = MINIMUM_NODE_VERSION.split('.').map(Number);
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return;
  throw new Error(
    `@rxkube/kube needs Node >= ${MINIMUM_NODE_VERSION}; this is Node ${version}. ` +
      '(@kubernetes/client-node 2.x and undici use APIs older Nodes lack.) Install Node 22 LTS or newer ' +
      '(e.g. `nvm install 22`), or run through the scripts of a workspace that pins it.',
  );
}

assertSupportedNode();
