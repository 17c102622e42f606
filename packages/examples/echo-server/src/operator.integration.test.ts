/**
 * The echo-server operator end to end over HTTP, through the Manager, against `@rxkube/testing`'s
 * API server with its simulated Deployment controller (Deployments report ready pods):
 * create → children with controller references → Ready → spec change → Deployment updated →
 * expose: false → Service pruned → a child change reruns the parent → delete → children collected.
 *
 * Waiting is deterministic: every wait re-checks the server's state after each reconcile result
 * and each watch event of the kinds involved, bounded by a failure timeout — never a sleep.
 */
import { KubeClient, Manager, type KubeObject, type ManagedResult, watchResource } from '@rxkube/kube';
import { type ApiServer, startApiServer } from '@rxkube/testing';
import { filter, firstValueFrom, merge, type Observable, of, share, type Subscription, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { EchoServer } from './echo-server.js';
import { echoServerRows, name, setup } from './operator.js';
import { deploymentType, ECHO_IMAGE, serviceType } from './reconcile.js';

const NS = 'echo';
const ECHO = 'echoservers.example.com';

describe('echo-server operator (Manager, over HTTP, simulated Deployment controller)', () => {
  let server: ApiServer;
  let client: KubeClient;
  let mgr: Manager;
  const results: ManagedResult[] = [];
  let changes$: Observable<unknown>;
  const subs: Subscription[] = [];

  beforeAll(async () => {
    server = await startApiServer({ simulateDeployments: true });
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    mgr = new Manager({ client, name, namespaces: [NS], logLevel: 'silent' });
    await setup(mgr);
    subs.push(mgr.results$.subscribe((r) => results.push(r)));
    // every change of the kinds involved, to re-check the server's state on (never a sleep)
    changes$ = merge(
      mgr.results$,
      ...[deploymentType, serviceType, { apiVersion: 'example.com/v1', kind: 'EchoServer' }].map((t) =>
        watchResource(client, t, { namespace: NS, metadataOnly: true }),
      ),
    ).pipe(share());
    subs.push(changes$.subscribe());
    await mgr.start();
  });
  afterAll(async () => {
    for (const s of subs) s.unsubscribe();
    await mgr.stop();
    client.close();
    await server.stop();
  });

  /** Resolves once `probe()` holds, re-checking after every result and watch event; fails after 10 s. */
  const until = async (what: string, probe: () => boolean): Promise<void> => {
    await firstValueFrom(
      merge(of(0), changes$).pipe(
        filter(() => probe()),
        timeout({ first: 10_000, with: () => Promise.reject(new Error(`timed out waiting for ${what}`)) }),
      ),
    );
  };
  const echo = (): EchoServer | undefined => server.object(ECHO, NS, 'hello') as EchoServer | undefined;
  const deployment = (): KubeObject | undefined =>
    server.object('deployments.apps', NS, 'hello') as KubeObject | undefined;
  const service = (): KubeObject | undefined =>
    server.object('services', NS, 'hello') as KubeObject | undefined;
  const readyCondition = () => echo()?.status?.conditions?.find((c) => c.type === 'Ready');
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
    await until('Ready with 2 ready replicas', () => readyCondition()?.status === 'True');
    const owner = {
      apiVersion: 'example.com/v1',
      kind: 'EchoServer',
      name: 'hello',
      uid,
      controller: true,
      blockOwnerDeletion: true,
    };
    expect(deployment()?.metadata.ownerReferences).toEqual([owner]);
    expect(service()?.metadata.ownerReferences).toEqual([owner]);
    expect(specOf(deployment())['replicas']).toBe(2);
    expect(argsOf(deployment())).toEqual(['-text=hello world', '-listen=:5678']);
    expect(JSON.stringify(specOf(deployment())['template'])).toContain(ECHO_IMAGE);
    expect(specOf(service())['ports']).toEqual([
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 5678 },
    ]);
    expect(deployment()?.metadata.managedFields).toContainEqual(
      expect.objectContaining({ manager: 'echo-server', operation: 'Apply' }),
    );
    expect(echo()?.status).toEqual({
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
    const rvs = [echo(), deployment(), service()].map((o) => o?.metadata.resourceVersion);
    const mark = results.length;
    await client.patch(
      { ...serviceType, namespace: NS, name: 'hello' },
      { type: 'merge', body: { metadata: { annotations: { touched: 'yes' } } } },
    );
    const touchedRv = service()?.metadata.resourceVersion;
    await until('a reconcile after the Service changed', () =>
      results.slice(mark).some((r) => r.key === `${NS}/hello` && r.outcome === 'success'),
    );
    expect([echo(), deployment(), service()].map((o) => o?.metadata.resourceVersion)).toEqual([
      rvs[0],
      rvs[1],
      touchedRv,
    ]);

    // 2. message and replicas change: the Deployment follows, the status catches up with generation 2
    await client.patch(
      { apiVersion: 'example.com/v1', kind: 'EchoServer', namespace: NS, name: 'hello' },
      { type: 'merge', body: { spec: { message: 'bye', replicas: 3 } } },
    );
    await until(
      'generation 2 ready with 3 replicas',
      () =>
        echo()?.status?.observedGeneration === 2 &&
        echo()?.status?.readyReplicas === 3 &&
        readyCondition()?.observedGeneration === 2 &&
        readyCondition()?.status === 'True',
    );
    expect(argsOf(deployment())).toEqual(['-text=bye', '-listen=:5678']);
    expect(specOf(deployment())['replicas']).toBe(3);
    expect(readyCondition()).toMatchObject({
      status: 'True',
      message: '3/3 replicas ready',
      observedGeneration: 2,
    });

    // 3. expose: false — the Service is pruned, the URL goes, the Deployment stays
    const serviceUid = service()?.metadata.uid;
    await client.patch(
      { apiVersion: 'example.com/v1', kind: 'EchoServer', namespace: NS, name: 'hello' },
      { type: 'merge', body: { spec: { expose: false } } },
    );
    await until(
      'the Service pruned and the status without url',
      () => service() === undefined && echo()?.status?.observedGeneration === 3,
    );
    expect(echo()?.status?.url).toBeUndefined();
    expect(readyCondition()?.status).toBe('True');
    expect(deployment()).toBeDefined();
    expect(serviceUid).toBeDefined();

    // 4. a child change reruns the parent: a deleted Deployment is re-created and becomes ready again
    const oldDeploymentUid = deployment()?.metadata.uid;
    await client.delete({ ...deploymentType, namespace: NS, name: 'hello' });
    await until(
      'a new Deployment, ready',
      () =>
        deployment() !== undefined &&
        deployment()?.metadata.uid !== oldDeploymentUid &&
        (deployment()?.['status'] as { readyReplicas?: number } | undefined)?.readyReplicas === 3 &&
        readyCondition()?.status === 'True',
    );

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

    // 5. delete the EchoServer: the garbage collector removes its children
    await client.delete({ apiVersion: 'example.com/v1', kind: 'EchoServer', namespace: NS, name: 'hello' });
    await until(
      'the children collected',
      () =>
        echo() === undefined &&
        server.objects('deployments.apps', NS).length === 0 &&
        server.objects('services', NS).length === 0,
    );
    expect(results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);
    expect(results.every((r) => r.controller === 'echo-server')).toBe(true);
  });
});
