/**
 * What every cluster a test can run against offers — the embedded server (`startApiServer()`) and
 * a real control plane (`startControlPlane()`) alike: where it is, a kubeconfig, the admin token,
 * reads of its state over HTTP, and stop.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';

import type { KObj } from '../store/object.js';
import type { AdminClient } from './admin-client.js';

/**
 * A running cluster (API server) a test can talk to over HTTP.
 *
 * ## Example
 * ```ts
 * async function expectCopied(cluster: TestCluster, ns: string) {
 *   await waitFor(`the copy in ${ns}`, () => cluster.get('configmaps', ns, 'settings'));
 * }
 * await expectCopied(await startApiServer(), 'default'); // or a ControlPlane, or a TestBackend
 * ```
 */
export interface TestCluster {
  /** `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`. */
  readonly url: string;
  /** Path of a kubeconfig pointing at it as the admin user (kubectl, `KUBECONFIG=…`). */
  readonly kubeconfigPath: string;
  /** A `@kubernetes/client-node` KubeConfig loaded from {@link kubeconfigPath}. */
  readonly kubeConfig: KubeConfig;
  /** The admin bearer token (group `system:masters`). */
  readonly token: string;
  /**
   * Objects of a resource, read over HTTP as the admin (resource as `configmaps`,
   * `deployments.apps` or `widgets.example.com`), optionally in one namespace, ordered by
   * namespace and name.
   */
  list(resource: string, namespace?: string): Promise<KObj[]>;
  /** One object read over HTTP as the admin, or undefined when it does not exist. */
  get(resource: string, namespace: string | undefined, name: string): Promise<KObj | undefined>;
  /** Stops it and removes what it wrote to disk. */
  stop(): Promise<void>;
}

/**
 * Resolves `configmaps` / `deployments.apps` / `widgets.example.com` to API paths through
 * discovery (the group's preferred version), re-reading discovery once for a group it does not
 * know yet (a CRD installed since).
 */
export class ResourcePaths {
  private readonly groups = new Map<string, string>();

  constructor(private readonly admin: AdminClient) {}

  /** The collection path of a resource, in a namespace or across all of them. */
  async collection(resource: string, namespace?: string): Promise<string> {
    const dot = resource.indexOf('.');
    const plural = dot < 0 ? resource : resource.slice(0, dot);
    const group = dot < 0 ? '' : resource.slice(dot + 1);
    const base = group === '' ? '/api/v1' : `/apis/${await this.groupVersion(group)}`;
    return namespace === undefined ? `${base}/${plural}` : `${base}/namespaces/${namespace}/${plural}`;
  }

  private async groupVersion(group: string): Promise<string> {
    const known = this.groups.get(group);
    if (known !== undefined) return known;
    const r = await this.admin.request('GET', `/apis/${group}`);
    const gv = (r.body as { preferredVersion?: { groupVersion?: string } } | undefined)?.preferredVersion
      ?.groupVersion;
    if (r.status !== 200 || gv === undefined) {
      throw new Error(`the API group ${group} is not served (GET /apis/${group} answered ${r.status})`);
    }
    this.groups.set(group, gv);
    return gv;
  }
}

/** {@link TestCluster.list} and {@link TestCluster.get} over an admin client. */
export function clusterReads(admin: AdminClient): Pick<TestCluster, 'list' | 'get'> {
  const paths = new ResourcePaths(admin);
  return {
    list: async (resource, namespace) => {
      const body = await admin.getJson<{ items?: KObj[] | null }>(
        await paths.collection(resource, namespace),
      );
      const items = body.items ?? [];
      const key = (o: KObj): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
      return items.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    },
    get: async (resource, namespace, name) => {
      const path = `${await paths.collection(resource, namespace)}/${encodeURIComponent(name)}`;
      const r = await admin.request('GET', path);
      if (r.status === 404) return undefined;
      if (r.status !== 200) {
        throw new Error(`GET ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
      }
      return r.body as KObj;
    },
  };
}
