export { main } from './main.js';
export type { Io as CliIo } from './main.js';
export { CliError } from './errors.js';
export type { CliErrorReason } from './errors.js';
export { loadOperatorModule } from './load-module.js';
export type { OperatorModule, Runnable } from './load-module.js';
export { applyManifests, readManifests } from './manifests.js';
export type { Manifest } from './manifests.js';
export { connect, kubeconfigSource } from './connect.js';
