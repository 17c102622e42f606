/**
 * The deployment notifier end to end over HTTP, on both test backends — the embedded API server
 * and a real kube-apiserver with kube-controller-manager — each with simulated Deployment rollouts
 * (no kubelet: Deployments get the status updates of a finished rollout, as on a cluster); the
 * operator run by a `Manager`, and a real webhook receiver (node:http on 127.0.0.1, port 0)
 * counting POSTs.
 *
 * Waiting is for outcomes: on the manager's results, on the reconcile's plan hook (a reconcile
 * that saw a given Deployment state, then that reconcile's result), or on the server's state read
 * over HTTP until it holds — bounded, never a sleep.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type KubeObject, KubeClient, Manager, type ControllerResult, type ObjectRef } from '@rxkube/kube';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { type Subscription, ReplaySubject, filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { name, setup, summarise } from './operator.js';
import type { NotifierPlan } from './reconcile.js';
import {
  type Deployment,
  type DeploymentNotifier,
  NOTIFIER,
  NOTIFIER_RESOURCE,
  type Notification,
} from './types.js';

const NS = 'notify';
const WEB = `${NS}/web-images`;
const FLAKY = `${NS}/flaky`;
/** A failure bound, not a wait: generous, for a real control plane on a loaded machine. */
const BOUND_MS = 30_000;

/** One POST the receiver got. */
interface Received {
  readonly path: string;
  readonly body: Notification;
  readonly idempotencyKey: string | undefined;
  readonly contentType: string | undefined;
  /** The status it answered. */
  readonly status: number;
}

