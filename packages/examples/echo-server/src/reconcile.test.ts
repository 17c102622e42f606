import { Action } from '@rxkube/core';
import { type ApplyChildrenResult, draftStatus, type KubeObject } from '@rxkube/kube';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';

import type { EchoServer } from './echo-server.js';
import {
  type Deployment,
  type DerivedStatus,
  deriveStatus,
  desiredChildren,
  ECHO_IMAGE,
  type EchoServerPorts,
  reconcileEchoServer,
  type Service,
  statusRecipe,
} from './reconcile.js';

const echo = (
  spec: { replicas: number; message: string; expose?: boolean },
  generation = 1,
  name = 'hello',
): EchoServer => ({
  apiVersion: 'example.com/v1',
  kind: 'EchoServer',
  metadata: { name, namespace: 'demo', uid: 'uid-1', generation, resourceVersion: '7' },
  spec,
});

const LABELS = {
  'app.kubernetes.io/name': 'http-echo',
  'app.kubernetes.io/instance': 'hello',
  'app.kubernetes.io/managed-by': 'echo-server-operator',
};
const SELECTOR = { 'app.kubernetes.io/name': 'http-echo', 'app.kubernetes.io/instance': 'hello' };

/** A Deployment as the server returns it: generation, and the status its controller wrote. */
const deployment = (generation: number, status: Deployment['status'] = {}): Deployment => ({
  ...(desiredChildren(echo({ replicas: 3, message: 'hi' }))[0] as Deployment),
  metadata: { name: 'hello', namespace: 'demo', generation },
  status,
});
const service: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'hello', namespace: 'demo' },
  spec: { ports: [{ name: 'http', port: 80, targetPort: 5678 }] },
};
const rolledOut = (n: number, observedGeneration = 1): Deployment['status'] => ({
  observedGeneration,
  ...(n > 0 ? { replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n } : {}),
  conditions: [
    { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
    { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
  ],
});

describe('desiredChildren', () => {
  it('wants a Deployment of http-echo answering the message, and a Service 80 → 5678', () => {
    expect(desiredChildren(echo({ replicas: 3, message: 'hi there' }))).toEqual([
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'hello', labels: LABELS },
        spec: {
          replicas: 3,
          selector: { matchLabels: SELECTOR },
          template: {
            metadata: { labels: LABELS },
            spec: {
              containers: [
                {
                  name: 'http-echo',
                  image: ECHO_IMAGE,
                  args: ['-text=hi there', '-listen=:5678'],
                  ports: [{ name: 'http', containerPort: 5678, protocol: 'TCP' }],
                  readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
                  resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
                },
              ],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'hello', labels: LABELS },
        spec: {
          type: 'ClusterIP',
          selector: SELECTOR,
          ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 5678 }],
        },
      },
    ]);
  });

  it('is pure: depends on the spec only, not on volatile metadata', () => {
    const a = echo({ replicas: 2, message: 'x' });
    const b: EchoServer = { ...a, metadata: { ...a.metadata, resourceVersion: '99', generation: 5 } };
    expect(desiredChildren(b)).toEqual(desiredChildren(a));
  });

  it('follows message and replicas; expose: false wants no Service (so it is pruned)', () => {
    const [d] = desiredChildren(echo({ replicas: 0, message: 'bye', expose: false })) as [Deployment];
    expect(desiredChildren(echo({ replicas: 0, message: 'bye', expose: false }))).toHaveLength(1);
    expect(d.kind).toBe('Deployment');
    expect(d.spec?.replicas).toBe(0);
    expect((d.spec?.template.spec['containers'] as { args: string[] }[])[0]?.args[0]).toBe('-text=bye');
    expect(desiredChildren(echo({ replicas: 1, message: 'x', expose: true })).map((c) => c.kind)).toEqual([
      'Deployment',
      'Service',
    ]);
  });
});

