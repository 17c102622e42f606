/**
 * `Client`: the verbs and discovery a reconcile uses — controller-runtime's `client.Client`.
 * {@link KubeClient} is the implementation over HTTP; a test gives a controller any object with
 * these members (`stubClient()` of `@rxkube/testing/controller` records writes and answers reads
 * from given objects), and nothing checks its class (`instanceof` breaks with two installed copies).
 *
 * @module
 */
import type { KubeClient } from './kube-client.js';

/**
 * What a controller's reconcile, map functions and ports need from a client: `get`, `list`,
 * `create`, `replace`, `patch`, `apply`, `delete` and `discovery.resolve`. Watches need a whole
 * {@link KubeClient} (or a `WatchRegistry`).
 *
 * ## Example
 * ```ts
 * async function ensureLabel(client: Client, ref: ObjectRef): Promise<void> {
 *   await client.patch(ref, { type: 'merge', body: { metadata: { labels: { seen: 'yes' } } } });
 * }
 * ```
 */
export type Client = Pick<
  KubeClient,
  'get' | 'list' | 'create' | 'replace' | 'patch' | 'apply' | 'delete'
> & {
  readonly discovery: Pick<KubeClient['discovery'], 'resolve'>;
};
