import { EventEmitter } from 'node:events';
import { KubeConfig } from '@kubernetes/client-node';
import { Writable } from 'node:stream';
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
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
import { afterAll, beforeAll, expect, it } from 'vitest';

import { clientAs, limitedUsers, openWatches, permit } from '../client/backends.test.helper.js';
import { KubeClient } from '../client/kube-client.js';
import { createLogger } from '../ops/logging.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import { step, VirtualClock } from '../leader/virtual-clock.test.helper.js';
import type { ControllerResult } from '../controller/controller.js';
import { Manager } from './manager.js';
import { ManagerStartError } from './manager-options.js';

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
  all: ControllerResult[];
  until(p: (r: ControllerResult) => boolean): Promise<ControllerResult>;
} {
  const seen = new ReplaySubject<ControllerResult>(10_000);
  const all: ControllerResult[] = [];
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

const users = limitedUsers({ op: 'operator', wop: 'watch-operator', cop: 'crd-operator' });

const SPROCKET = { apiVersion: 'example.com/v1', kind: 'Sprocket' } as const;
const SPROCKET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'sprockets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', listKind: 'SprocketList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

describeEachBackend(
  'Manager (over HTTP)',
  (b) => {
    let client: KubeClient;

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      for (const ns of [
        'shared',
        'le',
        'drain',
        'deadline',
        'sig',
        'ns-a',
        'ns-b',
        'ns-c',
        'ops',
        'refused-watch',
      ]) {
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      }
    });
    afterAll(() => {
      client.close();
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
      const watches = (): Promise<number> => openWatches(b.cluster, 'configmaps', 'namespace');
      const before = await watches();
      await mgr.start();
      await configMap('shared', 'x');
      await results.until((r) => r.controller === 'one' && r.key === 'shared/x');
      await results.until((r) => r.controller === 'two' && r.key === 'shared/x');
      // One more namespaced configmaps watch than before: waited for, not sampled once, since
      // the real servers' own kube-system watches re-open now and then (see openWatches).
      await waitFor('one upstream watch for both controllers', async () => (await watches()) - before === 1);
      expect(mgr.targets()).toHaveLength(1);
      await mgr.stop();
      // The server sees the watch's connection close a moment later.
      await waitFor('the server to see the watch closed', async () => (await watches()) === before);
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
        onLeaderLoss: 'campaign', // this test follows a leader that campaigns again
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
      const mgr = new Manager({
        client,
        name: 'scope-test',
        logLevel: 'silent',
        namespaces: ['ns-a', 'ns-b'],
      });
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
      const ready = await waitFor('/readyz naming the Gadget watch', async () => {
        const r = await httpGet(health, '/readyz?verbose');
        return /kinds failed: .*Gadget/.test(r.body) ? r : undefined;
      });
      expect(ready.status).toBe(500);
      // named once, in `kinds` (not again in `watches`), with what to install and who waits
      expect(ready.body).toMatch(
        /\[-\]kinds failed: example\.com\/v1 Gadget is not served .*install the CustomResourceDefinition of kind Gadget in group example\.com serving v1 — controller gadgets waits/,
      );
      expect(ready.body).toContain('[+]watches ok');
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
          `port-b: cannot serve probes or metrics \\(probes at 127\\.0\\.0\\.1:${taken}.*EADDRINUSE.*pick free`,
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

    it('logs a refused watch once per streak, naming the permission to grant, and a line when it recovers', async () => {
      // the operator may list ConfigMaps in its namespace, but not watch them
      const permission = {
        user: 'watch-operator',
        group: '',
        resources: ['configmaps'],
        namespace: 'refused-watch',
      } as const;
      await permit(client, { ...permission, verbs: ['list'] });
      const opClient = clientAs(b.cluster, 'wop');
      const lines: Record<string, unknown>[] = [];
      const log = createLogger({
        level: 'info',
        destination: new Writable({
          write: (chunk: Buffer, _e, cb) => (
            lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>),
            cb()
          ),
        }),
      });
      const mgr = new Manager({
        client: opClient,
        name: 'watch-refused',
        log,
        healthPort: 0,
        host: '127.0.0.1',
        watcher: { backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0.5, resetAfterMs: 120_000 } },
      });
      const probe = new Probe();
      mgr.add('cms', { for: CM, namespace: 'refused-watch' }, probe.reconcile);
      const results = collect(mgr);
      const watchErrors = async (): Promise<number> =>
        Number(
          /rxkube_watch_errors_total\{resource="v1\/ConfigMap",namespace="refused-watch"\} (\d+)/.exec(
            await mgr.metrics.metrics(),
          )?.[1] ?? 0,
        );
      const refusedLines = () => lines.filter((l) => String(l['msg']).includes(' refused: '));
      const recoveredLines = () => lines.filter((l) => String(l['msg']).includes('recovered'));
      try {
        await mgr.start();
        // the list is allowed (a real server's RBAC applies the grant a moment later), the watch not
        await waitFor('five refused watches', async () => (await watchErrors()) >= 5);
        expect(refusedLines()).toHaveLength(1); // once per streak, not once per retry
        expect(refusedLines()[0]).toMatchObject({
          level: 40,
          watch: 'v1/ConfigMap in namespace refused-watch',
          code: 403,
          verb: 'watch',
          group: '',
          resource: 'configmaps',
          namespace: 'refused-watch',
        });
        expect(refusedLines()[0]?.['msg']).toContain(
          'grant "list" and "watch" on configmaps in namespace refused-watch (the server refused "watch")',
        );
        // /readyz advises the same verbs as the log (granting only "list" leaves the watch refused)
        const readyz = await httpGet(mgr.ports[0] ?? 0, '/readyz?verbose');
        expect(readyz.status).toBe(500);
        expect(readyz.body).toContain(
          '403 Forbidden — grant "list" and "watch" on configmaps in namespace refused-watch (the server refused "watch")',
        );

        // granted: the next watch opens; its first line proves it works (an open request alone
        // does not: a refused one is open for a moment too)
        await permit(client, { ...permission, verbs: ['watch'] });
        await configMap('refused-watch', 'after-grant');
        await results.until((r) => r.key === 'refused-watch/after-grant');
        await waitFor('the recovery line', () => recoveredLines().length > 0);
        expect(recoveredLines()).toEqual([
          expect.objectContaining({ level: 30, watch: 'v1/ConfigMap in namespace refused-watch' }),
        ]);
        expect(refusedLines()).toHaveLength(1);
      } finally {
        await mgr.stop();
        opClient.close();
      }
    });

    it('keeps running unready when installing its CRD is refused, and recovers once it is granted', async () => {
      // the operator may watch Sprockets, but not write their CRD
      await permit(client, {
        user: 'crd-operator',
        verbs: ['list', 'watch'],
        group: 'example.com',
        resources: ['sprockets'],
      });
      const opClient = clientAs(b.cluster, 'cop');
      const lines: Record<string, unknown>[] = [];
      const log = createLogger({
        level: 'info',
        destination: new Writable({
          write: (chunk: Buffer, _e, cb) => (
            lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>),
            cb()
          ),
        }),
      });
      const mgr = new Manager({
        client: opClient,
        name: 'sprocket-operator',
        log,
        healthPort: 0,
        host: '127.0.0.1',
        watcher: { backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0.5, resetAfterMs: 120_000 } },
      });
      const refusedLines = () => lines.filter((l) => String(l['msg']).includes('could not be installed'));
      try {
        // setup: refused, yet it resolves — the operator starts instead of exiting
        expect(await mgr.ensureCrd(SPROCKET_CRD, { pollIntervalMs: 20 })).toBeUndefined();
        expect(mgr.installedCrds).toEqual(['sprockets.example.com']); // still in the generated RBAC
        const probe = new Probe();
        mgr.add('sprockets', { for: SPROCKET }, probe.reconcile);
        const results = collect(mgr);
        await mgr.start();
        const [health] = mgr.ports as [number];
        const unready = await httpGet(health, '/readyz?verbose');
        expect(unready.status).toBe(500);
        expect(unready.body).toMatch(
          /\[-\]crds failed: CRD sprockets\.example\.com not installed \(forbidden: .*"customresourcedefinitions".*\) — grant get and patch on apiextensions\.k8s\.io customresourcedefinitions named sprockets\.example\.com/,
        );
        expect(refusedLines()).toEqual([
          expect.objectContaining({ level: 40, crd: 'sprockets.example.com' }),
        ]);

        await permit(client, {
          user: 'crd-operator',
          verbs: ['get', 'patch'],
          group: 'apiextensions.k8s.io',
          resources: ['customresourcedefinitions'],
          resourceNames: ['sprockets.example.com'],
        });
        // and the CRD applied ahead, as kustomize or Helm would: a server-side apply that creates
        // needs "create" on every CRD, which resourceNames cannot limit (a real server refuses it
        // with get and patch alone)
        await client.apply(SPROCKET_CRD, { fieldManager: 'kubectl' });
        await waitFor(
          'the CRD installed by the retry',
          () => lines.some((l) => String(l['msg']).includes('CRD sprockets.example.com installed')),
          { timeoutMs: 30_000 },
        );
        client.discovery.invalidate(); // the admin's client looked up example.com/v1 before it was served
        await client.create({ ...SPROCKET, metadata: { name: 's1', namespace: 'default' } });
        await results.until((r) => r.key === 'default/s1');
        await waitFor('/readyz ok', async () => (await httpGet(health, '/readyz')).status === 200);
        expect(refusedLines()).toHaveLength(1);
      } finally {
        await mgr.stop();
        opClient.close();
      }
    }, 60_000);

    it('is unready naming the Lease and the verbs to grant when election is refused, and never leads', async () => {
      // the operator may read ConfigMaps everywhere, nothing else
      await permit(client, {
        user: 'operator',
        verbs: ['get', 'list', 'watch'],
        group: '',
        resources: ['configmaps'],
      });
      const kc = new KubeConfig();
      kc.loadFromString(b.cluster.kubeConfig.exportConfig());
      kc.users = kc.users.map((u) => ({ ...u, token: 'op' }));
      const opClient = KubeClient.fromKubeConfig(kc);
      const clock = new VirtualClock();
      const mgr = new Manager({
        client: opClient,
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
      opClient.close();
    });
  },
  // kube-controller-manager would add a kube-root-ca.crt ConfigMap to each new namespace, which
  // these tests' controllers would reconcile too; they count reconciles exactly
  { controllerManager: false, ...users.options },
);
