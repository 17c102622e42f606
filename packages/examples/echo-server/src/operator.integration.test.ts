/**
 * The echo-server operator end to end over HTTP, through the Manager, on both test backends (the
 * embedded API server and a real kube-apiserver with kube-controller-manager), each with simulated
 * Deployment rollouts (no kubelet: Deployments report ready pods as on a cluster):
 * create → children with controller references → Ready → spec change → Deployment updated →
 * expose: false → Service pruned → a child change reruns the parent → delete → children collected
 * (by the garbage collector: the embedded one, or kube-controller-manager's).
 *
 * Waiting is for outcomes: the server's state, read over HTTP until it holds (`waitFor`, with a
 * generous bound), and the manager's results — never a sleep.
 */
import { KubeClient, Manager, type KubeObject, type ControllerResult, isNotFound } from '@rxkube/kube';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { EchoServer } from './echo-server.js';
import { echoServerRows, name, setup } from './operator.js';
import { deploymentType, ECHO_IMAGE, serviceType } from './reconcile.js';

const NS = 'echo';
const ECHO = 'echoservers.example.com';

describeEachBackend(
  'echo-server operator (Manager, over HTTP, simulated Deployment rollouts)',
  (b) => {
    let client: KubeClient;
    let mgr: Manager;
    const results: ControllerResult[] = [];
    const subs: Subscription[] = [];

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      mgr = new Manager({ client, name, namespaces: [NS], logLevel: 'silent' });
      await setup(mgr);
      subs.push(mgr.results$.subscribe((r) => results.push(r)));
      await mgr.start();
    });
    afterAll(async () => {
      for (const s of subs) s.unsubscribe();
      await mgr.stop();
      client.close();
    });

    /**
     * Resolves once `probe()` holds, reading the server again until it does; fails after 30 s (a
     * bound, not a wait) naming the last failed reconciles.
     */
    const until = (what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<unknown> =>
      waitFor(what, probe, { timeoutMs }).catch((e: unknown) => {
        const failed = results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal');
        throw new Error(
          `${(e as Error).message}; last failed reconciles: ${JSON.stringify(
            failed.slice(-3).map((r) => [r.key, r.error?.message]),
          )}`,
        );
      });
    const echo = async (): Promise<EchoServer | undefined> =>
      (await b.cluster.get(ECHO, NS, 'hello')) as EchoServer | undefined;
    const deployment = async (): Promise<KubeObject | undefined> =>
      (await b.cluster.get('deployments.apps', NS, 'hello')) as KubeObject | undefined;
    const service = async (): Promise<KubeObject | undefined> =>
      (await b.cluster.get('services', NS, 'hello')) as KubeObject | undefined;
    const readyCondition = async () => (await echo())?.status?.conditions?.find((c) => c.type === 'Ready');
    const argsOf = (d: KubeObject | undefined): unknown =>
      (d?.['spec'] as { template: { spec: { containers: { args: string[] }[] } } } | undefined)?.template.spec
        .containers[0]?.args;
    const specOf = (o: KubeObject | undefined): Record<string, unknown> =>
      (o?.['spec'] ?? {}) as Record<string, unknown>;

    it('installed its CRD through the manager (so rxkube rbac grants get/patch on it by name)', () => {
      expect(mgr.installedCrds).toEqual([ECHO]);
    });

    it('create → children owned → Ready → update → prune → child change → delete → garbage collected', async () => {
      // 1. create: a Deployment and a Service, each with a controller reference to the EchoServer
      const created = await client.create<EchoServer>({
        apiVersion: 'example.com/v1',
        kind: 'EchoServer',
        metadata: { name: 'hello', namespace: NS },
        spec: { replicas: 2, message: 'hello world' },
      });
      const uid = created.metadata.uid;
      await until('Ready with 2 ready replicas', async () => (await readyCondition())?.status === 'True');
      const owner = {
        apiVersion: 'example.com/v1',
        kind: 'EchoServer',
        name: 'hello',
        uid,
        controller: true,
        blockOwnerDeletion: true,
      };
      const [d1, s1] = [await deployment(), await service()];
      expect(d1?.metadata.ownerReferences).toEqual([owner]);
      expect(s1?.metadata.ownerReferences).toEqual([owner]);
      expect(specOf(d1)['replicas']).toBe(2);
      expect(argsOf(d1)).toEqual(['-text=hello world', '-listen=:5678']);
      expect(JSON.stringify(specOf(d1)['template'])).toContain(ECHO_IMAGE);
      expect(specOf(s1)['ports']).toEqual([{ name: 'http', protocol: 'TCP', port: 80, targetPort: 5678 }]);
      expect(d1?.metadata.managedFields).toContainEqual(
        expect.objectContaining({ manager: 'echo-server', operation: 'Apply' }),
      );
      expect((await echo())?.status).toEqual({
        observedGeneration: 1,
        replicas: 2,
        readyReplicas: 2,
        url: 'http://hello.echo.svc:80',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'ReplicasReady',
            message: '2/2 replicas ready',
            lastTransitionTime: expect.any(String) as unknown,
            observedGeneration: 1,
          },
        ],
      });

      // a change of a child reruns the parent; with nothing to change, it writes nothing
      const rvs = [await echo(), await deployment(), await service()].map((o) => o?.metadata.resourceVersion);
      const mark = results.length;
      await client.patch(
        { ...serviceType, namespace: NS, name: 'hello' },
        { type: 'merge', body: { metadata: { annotations: { touched: 'yes' } } } },
      );
      const touchedRv = (await service())?.metadata.resourceVersion;
      await until('a reconcile after the Service changed', () =>
        Promise.resolve(results.slice(mark).some((r) => r.key === `${NS}/hello` && r.outcome === 'success')),
      );
      expect(
        [await echo(), await deployment(), await service()].map((o) => o?.metadata.resourceVersion),
      ).toEqual([rvs[0], rvs[1], touchedRv]);

      // 2. message and replicas change: the Deployment follows, the status catches up with generation 2
      await client.patch(
        { apiVersion: 'example.com/v1', kind: 'EchoServer', namespace: NS, name: 'hello' },
        { type: 'merge', body: { spec: { message: 'bye', replicas: 3 } } },
      );
      await until('generation 2 ready with 3 replicas', async () => {
        const status = (await echo())?.status;
        const ready = status?.conditions?.find((c) => c.type === 'Ready');
        return (
          status?.observedGeneration === 2 &&
          status.readyReplicas === 3 &&
          ready?.observedGeneration === 2 &&
          ready.status === 'True'
        );
      });
      expect(argsOf(await deployment())).toEqual(['-text=bye', '-listen=:5678']);
      expect(specOf(await deployment())['replicas']).toBe(3);
      expect(await readyCondition()).toMatchObject({
        status: 'True',
        message: '3/3 replicas ready',
        observedGeneration: 2,
      });

      // 3. expose: false — the Service is pruned, the URL goes, the Deployment stays
      const serviceUid = (await service())?.metadata.uid;
      await client.patch(
        { apiVersion: 'example.com/v1', kind: 'EchoServer', namespace: NS, name: 'hello' },
        { type: 'merge', body: { spec: { expose: false } } },
      );
      await until(
        'the Service pruned and the status without url',
        async () => (await service()) === undefined && (await echo())?.status?.observedGeneration === 3,
      );
      expect((await echo())?.status?.url).toBeUndefined();
      expect((await readyCondition())?.status).toBe('True');
      expect(await deployment()).toBeDefined();
      expect(serviceUid).toBeDefined();

      // 4. a child change reruns the parent: a deleted Deployment is re-created and becomes ready again
      const oldDeploymentUid = (await deployment())?.metadata.uid;
      await client.delete({ ...deploymentType, namespace: NS, name: 'hello' });
      await until('a new Deployment, ready', async () => {
        const d = await deployment();
        return (
          d !== undefined &&
          d.metadata.uid !== oldDeploymentUid &&
          (d['status'] as { readyReplicas?: number } | undefined)?.readyReplicas === 3 &&
          (await readyCondition())?.status === 'True'
        );
      });

      expect(await echoServerRows(client, NS)).toEqual([
        {
          namespace: NS,
          name: 'hello',
          message: 'bye',
          replicas: 3,
          readyReplicas: 3,
          ready: 'True',
          url: '-',
          children: 'Deployment',
        },
      ]);

      // 5. delete the EchoServer: the garbage collector removes its children. kube-controller-manager's
      // learns of a kind installed after it started (the EchoServer CRD) by its discovery sync every
      // 30 s (cmd/kube-controller-manager/app/core.go: garbageCollector.Sync(…, 30*time.Second)) or
      // by a retried lookup of the owner, so on the real backend this takes from a second to ~40 s
      // (both measured): the bound is 90 s.
      const deleted = results.length;
      await client.delete({ apiVersion: 'example.com/v1', kind: 'EchoServer', namespace: NS, name: 'hello' });
      await until(
        'the children collected',
        async () =>
          (await echo()) === undefined &&
          (await b.cluster.list('deployments.apps', NS)).length === 0 &&
          (await b.cluster.list('services', NS)).length === 0,
        90_000,
      );
      // No reconcile failed — but one that a child's event started just before the delete may find
      // its EchoServer gone when it writes the status (404 on /status; its rerun reports it gone):
      // a race with the deletion, as in controller-runtime, not a failure of the operator.
      const raceWithDeletion = (r: ControllerResult, i: number): boolean =>
        i >= deleted &&
        isNotFound(r.error?.cause) &&
        r.error?.message.includes('echoservers.example.com/status') === true;
      expect(
        results.filter(
          (r, i) => (r.outcome === 'error' || r.outcome === 'terminal') && !raceWithDeletion(r, i),
        ),
      ).toEqual([]);
      expect(results.every((r) => r.controller === 'echo-server')).toBe(true);
    });
  },
  { simulateDeployments: true, realTimeoutMs: 150_000 },
);
