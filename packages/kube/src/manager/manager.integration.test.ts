import { EventEmitter } from 'node:events';
import { KubeConfig } from '@kubernetes/client-node';
import { Writable } from 'node:stream';
import { Action } from '@rxkube/core';
import { rbacGrant, startApiServer, type ApiServer } from '@rxkube/testing';
import type { Observable } from 'rxjs';
import {
  filter,
  firstValueFrom,
  NEVER,
  Observable as RxObservable,
  ReplaySubject,
  Subject,
  timeout,
} from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { createLogger } from '../ops/logging.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import { step, VirtualClock } from '../leader/virtual-clock.test.helper.js';
import type { ManagedResult } from './manager.js';
import { Manager, ManagerStartError } from './manager.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

/** A reconcile that records its calls and cancellations; keys in `hold` wait for `release(key)`. */
class Probe {
  readonly calls: string[] = [];
  readonly cancelled: string[] = [];
  readonly started$ = new ReplaySubject<string>(1000);
  private readonly gates = new Map<string, Subject<Action>>();

  constructor(private readonly hold: readonly string[] = []) {}

  readonly reconcile = (request: ObjectRef): Observable<Action> =>
    new RxObservable<Action>((subscriber) => {
      const key = objectKey(request);
      this.calls.push(key);
      this.started$.next(key);
      if (!this.hold.includes(key)) {
        subscriber.next(Action.awaitChange());
        subscriber.complete();
        return undefined;
      }
      const gate = new Subject<Action>();
      this.gates.set(key, gate);
      let done = false;
      const sub = gate.subscribe({
        next: (a) => {
          done = true; // the applier takes the first Action and unsubscribes
          subscriber.next(a);
        },
        complete: () => {
          done = true;
          subscriber.complete();
        },
      });
      return () => {
        if (!done) this.cancelled.push(key);
        sub.unsubscribe();
      };
    });

  started(key: string): Promise<string> {
    return firstValueFrom(
      this.started$.pipe(
        filter((k) => k === key),
        timeout(10_000),
      ),
    );
  }

  release(key: string): void {
    const gate = this.gates.get(key);
    gate?.next(Action.awaitChange());
    gate?.complete();
  }
}

function collect(mgr: Manager): {
  all: ManagedResult[];
  until(p: (r: ManagedResult) => boolean): Promise<ManagedResult>;
} {
  const seen = new ReplaySubject<ManagedResult>(10_000);
  const all: ManagedResult[] = [];
  mgr.results$.subscribe((r) => {
    all.push(r);
    seen.next(r);
  });
  return {
    all,
    until: (p) => firstValueFrom(seen.pipe(filter(p), timeout(10_000))),
  };
}

async function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

