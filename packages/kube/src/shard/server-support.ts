/**
 * Whether an API server filters lists by KEP-5866's `shardSelector`: one list of at most one
 * object with a selector of the whole hash space, and the answer's `metadata.shardInfo` — present
 * only where the server applied the selector (kube-apiserver without the `ShardedListAndWatch`
 * gate, and every version before it, ignores the parameter and echoes nothing). Where it is not
 * supported, a client filters with the identical hash (`bucketOf`).
 *
 * @module
 */
import type { KubeClient } from '../client/kube-client.js';
import type { ResourceType } from '../types.js';
import { shardSelector } from './selector.js';

/**
 * Asks the server whether it applies `shardSelector` to lists of `type`.
 *
 * ## Example
 * ```ts
 * const serverSide = await supportsShardSelector(client, { apiVersion: 'example.com/v1', kind: 'Widget' }, 'default');
 * console.log(serverSide ? 'the server filters by shard' : 'filtering client-side with the same hash');
 * ```
 *
 * @throws what the list throws (403, kind not served, …).
 */
export async function supportsShardSelector(
  client: KubeClient,
  type: ResourceType,
  namespace?: string,
): Promise<boolean> {
  const resource = await client.discovery.resolve(type);
  const selector = shardSelector([0], 1, 'uid') ?? '';
  const list = await client.transport.request<{ metadata?: { shardInfo?: { selector?: string } } }>({
    method: 'GET',
    path: resource.path(resource.namespaced && namespace !== undefined ? { namespace } : {}),
    query: { shardSelector: selector, limit: 1 },
    target: {
      verb: 'list',
      group: resource.group,
      resource: resource.plural,
      ...(namespace !== undefined ? { namespace } : {}),
    },
  });
  return list.metadata?.shardInfo?.selector === selector;
}
