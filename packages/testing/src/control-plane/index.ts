/**
 * A real control plane (etcd, kube-apiserver, kube-controller-manager from `KUBEBUILDER_ASSETS`,
 * envtest's convention) started on loopback, and finding its binaries.
 *
 * The public names of `control-plane/`: the entry `@rxkube/testing/control-plane` is this file (docs/design.md,
 * "Entry points").
 *
 * @module @rxkube/testing/control-plane
 */
export { startControlPlane } from './control-plane.js';
export type { ControlPlane, ControlPlaneOptions, ControlPlaneUser } from './control-plane.js';
export { ControlPlaneAssetsError, controlPlaneAssetsAvailable, findControlPlaneAssets } from './assets.js';
export type { ControlPlaneBinary } from './assets.js';
