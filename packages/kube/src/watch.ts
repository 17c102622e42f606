/**
 * `@rxkube/kube/watch`: the watch layer alone — the API client, the watcher, the Store and shared
 * watches — for programs that watch and cache Kubernetes objects without controllers, metrics or
 * logging. Nothing imported from here loads `prom-client` or `pino` (the pack test proves it on the
 * installed package). It is the five lowest layers' entries together: `@rxkube/kube/config`,
 * `/transport`, `/client`, `/watcher` and `/reflector`; each folder's `index.ts` lists its names.
 *
 * @example
 * ```ts
 * import { KubeClient, Store, reflector, watcher } from '@rxkube/kube/watch';
 * import { filter, firstValueFrom } from 'rxjs';
 *
 * const client = KubeClient.default();
 * const store = new Store();
 * watcher(client, { apiVersion: 'v1', kind: 'ConfigMap' }).pipe(reflector(store)).subscribe();
 * await firstValueFrom(store.ready$.pipe(filter(Boolean)));
 * console.log(store.list().length, 'ConfigMaps');
 * ```
 *
 * @module @rxkube/kube/watch
 */
// First, as in `@rxkube/kube`: on a too-old Node, fail with the required version before any
// dependency loads.
import './node-version.js';
export * from './config/index.js';
export * from './transport/index.js';
export * from './client/index.js';
export * from './watcher/index.js';
export * from './reflector/index.js';
