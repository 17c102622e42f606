/**
 * A stand-in kubelet for a real control plane without nodes: it watches Pods over HTTP and writes,
 * through `pods/<name>/status`, what a kubelet reports once a pod's containers run and pass their
 * readiness — `Running`, the `PodScheduled`/`Initialized`/`ContainersReady`/`Ready` conditions, one
 * running, ready container status per container. kube-controller-manager's own ReplicaSet and
 * Deployment controllers then complete rollouts exactly as on a cluster (intermediate states,
 * ReplicaSets with their real hashes and revisions), so an operator waiting for `readyReplicas`
 * sees on the real backend what the embedded server's `simulateDeployments` shortcut shows.
 *
 * Does not: run anything, assign nodes or IPs (`hostIP` is 127.0.0.1, no `podIP`), fail probes,
 * terminate pods (a deleted pod is removed by its grace period of 0 from the API server's side),
 * or complete Jobs (their pods stay Running).
 *
 * @module
 */
import type { KObj } from '../store/object.js';
import { isObject, rfc3339 } from '../store/object.js';
import type { AdminClient } from './admin-client.js';

/** Marks every Pod of a real API server Running and Ready. */
export class KubeletSimulator {
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private paused = false;
  private stopped = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly admin: AdminClient) {}

  /** Lists every Pod (marking each ready) and keeps watching; resolves once the first list is done. */
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
      '/api/v1/pods',
    );
    for (const pod of list.items ?? []) this.enqueue(pod);
    return list.metadata?.resourceVersion;
  }

  private async watchLoop(from: string | undefined): Promise<void> {
    let rv = from;
    while (!this.paused && !this.stopped) {
      const query = `?watch=true&allowWatchBookmarks=true${rv !== undefined ? `&resourceVersion=${rv}` : ''}`;
      let gone = false;
      try {
        await this.admin.watch(
          `/api/v1/pods${query}`,
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

  private enqueue(pod: KObj): void {
    this.queue = this.queue.then(() => this.sync(pod)).catch(() => undefined);
  }

  private async sync(pod: KObj): Promise<void> {
    if (this.stopped || pod.metadata.deletionTimestamp !== undefined || isReady(pod)) return;
    const ns = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    // a 409 (the pod changed meanwhile) is dropped: the newer version's event follows
    await this.admin.request('PUT', `/api/v1/namespaces/${ns}/pods/${name}/status`, {
      ...pod,
      status: runningStatus(pod, rfc3339(Date.now())),
    });
  }
}

function isReady(pod: KObj): boolean {
  const status = isObject(pod['status']) ? pod['status'] : {};
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  return (
    status['phase'] === 'Running' &&
    conditions.some((c) => isObject(c) && c['type'] === 'Ready' && c['status'] === 'True')
  );
}

/** The status a kubelet reports for `pod` once every container runs and is ready. */
export function runningStatus(pod: KObj, now: string): Record<string, unknown> {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const containers = Array.isArray(spec['containers']) ? spec['containers'].filter(isObject) : [];
  const condition = (type: string): Record<string, unknown> => ({
    type,
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: now,
  });
  const previous = isObject(pod['status']) ? pod['status'] : {};
  return {
    phase: 'Running',
    conditions: [
      condition('Initialized'),
      condition('Ready'),
      condition('ContainersReady'),
      condition('PodScheduled'),
    ],
    hostIP: '127.0.0.1',
    startTime: typeof previous['startTime'] === 'string' ? previous['startTime'] : now,
    containerStatuses: containers.map((c) => ({
      name: c['name'],
      state: { running: { startedAt: now } },
      lastState: {},
      ready: true,
      restartCount: 0,
      image: c['image'],
      imageID: '',
      started: true,
    })),
    qosClass: typeof previous['qosClass'] === 'string' ? previous['qosClass'] : 'BestEffort',
  };
}
