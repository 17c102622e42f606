/**
 * Where a connection comes from: kubeconfig files, in-cluster config and their auth, and the Node
 * version this package requires.
 *
 * The public names of `config/`: the entry `@rxkube/kube/config` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/config
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { assertSupportedNode, MINIMUM_NODE_VERSION } from '../node-version.js';
export { connectionFromKubeConfig, loadDefaultKubeConfig, loadKubeConfigFile } from './connection.js';
export type { Connection, ConnectionOptions, RequestAuth } from './connection.js';
export type { KubeConfigSource } from './connection.js';
export { Kubeconfig } from './kubeconfig.js';
export type { Cluster } from './kubeconfig.js';
export type { Context } from './kubeconfig.js';
export type { ExecConfig } from './kubeconfig.js';
export type { User } from './kubeconfig.js';