/** A webhook receiver: answers POSTs from a per-path script of statuses (then `fallback`), records them. */
class Receiver {
  readonly received: Received[] = [];
  private readonly script = new Map<string, number[]>();
  private readonly fallback = new Map<string, number>();
  private server: Server | undefined;
  private port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void readBody(req).then((text) => {
        const path = req.url ?? '/';
        const status = this.script.get(path)?.shift() ?? this.fallback.get(path) ?? 200;
        this.received.push({
          path,
          body: JSON.parse(text) as Notification,
          idempotencyKey: req.headers['idempotency-key'] as string | undefined,
          contentType: req.headers['content-type'],
          status,
        });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The next POSTs to `path` are answered with `statuses`, in order. */
  answerNext(path: string, ...statuses: number[]): void {
    this.script.set(path, [...(this.script.get(path) ?? []), ...statuses]);
  }

  /** POSTs to `path` are answered `status` once the script is used up. */
  answerAlways(path: string, status: number): void {
    this.fallback.set(path, status);
  }

  to(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** What the plan hook saw when a reconcile started; `mark` is the number of results before it. */
interface Planned {
  readonly key: string;
  readonly deployments: readonly Deployment[];
  readonly plan: NotifierPlan;
  readonly mark: number;
}

/** A running operator: a Manager with the notifier set up, its results and plans recorded. */
class Operator {
  readonly results: ControllerResult[] = [];
  readonly printed: string[] = [];
  private readonly results$ = new ReplaySubject<ControllerResult>(10_000);
  private readonly plans$ = new ReplaySubject<Planned>(10_000);
  private sub: Subscription | undefined;
  private constructor(readonly mgr: Manager) {}

  static async start(client: KubeClient): Promise<Operator> {
    const mgr = new Manager({ client, name, namespaces: [NS], logLevel: 'silent' });
    const op = new Operator(mgr);
    await setup(mgr, {
      print: (line) => op.printed.push(line),
      // tiny real backoff: the retry arithmetic itself is marble-tested in deliver.test.ts
      delivery: { initialDelayMs: 1, maxDelayMs: 4, attemptTimeoutMs: 5_000 },
      redeliverAfterMs: 3_600_000,
      onPlan: (n, deployments, plan) =>
        op.plans$.next({
          key: `${n.metadata.namespace ?? ''}/${n.metadata.name ?? ''}`,
          deployments,
          plan,
          mark: op.results.length,
        }),
    });
    op.sub = mgr.results$.subscribe((r) => {
      op.results.push(r);
      op.results$.next(r);
    });
    await mgr.start();
    return op;
  }

  /**
   * Resolves once `probe()` holds, reading the server again until it does; fails after the bound
   * naming the last failed reconciles.
   */
  async until(what: string, probe: () => Promise<boolean>): Promise<void> {
    await waitFor(what, probe, { timeoutMs: BOUND_MS }).catch((e: unknown) => {
      const failed = this.results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal');
      throw new Error(
        `${(e as Error).message}; last failed reconciles: ${JSON.stringify(
          failed.slice(-3).map((r) => [r.key, r.error?.message]),
        )}`,
      );
    });
  }

  /** Resolves once a reconcile of `key` that read Deployments satisfying `saw` has finished. */
  async reconciledAfter(
    key: string,
    saw: (deployments: readonly Deployment[]) => boolean,
  ): Promise<NotifierPlan> {
    const planned = await firstValueFrom(
      this.plans$.pipe(
        filter((p) => p.key === key && saw(p.deployments)),
        timeout({ first: BOUND_MS, with: () => Promise.reject(new Error(`no reconcile of ${key} saw it`)) }),
      ),
    );
    await firstValueFrom(
      this.results$.pipe(
        filter((r, i) => i >= planned.mark && r.key === key),
        timeout({ first: BOUND_MS, with: () => Promise.reject(new Error(`no result for ${key}`)) }),
      ),
    );
    return planned.plan;
  }

  async stop(): Promise<void> {
    const report = await this.mgr.stop();
    expect(report.drained).toBe(true);
    this.sub?.unsubscribe();
  }
}

describeEachBackend(
  'deployment-notifier with a real webhook receiver (HTTP, simulated Deployment rollouts)',
  (b) => {
    let client: KubeClient;
    const receiver = new Receiver();
    let op: Operator;

    const deploymentRef = (n: string): ObjectRef => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: NS,
      name: n,
    });
    const notifierOf = async (n: string) =>
      (await b.cluster.get(NOTIFIER_RESOURCE, NS, n)) as unknown as DeploymentNotifier | undefined;
    const notifiedOf = async (n: string) => (await notifierOf(n))?.status?.notified;
    const condition = async (n: string, type: string) =>
      (await notifierOf(n))?.status?.conditions?.find((c) => c.type === type);
    const deployment = (
      n: string,
      images: Record<string, string>,
      labels: Record<string, string> = {},
    ): Deployment => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: n, namespace: NS, labels: { app: n, ...labels } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: n } },
        template: {
          metadata: { labels: { app: n } },
          spec: { containers: Object.entries(images).map(([c, image]) => ({ name: c, image })) },
        },
      } as NonNullable<Deployment['spec']>,
    });
    const setImage = (n: string, index: number, image: string) =>
      client.patch(deploymentRef(n), {
        type: 'json',
        body: [{ op: 'replace', path: `/spec/template/spec/containers/${index}/image`, value: image }],
      });
    const imageOf = (ds: readonly Deployment[], n: string, container: string) =>
      ds
        .find((d) => d.metadata.name === n)
        ?.spec?.template?.spec?.containers?.find((c) => c.name === container)?.image;

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      await receiver.start();
      op = await Operator.start(client);
    });
    afterAll(async () => {
      await op.mgr.stop();
      await receiver.stop();
      client.close();
    });

    it('installed its CRD through the manager (so rxkube rbac grants get/patch on it by name)', () => {
      expect(op.mgr.installedCrds).toEqual([NOTIFIER_RESOURCE]);
    });

    it('records the images of a new Deployment as baseline, without a POST', async () => {
      await client.create<DeploymentNotifier>({
        ...NOTIFIER,
        metadata: { name: 'web-images', namespace: NS },
        spec: { deploymentName: 'web', target: { webhook: { url: receiver.url('/hook'), maxAttempts: 5 } } },
      });
      await op.until(
        'the notifier is Ready',
        async () => (await condition('web-images', 'Ready'))?.status === 'True',
      );
      await client.create(deployment('web', { app: 'nginx:1.26', sidecar: 'busybox:1.36' }));
      await op.until(
        'the baseline',
        async () => (await notifiedOf('web-images'))?.['web/sidecar'] !== undefined,
      );

      expect(await notifiedOf('web-images')).toEqual({
        'web/app': 'nginx:1.26',
        'web/sidecar': 'busybox:1.36',
      });
      expect(await condition('web-images', 'Ready')).toMatchObject({
        reason: 'Watching',
        message: 'watching 1 Deployment(s): web',
      });
      expect(receiver.received).toEqual([]);
      expect(op.printed).toEqual([]);
    });

    it('changing an image sends exactly one POST, then records it in status.notified', async () => {
      await setImage('web', 0, 'nginx:1.27');
      await op.until(
        'nginx:1.27 notified',
        async () => (await notifiedOf('web-images'))?.['web/app'] === 'nginx:1.27',
      );
      // the Deployment's status update that follows (simulated controller) reconciles again: no POST
      await op.reconciledAfter(
        WEB,
        (ds) => imageOf(ds, 'web', 'app') === 'nginx:1.27' && ds.every(isObserved),
      );

      const uid = (await b.cluster.get('deployments.apps', NS, 'web'))?.metadata.uid ?? '';
      const key = `${(await notifierOf('web-images'))?.metadata.uid ?? ''}/${uid}/app/nginx:1.27`;
      expect(receiver.received).toEqual([
        {
          path: '/hook',
          body: {
            notifier: 'web-images',
            namespace: NS,
            deployment: 'web',
            container: 'app',
            from: 'nginx:1.26',
            to: 'nginx:1.27',
            at: expect.any(String) as string,
            idempotencyKey: key,
          },
          idempotencyKey: key,
          contentType: 'application/json',
          status: 200,
        },
      ]);
      expect(op.printed).toEqual([
        `deployment-notifier ${NS}/web-images: deployment web container app image nginx:1.26 → nginx:1.27`,
      ]);
      expect(await notifiedOf('web-images')).toEqual({
        'web/app': 'nginx:1.27',
        'web/sidecar': 'busybox:1.36',
      });
      expect(await condition('web-images', 'Delivered')).toMatchObject({
        status: 'True',
        reason: 'Delivered',
      });
    });

    it('changing replicas only sends nothing', async () => {
      await client.patch(deploymentRef('web'), { type: 'merge', body: { spec: { replicas: 3 } } });
      const plan = await op.reconciledAfter(WEB, (ds) =>
        ds.some((d) => d.metadata.name === 'web' && d.spec?.replicas === 3 && isObserved(d)),
      );
      expect(plan.changes).toEqual([]);
      expect(receiver.received).toHaveLength(1);
    });

    it('a receiver answering 500 twice, then 200: one successful delivery after retries', async () => {
      receiver.answerNext('/hook', 500, 500);
      await setImage('web', 0, 'nginx:1.28');
      await op.until(
        'nginx:1.28 notified',
        async () => (await notifiedOf('web-images'))?.['web/app'] === 'nginx:1.28',
      );
      await op.reconciledAfter(
        WEB,
        (ds) => imageOf(ds, 'web', 'app') === 'nginx:1.28' && ds.every(isObserved),
      );

      const attempts = receiver.to('/hook').filter((r) => r.body.to === 'nginx:1.28');
      expect(attempts.map((r) => r.status)).toEqual([500, 500, 200]);
      expect(new Set(attempts.map((r) => r.idempotencyKey)).size).toBe(1);
      expect(new Set(attempts.map((r) => r.body.at)).size).toBe(1); // one delivery, retried
      expect(attempts[0]?.body.from).toBe('nginx:1.27');
      expect(receiver.received.filter((r) => r.status === 200)).toHaveLength(2); // 1.27 and 1.28
      expect((await condition('web-images', 'Delivered'))?.message).toBe(
        'web/app nginx:1.28: HTTP 200 after 3 attempt(s)',
      );
    });

    it('gives up after maxAttempts: Warning Event, Delivered=False, the change stays pending', async () => {
      receiver.answerAlways('/down', 503);
      await client.create<DeploymentNotifier>({
        ...NOTIFIER,
        metadata: { name: 'flaky', namespace: NS },
        spec: {
          selector: { matchLabels: { tier: 'backend' } },
          target: { console: false, webhook: { url: receiver.url('/down'), maxAttempts: 2 } },
        },
      });
      await client.create(deployment('api', { app: 'api:1' }, { tier: 'backend' }));
      await op.until('the api baseline', async () => (await notifiedOf('flaky'))?.['api/app'] === 'api:1');
      await setImage('api', 0, 'api:2');
      await op.until(
        'Delivered=False',
        async () => (await condition('flaky', 'Delivered'))?.status === 'False',
      );

      const down = receiver.to('/down');
      // each reconcile makes one delivery (its own `at`) of maxAttempts (2) attempts; the retry of
      // the reconcile may be under way while we read, so the newest delivery may not be finished
      const perDelivery = new Map<string, number>();
      for (const r of down) perDelivery.set(r.body.at, (perDelivery.get(r.body.at) ?? 0) + 1);
      const attempts = [...perDelivery.values()];
      expect(attempts[0]).toBe(2);
      expect(attempts.slice(0, -1).every((n) => n === 2)).toBe(true);
      expect(attempts.at(-1)).toBeLessThanOrEqual(2);
      expect(down.every((r) => r.status === 503 && r.body.to === 'api:2')).toBe(true);
      expect(new Set(down.map((r) => r.idempotencyKey)).size).toBe(1);
      expect(await notifiedOf('flaky')).toEqual({ 'api/app': 'api:1' });
      expect(await condition('flaky', 'Delivered')).toMatchObject({ reason: 'WebhookFailed' });
      expect((await condition('flaky', 'Delivered'))?.message).not.toContain('/down');
      const warning = await waitFor(
        'a NotificationFailed Event',
        async () => {
          const events = await client.list<
            KubeObject & { reason?: string; type?: string; note?: string; regarding?: { name?: string } }
          >({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: NS });
          return events.items.find((e) => e.reason === 'NotificationFailed' && e.regarding?.name === 'flaky');
        },
        { timeoutMs: BOUND_MS },
      );
      expect(warning.type).toBe('Warning');
      expect(warning.note).toContain('api/app api:1 → api:2');
      // the other notifier is unaffected
      expect(receiver.to('/hook').filter((r) => r.body.deployment === 'api')).toEqual([]);
    });

    it('across a restart: a change made while stopped is sent once, pending ones are delivered, nothing else is resent', async () => {
      await op.stop();
      const before = receiver.received.length;
      await setImage('web', 0, 'nginx:1.29'); // while no operator runs
      receiver.answerAlways('/down', 200); // the receiver of `flaky` is back

      op = await Operator.start(client);
      await op.until(
        'nginx:1.29 and api:2 notified',
        async () =>
          (await notifiedOf('web-images'))?.['web/app'] === 'nginx:1.29' &&
          (await notifiedOf('flaky'))?.['api/app'] === 'api:2',
      );
      await op.stop(); // drains: no reconcile is left half-way

      const after = receiver.received.slice(before);
      expect(
        after
          .filter((r) => r.path === '/hook')
          .map((r) => [r.body.container, r.body.from, r.body.to, r.status]),
      ).toEqual([['app', 'nginx:1.28', 'nginx:1.29', 200]]);
      expect(after.filter((r) => r.path === '/down').map((r) => [r.body.from, r.body.to, r.status])).toEqual([
        ['api:1', 'api:2', 200],
      ]);
      // the pending api:2 delivery kept its idempotency key across the restart
      const downKeys = new Set(receiver.to('/down').map((r) => r.idempotencyKey));
      expect(downKeys.size).toBe(1);
      expect(await notifiedOf('web-images')).toEqual({
        'web/app': 'nginx:1.29',
        'web/sidecar': 'busybox:1.36',
      });
      expect((await condition('flaky', 'Delivered'))?.status).toBe('True');

      const rows = await summarise(client, NS);
      expect(rows.map((r) => [r.notifier, r.container, r.notified, r.current, r.upToDate])).toEqual([
        [FLAKY, 'api/app', 'api:2', 'api:2', true],
        [WEB, 'web/app', 'nginx:1.29', 'nginx:1.29', true],
        [WEB, 'web/sidecar', 'busybox:1.36', 'busybox:1.36', true],
      ]);
    });
  },
  { simulateDeployments: true },
);

/** The simulated Deployment controller has written the status of the current generation. */
function isObserved(d: Deployment): boolean {
  const status = d.status as { observedGeneration?: number } | undefined;
  return status?.observedGeneration === d.metadata.generation;
}