describe('deriveStatus', () => {
  const parent = echo({ replicas: 3, message: 'hi' }, 4);
  const ready = (status: 'True' | 'False', reason: string, message: string) => ({
    type: 'Ready',
    status,
    reason,
    message,
    observedGeneration: 4,
  });

  it('is Ready once every replica of the current spec is ready; the URL comes from the Service', () => {
    expect(deriveStatus(parent, { deployment: deployment(2, rolledOut(3, 2)), service })).toEqual({
      observedGeneration: 4,
      replicas: 3,
      readyReplicas: 3,
      url: 'http://hello.demo.svc:80',
      ready: ready('True', 'ReplicasReady', '3/3 replicas ready'),
    });
  });

  it('is not Ready while the Deployment has not observed its latest spec (its counts are stale)', () => {
    expect(deriveStatus(parent, { deployment: deployment(3, rolledOut(3, 2)), service }).ready).toEqual(
      ready('False', 'RollingOut', 'Deployment hello has not observed generation 3 yet'),
    );
  });

  it('is not Ready with pods missing or old pods left over', () => {
    const partial = { ...rolledOut(3), readyReplicas: 1, availableReplicas: 1 };
    expect(deriveStatus(parent, { deployment: deployment(1, partial) })).toMatchObject({
      readyReplicas: 1,
      ready: ready('False', 'ReplicasNotReady', '1/3 replicas ready'),
    });
    const surplus = { ...rolledOut(3), replicas: 4 }; // a rolling update still has an old pod
    expect(deriveStatus(parent, { deployment: deployment(1, surplus) }).ready.status).toBe('False');
  });

  it('reports a stuck rollout with the Deployment message', () => {
    const stuck = {
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "hello-5d7" has timed out progressing.',
        },
      ],
    };
    expect(deriveStatus(parent, { deployment: deployment(1, stuck) }).ready).toEqual(
      ready('False', 'ProgressDeadlineExceeded', 'ReplicaSet "hello-5d7" has timed out progressing.'),
    );
  });

  it('without a Deployment: not Ready, 0 ready; without a Service: no URL', () => {
    expect(deriveStatus(parent, {})).toEqual({
      observedGeneration: 4,
      replicas: 3,
      readyReplicas: 0,
      ready: ready('False', 'DeploymentMissing', 'Deployment hello does not exist'),
    });
  });

  it('scaled to zero: the server omits zero counts, and that is Ready', () => {
    const zero = echo({ replicas: 0, message: 'hi' }, 4);
    expect(deriveStatus(zero, { deployment: deployment(1, rolledOut(0)) })).toEqual({
      observedGeneration: 4,
      replicas: 0,
      readyReplicas: 0,
      ready: ready('True', 'ScaledToZero', 'scaled to 0 replicas'),
    });
  });
});

describe('statusRecipe', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const parent = echo({ replicas: 3, message: 'hi' }, 2);

  it('writes the fields and Ready; the same status again drafts nothing; a flip moves the transition time', () => {
    scheduler.run(({ flush }) => {
      const notReady = deriveStatus(parent, { deployment: deployment(1, rolledOut(0)), service });
      const first = draftStatus(parent, statusRecipe(notReady, scheduler));
      expect(first.next).toEqual({
        observedGeneration: 2,
        replicas: 3,
        readyReplicas: 0,
        url: 'http://hello.demo.svc:80',
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'ReplicasNotReady',
            message: '0/3 replicas ready',
            lastTransitionTime: '1970-01-01T00:00:00Z', // virtual time 0
            observedGeneration: 2,
          },
        ],
      });
      const written: EchoServer = { ...parent, status: first.next ?? {} };
      expect(draftStatus(written, statusRecipe(notReady, scheduler)).patch).toEqual([]);

      scheduler.schedule(() => undefined, 5_000);
      flush(); // virtual time 5 s
      const readyNow = deriveStatus(parent, { deployment: deployment(1, rolledOut(3)) }); // and no Service
      const second = draftStatus(written, statusRecipe(readyNow, scheduler));
      expect(second.next?.url).toBeUndefined();
      expect(second.next?.conditions?.[0]).toMatchObject({
        status: 'True',
        reason: 'ReplicasReady',
        lastTransitionTime: '1970-01-01T00:00:05Z',
      });
    });
  });
});

