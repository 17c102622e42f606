/**
 * Where the control-plane binaries are: envtest's convention, a directory named by
 * `KUBEBUILDER_ASSETS` (what `setup-envtest use -p path` prints) holding `kube-apiserver`, `etcd`
 * and, when asked for, `kube-controller-manager`.
 *
 * @module
 */
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The binaries a control plane may need.
 *
 * ## Example
 * ```ts
 * const needed: ControlPlaneBinary[] = ['etcd', 'kube-apiserver'];
 * const dir = findControlPlaneAssets(needed); // no kube-controller-manager needed
 * ```
 */
export type ControlPlaneBinary = 'etcd' | 'kube-apiserver' | 'kube-controller-manager';

/**
 * The binaries of a control plane were not found or cannot be run. The message names the
 * directory looked in, each missing binary, and how to get them.
 *
 * ## Example
 * ```ts
 * try {
 *   await startControlPlane();
 * } catch (e) {
 *   if (e instanceof ControlPlaneAssetsError) console.warn(`skipping: missing ${e.missing.join(', ')}`);
 *   else throw e;
 * }
 * ```
 */
export class ControlPlaneAssetsError extends Error {
  readonly _tag = 'ControlPlaneAssetsError';
  constructor(
    message: string,
    /** The directory looked in, when one was given. */
    readonly dir: string | undefined,
    /** The binaries that are missing or not executable. */
    readonly missing: readonly ControlPlaneBinary[],
  ) {
    super(message);
    this.name = 'ControlPlaneAssetsError';
  }
}

const HOW =
  'Point KUBEBUILDER_ASSETS at a directory holding kube-apiserver, etcd and kube-controller-manager ' +
  "(envtest's binaries: `export KUBEBUILDER_ASSETS=$(setup-envtest use 1.24.x -p path)`), " +
  'or pass startControlPlane({ assetsDir }).';

/**
 * The directory of the binaries, checked: every binary in `needed` exists and is executable.
 *
 * ## Example
 * ```ts
 * const dir = findControlPlaneAssets(['etcd', 'kube-apiserver']); // throws ControlPlaneAssetsError
 * ```
 *
 * @param needed the binaries to check.
 * @param assetsDir the directory; default `process.env.KUBEBUILDER_ASSETS`.
 * @throws {ControlPlaneAssetsError} naming what is missing and how to get it.
 */
export function findControlPlaneAssets(
  needed: readonly ControlPlaneBinary[],
  assetsDir: string | undefined = process.env['KUBEBUILDER_ASSETS'],
): string {
  if (assetsDir === undefined || assetsDir === '') {
    throw new ControlPlaneAssetsError(
      `no control-plane binaries: KUBEBUILDER_ASSETS is not set. ${HOW}`,
      undefined,
      [...needed],
    );
  }
  let isDir: boolean;
  try {
    isDir = statSync(assetsDir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new ControlPlaneAssetsError(
      `no control-plane binaries: ${assetsDir} (KUBEBUILDER_ASSETS) is not a directory. ${HOW}`,
      assetsDir,
      [...needed],
    );
  }
  const missing = needed.filter((b) => {
    try {
      accessSync(join(assetsDir, b), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    throw new ControlPlaneAssetsError(
      `control-plane binaries missing or not executable in ${assetsDir}: ${missing.join(', ')}. ${HOW}`,
      assetsDir,
      missing,
    );
  }
  return assetsDir;
}

/**
 * Whether the binaries are there (no throw): for choosing test backends.
 *
 * ## Example
 * ```ts
 * const assets = controlPlaneAssetsAvailable();
 * describe.skipIf(!assets.available)('on a real API server', () => {
 *   // …
 * });
 * if (!assets.available) console.log(`real tier skipped: ${assets.reason}`);
 * ```
 */
export function controlPlaneAssetsAvailable(
  needed: readonly ControlPlaneBinary[] = ['etcd', 'kube-apiserver', 'kube-controller-manager'],
  assetsDir: string | undefined = process.env['KUBEBUILDER_ASSETS'],
):
  | { readonly available: true; readonly dir: string }
  | { readonly available: false; readonly reason: string } {
  try {
    return { available: true, dir: findControlPlaneAssets(needed, assetsDir) };
  } catch (e) {
    return { available: false, reason: e instanceof Error ? e.message : String(e) };
  }
}