describe('Manager (over HTTP)', () => {
  let server: ApiServer;
  let client: KubeClient;

  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    for (const ns of ['shared', 'le', 'drain', 'deadline', 'sig', 'ns-a', 'ns-b', 'ns-c', 'ops']) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  const configMap = (namespace: string, name: string): Promise<KubeObject> =>
    client.create({ ...CM, metadata: { namespace, name }, data: { a: '1' } });

  it('shares one upstream watch per target between its controllers and reconciles with each', async () => {
    const mgr = new Manager({ client, name: 'shared-test', logLevel: 'silent' });
    const one = new Probe();
    const two = new Probe();
    mgr.add('one', { for: CM, namespace: 'shared' }, one.reconcile);
    mgr.add('two', { for: CM, namespace: 'shared' }, two.reconcile);
    const results = collect(mgr);
    const before = server.openWatches;
    await mgr.start();
    await configMap('shared', 'x');
    await results.until((r) => r.controller === 'one' && r.key === 'shared/x');
    await results.until((r) => r.controller === 'two' && r.key === 'shared/x');
    expect(server.openWatches - before).toBe(1);
    expect(mgr.targets()).toHaveLength(1);
    await mgr.stop();
    // The server sees the watch's connection close a moment later.
    for (let i = 0; i < 10_000 && server.openWatches !== before; i++)
      await new Promise((r) => setImmediate(r));
    expect(server.openWatches).toBe(before);
  });

  it('reconciles only while leading; a frozen leader is replaced and its work in flight is cancelled on waking', async () => {
    const clockA = new VirtualClock();
    const clockB = new VirtualClock();
    const election = (identity: string, clock: VirtualClock) => ({
      leaseName: 'le-test',
      leaseNamespace: 'ops',
      identity,
      random: () => 0,
      scheduler: clock.scheduler,
    });
    const a = new Manager({
      client,
      name: 'le-test',
      logLevel: 'silent',
      leaderElection: election('a', clockA),
    });
    const b = new Manager({
      client,
      name: 'le-test',
      logLevel: 'silent',
      leaderElection: election('b', clockB),
    });
    const probeA = new Probe(['le/slow']);
    const probeB = new Probe();
    a.add('cms', { for: CM, namespace: 'le' }, probeA.reconcile);
    b.add('cms', { for: CM, namespace: 'le' }, probeB.reconcile);
    const resultsA = collect(a);
    const resultsB = collect(b);
    const leadingA: boolean[] = [];
    a.leadership$.subscribe((l) => leadingA.push(l));
    await a.start();
    await b.start();
    await step(clockA, a.elector!, 0);
    expect(await step(clockB, b.elector!, 0)).toMatchObject({ leading: false, holder: 'a' });

    await configMap('le', 'one');
    await resultsA.until((r) => r.key === 'le/one');
    await configMap('le', 'slow');
    await probeA.started('le/slow');
    expect(probeB.calls).toEqual([]); // the standby keeps its cache warm but reconciles nothing

    // a freezes; b takes over after the lease duration and reconciles everything from its cache.
    for (let t = 0; t < 8; t++) await step(clockB, b.elector!, 2_000);
    expect(b.elector!.isLeader).toBe(true);
    await resultsB.until((r) => r.key === 'le/one');
    await resultsB.until((r) => r.key === 'le/slow');
    expect(probeA.cancelled).toEqual([]); // a is frozen: it does not know yet

    // a wakes: its renew finds b holding the lease; its reconcile in flight is cancelled at once.
    expect(await step(clockA, a.elector!, 2_000)).toMatchObject({ leading: false, holder: 'b' });
    expect(leadingA).toEqual([false, true, false]);
    expect(probeA.cancelled).toEqual(['le/slow']);
    expect(a.inFlight).toBe(0);

    await configMap('le', 'three');
    await resultsB.until((r) => r.key === 'le/three');
    expect(probeA.calls).not.toContain('le/three');
    expect(resultsA.all.some((r) => r.key === 'le/slow')).toBe(false); // cancelled: no result

    await a.stop();
    await b.stop();
    const lease = await client.get<{ spec: { holderIdentity: string } }>({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: 'ops',
      name: 'le-test',
    });
    expect(lease.spec.holderIdentity).toBe(''); // b released it on stop
  });

  it('stop(): intake stops at once, the reconcile in flight finishes, then it resolves drained', async () => {
    const lines: string[] = [];
    const log = createLogger({
      level: 'info',
      destination: new Writable({ write: (chunk: Buffer, _e, cb) => (lines.push(chunk.toString()), cb()) }),
    });
    const mgr = new Manager({ client, name: 'drain-test', log });
    const probe = new Probe(['drain/slow']);
    mgr.add('cms', { for: CM, namespace: 'drain' }, probe.reconcile);
    const results = collect(mgr);
    let completed = false;
    mgr.results$.subscribe({ complete: () => (completed = true) });
    await mgr.start();
    await configMap('drain', 'slow');
    await probe.started('drain/slow');

    const stopping = mgr.stop();
    await configMap('drain', 'late'); // after intake stopped: never reconciled
    expect(mgr.inFlight).toBe(1);
    probe.release('drain/slow');
    const report = await stopping;
    expect(report).toMatchObject({ drained: true, cancelled: 0 });
    expect(probe.cancelled).toEqual([]);
    expect(results.all.map((r) => [r.key, r.outcome])).toEqual([['drain/slow', 'success']]);
    expect(probe.calls).not.toContain('drain/late');
    expect(completed).toBe(true);
    expect(await mgr.stop()).toBe(report); // idempotent

    const reconcileLines = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'reconcile success');
    expect(reconcileLines).toHaveLength(1);
    expect(reconcileLines[0]).toMatchObject({ controller: 'cms', key: 'drain/slow', result: 'success' });
    expect(typeof reconcileLines[0]?.['durationMs']).toBe('number');
  });

  it('stop(): at the deadline, reconciles still in flight are cancelled and the report says so', async () => {
    const mgr = new Manager({ client, name: 'deadline-test', logLevel: 'silent', shutdownTimeoutMs: 50 });
    const probe = new Probe(['deadline/stuck']);
    mgr.add('cms', { for: CM, namespace: 'deadline' }, probe.reconcile);
    await mgr.start();
    await configMap('deadline', 'stuck');
    await probe.started('deadline/stuck');
    const report = await mgr.stop(); // the reconcile never finishes
    expect(report).toMatchObject({ drained: false, cancelled: 1 });
    expect(probe.cancelled).toEqual(['deadline/stuck']);
    expect(mgr.inFlight).toBe(0);
  });

  it('run(): the first SIGTERM drains and resolves 0; a second signal exits at once', async () => {
    const proc = new EventEmitter();
    const exits: number[] = [];
    const mgr = new Manager({ client, name: 'signal-test', logLevel: 'silent' });
    const probe = new Probe(['sig/slow']);
    mgr.add('cms', { for: CM, namespace: 'sig' }, probe.reconcile);
    const code = mgr.run({ process: proc, exit: (c) => exits.push(c) });
    await configMap('sig', 'slow');
    await probe.started('sig/slow');
    proc.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([]);
    proc.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    probe.release('sig/slow');
    expect(await code).toBe(0);
    expect(proc.listenerCount('SIGTERM')).toBe(0);
  });

  it('runs each controller once per configured namespace and ignores the others', async () => {
    const mgr = new Manager({ client, name: 'ns-test', logLevel: 'silent', namespaces: ['ns-a', 'ns-b'] });
    const probe = new Probe();
    mgr.add('cms', { for: CM }, probe.reconcile);
    const results = collect(mgr);
    await mgr.start();
    await configMap('ns-c', 'c');
    await configMap('ns-a', 'a');
    await configMap('ns-b', 'b');
    await results.until((r) => r.key === 'ns-a/a');
    await results.until((r) => r.key === 'ns-b/b');
    expect(mgr.targets().map((t) => t.namespace)).toEqual(['ns-a', 'ns-b']);
    await mgr.stop();
    expect(probe.calls).not.toContain('ns-c/c');
  });

  it('runs a controller of a cluster-scoped kind once, cluster-wide, when namespaces are set', async () => {
    const mgr = new Manager({ client, name: 'scope-test', logLevel: 'silent', namespaces: ['ns-a', 'ns-b'] });
    const probe = new Probe();
    mgr.add('namespaces', { for: { apiVersion: 'v1', kind: 'Namespace' } }, probe.reconcile);
    mgr.add('cms', { for: CM }, () => NEVER);
    const results = collect(mgr);
    await mgr.start();
    await results.until((r) => r.key === 'ns-c');
    expect(mgr.targets().map((t) => [t.resource.kind, t.namespace])).toEqual([
      ['Namespace', undefined],
      ['ConfigMap', 'ns-a'],
      ['ConfigMap', 'ns-b'],
    ]);
    await mgr.stop();
    expect(probe.calls.filter((k) => k === 'ns-c')).toHaveLength(1);
  });

  it('serves /healthz, /readyz naming a kind the server does not serve, and /metrics with controller-runtime names', async () => {
    const mgr = new Manager({
      client,
      name: 'probe-test',
      logLevel: 'silent',
      healthPort: 0,
      metricsPort: 0,
      host: '127.0.0.1',
    });
    const probe = new Probe();
    mgr.add('cms', { for: CM, namespace: 'shared' }, probe.reconcile);
    mgr.add('gadgets', { for: { apiVersion: 'example.com/v1', kind: 'Gadget' } }, () => NEVER);
    const results = collect(mgr);
    await mgr.start();
    const [health, metrics] = mgr.ports as [number, number];
    expect((await httpGet(health, '/healthz')).status).toBe(200);
    await configMap('shared', 'probed');
    await results.until((r) => r.key === 'shared/probed');
    let ready = await httpGet(health, '/readyz?verbose');
    for (let i = 0; i < 200 && !ready.body.includes('Gadget'); i++) {
      await new Promise((r) => setImmediate(r));
      ready = await httpGet(health, '/readyz?verbose');
    }
    expect(ready.status).toBe(500);
    expect(ready.body).toMatch(/\[-\]watches failed: .*example\.com\/v1\/Gadget/);
    expect(ready.body).toMatch(/\[-\]caches failed: caches not synced yet: example\.com\/v1\/Gadget/);
    const text = (await httpGet(metrics, '/metrics')).body;
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="cms",result="success"\} [1-9]/);
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="cms"} 1');
    expect(text).toContain('workqueue_adds_total{name="cms",controller="cms"}');
    await mgr.stop();
    await expect(fetch(`http://127.0.0.1:${health}/healthz`)).rejects.toThrow();
  });

  it('runs runnables with the manager: gated ones only while leading; a failing one is logged, not fatal', async () => {
    const clock = new VirtualClock();
    const lines: string[] = [];
    const log = createLogger({
      level: 'error',
      destination: new Writable({ write: (chunk: Buffer, _e, cb) => (lines.push(chunk.toString()), cb()) }),
    });
    const mgr = new Manager({
      client,
      name: 'runnable-test',
      log,
      leaderElection: { leaseNamespace: 'ops', identity: 'r', random: () => 0, scheduler: clock.scheduler },
    });
    const active = { gated: 0, always: 0 };
    const track = (which: 'gated' | 'always') => () =>
      new RxObservable<never>(() => {
        active[which]++;
        return () => active[which]--;
      });
    mgr.add('cms', { for: CM, namespace: 'shared' }, new Probe().reconcile);
    mgr.addRunnable('gated', track('gated'));
    mgr.addRunnable('always', track('always'), { leaderElection: false });
    mgr.addRunnable('broken', () => {
      throw new Error('cannot start');
    });
    expect(() => mgr.addRunnable('gated', track('gated'))).toThrow(/must be unique/);
    await mgr.start();
    expect(active).toEqual({ gated: 0, always: 1 });
    await step(clock, mgr.elector!, 0);
    expect(active).toEqual({ gated: 1, always: 1 });
    expect(lines.join('')).toMatch(/"runnable":"broken".*runnable broken failed/);
    await mgr.stop();
    expect(active).toEqual({ gated: 0, always: 0 });
    expect(() => mgr.addRunnable('late', track('gated'))).toThrow(/before start/);
  });

  it('starts nothing when stop() is called while start() is still binding its ports', async () => {
    const mgr = new Manager({
      client,
      name: 'early-stop',
      logLevel: 'silent',
      healthPort: 0,
      host: '127.0.0.1',
    });
    const probe = new Probe();
    mgr.add('cms', { for: CM, namespace: 'shared' }, probe.reconcile);
    const starting = mgr.start();
    const report = await mgr.stop();
    await starting;
    expect(report).toMatchObject({ drained: true, cancelled: 0 });
    expect(mgr.ports).toEqual([]);
    await configMap('shared', 'after-early-stop');
    expect(probe.calls).toEqual([]);
  });

  it('refuses to start, naming the ports, when the health port is taken', async () => {
    const first = new Manager({
      client,
      name: 'port-a',
      logLevel: 'silent',
      healthPort: 0,
      host: '127.0.0.1',
    });
    first.add('cms', { for: CM, namespace: 'shared' }, () => NEVER);
    await first.start();
    const taken = first.ports[0] ?? 0;
    const second = new Manager({
      client,
      name: 'port-b',
      logLevel: 'silent',
      healthPort: taken,
      host: '127.0.0.1',
    });
    second.add('cms', { for: CM, namespace: 'shared' }, () => NEVER);
    const error: unknown = await second.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManagerStartError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `port-b: cannot serve probes or metrics \\(health port ${taken}.*EADDRINUSE.*pick free ports`,
      ),
    );
    await first.stop();
  });

  it('refuses bad registrations with typed errors', async () => {
    const mgr = new Manager({ client, name: 'bad-test', logLevel: 'silent' });
    mgr.add('cms', { for: CM }, () => NEVER);
    expect(() => mgr.add('cms', { for: CM }, () => NEVER)).toThrow(/must be unique/);
    expect(() => mgr.add('Bad Name', { for: CM }, () => NEVER)).toThrow(/lower-case name/);
    expect(() => mgr.add('x', { for: { apiVersion: '', kind: 'X' } }, () => NEVER)).toThrow(/options.for/);
    expect(() => new Manager({ client, name: 'x', concurrency: 0 })).toThrow(/concurrency/);
    await mgr.start();
    expect(() => mgr.add('late', { for: CM }, () => NEVER)).toThrow(/before start/);
    await mgr.stop();
  });
});