describe('reconcileEchoServer', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });
  const values = { a: Action.awaitChange() };

  it('applies, reads both children in parallel, writes the derived status, then awaits a change', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const apply = cold<ApplyChildrenResult>('--|');
      const getD = cold('                        -(d|)', { d: deployment(1, rolledOut(3)) });
      const getS = cold('                        ---(s|)', { s: service });
      const write = cold('                          --|');
      const expected = '                      -------(a|)';
      //                   apply completes at 2; reads from 2: Deployment done at 3, Service at 5 →
      //                   forkJoin at 5; the status write from 5, done at 7 → awaitChange at 7
      const applied: KubeObject[][] = [];
      const statuses: DerivedStatus[] = [];
      const ports: EchoServerPorts = {
        applyChildren: (_p, desired) => {
          applied.push([...desired]);
          return apply;
        },
        getDeployment: () => getD,
        getService: () => getS,
        writeStatus: (d) => {
          statuses.push(d);
          return write;
        },
      };
      const parent = echo({ replicas: 3, message: 'hi' });
      expectObservable(reconcileEchoServer(parent, ports)).toBe(expected, values);
      expectSubscriptions(apply.subscriptions).toBe('^-!');
      expectSubscriptions(getD.subscriptions).toBe(' --^!');
      expectSubscriptions(getS.subscriptions).toBe(' --^--!');
      expectSubscriptions(write.subscriptions).toBe('-----^-!');
      scheduler.flush();
      expect(applied).toEqual([desiredChildren(parent)]);
      expect(statuses).toEqual([deriveStatus(parent, { deployment: deployment(1, rolledOut(3)), service })]);
      expect(statuses[0]?.ready.status).toBe('True');
    });
  });

  it('expose: false reads no Service and derives no URL', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const getS = cold('s|', { s: service });
      const statuses: DerivedStatus[] = [];
      const ports: EchoServerPorts = {
        applyChildren: () => cold<ApplyChildrenResult>('-|'),
        getDeployment: () => cold('-(d|)', { d: deployment(1, rolledOut(1)) }),
        getService: () => getS,
        writeStatus: (d) => {
          statuses.push(d);
          return cold('-|');
        },
      };
      expectObservable(reconcileEchoServer(echo({ replicas: 1, message: 'hi', expose: false }), ports)).toBe(
        '---(a|)',
        values,
      ); // apply done at 1, Deployment read at 2, status written at 3
      expectSubscriptions(getS.subscriptions).toBe([]);
      scheduler.flush();
      expect(statuses[0]?.url).toBeUndefined();
    });
  });

  it('a failed apply errors at once: nothing read, no status written (the controller backs off)', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const getD = cold<Deployment>('d|');
      const write = cold('w|');
      const ports: EchoServerPorts = {
        applyChildren: () => cold<ApplyChildrenResult>('--#', undefined, new Error('apply refused')),
        getDeployment: () => getD,
        getService: () => cold<Service>('s|'),
        writeStatus: () => write,
      };
      expectObservable(reconcileEchoServer(echo({ replicas: 1, message: 'hi' }), ports)).toBe(
        '--#',
        undefined,
        new Error('apply refused'),
      );
      expectSubscriptions(getD.subscriptions).toBe([]);
      expectSubscriptions(write.subscriptions).toBe([]);
    });
  });

  it('a failed status write is the reconcile error', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const ports: EchoServerPorts = {
        applyChildren: () => cold<ApplyChildrenResult>('|'),
        getDeployment: () => cold<Deployment>('|'), // gone: DeploymentMissing
        getService: () => cold<Service>('|'),
        writeStatus: () => cold('-#', undefined, new Error('409 storm')),
      };
      expectObservable(reconcileEchoServer(echo({ replicas: 1, message: 'hi' }), ports)).toBe(
        '-#',
        undefined,
        new Error('409 storm'),
      );
    });
  });
});
