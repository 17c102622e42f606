/**
 * The embedded server's simulated Deployment rollouts (`simulateDeployments`), run as a client of
 * a real API server: a control plane without kubelet never reports ready replicas, so an operator
 * waiting for a rollout would wait forever. It watches Deployments over HTTP and writes, through
 * the `status` subresource as `kube-controller-manager`, the same status the embedded server's
 * simulation writes (`rolledOutStatus`) — so a scenario completes the same way on both backends.
 *
 * Level-triggered: a Deployment whose status already equals the desired one is not written, so
 * its own write causes no second write. A 409 is dropped (the newer version's event follows).
 *
 * @module
 */
import { rolledOutStatus } from '../controllers/deployments.js';
import type { KObj } from '../store/object.js';
import { deepEqual, isObject, rfc3339 } from '../store/object.js';
import type { AdminClient } from './admin-client.js';

const FIELD_MANAGER = 'kube-controller-manager';

/** Writes rolled-out statuses of every Deployment of a real API server. */
export class DeploymentSimulator {
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private paused = false;
  private stopped = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly admin: AdminClient) {}

  /** Lists every Deployment (syncing each) and keeps watching; resolves once the first list is done. */
  async start(): Promise<void> {
    const rv = await this.relist();
    this.loop = this.watchLoop(rv);
  }

  /** Stops watching until {@link resume} (while the API server restarts). */
  async pause(): Promise<void> {
    this.paused = true;
    this.abort.abort();
    await this.loop;
    await this.queue;
  }

  /** Lists again and watches again after {@link pause}. */
  resume(): void {
    if (this.stopped) return;
    this.paused = false;
    this.abort = new AbortController();
    this.loop = this.relist().then(
      (rv) => this.watchLoop(rv),
      () => this.watchLoop(undefined),
    );
  }

  /** Stops for good. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.pause();
  }

  private async relist(): Promise<string | undefined> {
    const list = await this.admin.getJson<{ metadata?: { resourceVersion?: string }; items?: KObj[] | null }>(
      '/apis/apps/v1/deployments',
    );
    for (const d of list.items ?? []) this.enqueue(d);
    return list.metadata?.resourceVersion;
  }

  private async watchLoop(from: string | undefined): Promise<void> {
    let rv = from;
    while (!this.paused && !this.stopped) {
      const query = `?watch=true&allowWatchBookmarks=true${rv !== undefined ? `&resourceVersion=${rv}` : ''}`;
      let gone = false;
      try {
        await this.admin.watch(
          `/apis/apps/v1/deployments${query}`,
          (e) => {
            const meta = isObject(e.object['metadata']) ? e.object['metadata'] : {};
            if (typeof meta['resourceVersion'] === 'string') rv = meta['resourceVersion'];
            if (e.type === 'ERROR') gone = true;
            else if (e.type === 'ADDED' || e.type === 'MODIFIED') this.enqueue(e.object as KObj);
          },
          this.abort.signal,
        );
      } catch {
        gone = true;
      }
      if (this.paused || this.stopped) return;
      if (gone) {
        await new Promise((r) => setTimeout(r, 200));
        rv = await this.relist().catch(() => undefined);
      }
    }
  }

  private enqueue(deployment: KObj): void {
    this.queue = this.queue.then(() => this.sync(deployment)).catch(() => undefined);
  }

  private async sync(deployment: KObj): Promise<void> {
    if (this.stopped || deployment.metadata.deletionTimestamp !== undefined) return;
    const current = isObject(deployment['status']) ? deployment['status'] : undefined;
    const desired = rolledOutStatus(deployment, current, rfc3339(Date.now()));
    if (deepEqual(desired, current ?? {})) return;
    const ns = deployment.metadata.namespace ?? '';
    const name = deployment.metadata.name ?? '';
    await this.admin.request(
      'PUT',
      `/apis/apps/v1/namespaces/${ns}/deployments/${name}/status?fieldManager=${FIELD_MANAGER}`,
      { ...deployment, status: desired },
    );
  }
}