describe('Manager leader election refused by RBAC (over HTTP)', () => {
  it('is unready naming the Lease and the verbs to grant, and never leads', async () => {
    const server = await startApiServer({
      auth: {
        tokens: { admin: { name: 'admin', groups: ['system:masters'] }, op: 'operator' },
        rbac: rbacGrant('operator', [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
        ]),
      },
    });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: server.url, skipTLSVerify: false }],
      users: [{ name: 'op', token: 'op' }],
      contexts: [{ name: 'op', cluster: 'c', user: 'op' }],
      currentContext: 'op',
    });
    const client = KubeClient.fromKubeConfig(kc);
    const clock = new VirtualClock();
    const mgr = new Manager({
      client,
      name: 'refused',
      logLevel: 'silent',
      leaderElection: {
        leaseNamespace: 'default',
        identity: 'a',
        random: () => 0,
        scheduler: clock.scheduler,
      },
    });
    mgr.add('cms', { for: CM }, () => NEVER);
    await mgr.start();
    const attempt = await step(clock, mgr.elector!, 0);
    expect(attempt.leading).toBe(false);
    const election = mgr.readinessChecks().find((c) => c.name === 'leader-election');
    const result = election?.check();
    expect(result?.ok).toBe(false);
    expect(result?.ok === false ? result.reason : '').toMatch(
      /^Lease default\/refused refused: .*forbidden.* — grant get, create and update on coordination\.k8s\.io leases in namespace default$/,
    );
    await mgr.stop();
    client.close();
    await server.stop();
  });
});
