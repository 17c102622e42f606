/**
 * Manager behaviour without an API server (fake watches through the registry, virtual time):
 * reconcile errors are logged once, and the safety net (issue 12 §2): a controller whose pipeline dies — a framework bug, since
 * user code is isolated inside it — is restarted with backoff and logged at error, and after
 * repeated failures `/healthz` fails so the kubelet restarts the pod. Never green health while
 * nothing runs. Time is virtual (the manager's scheduler); the probe server is real HTTP.
 */
import { Writable } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';
import { Action } from '@rxkube/core';
import { concat, defer, from, NEVER, of, throwError, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { createLogger } from '../ops/logging.js';
import type { SharedWatch } from '../reflector/share-watch.js';
import { shareWatch } from '../reflector/share-watch.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { KubeObject, WatchEvent } from '../types.js';
import { Manager } from './manager.js';
import { MAX_CONTROLLER_FAILURES } from './manager-options.js';

const kc = new KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: false }],
  users: [{ name: 'u', token: 't' }],
  contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
  currentContext: 'ctx',
});

async function healthz(port: number): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz?verbose`);
  return { status: res.status, body: await res.text() };
}

describe('Manager: a controller whose pipeline dies is restarted (issue 12 §2)', () => {
  it('restarts it with backoff, logs each failure at error, fails /healthz after repeated failures and recovers', async () => {
    const clock = new VirtualTimeScheduler();
    const lines: { level: number; msg: string; controller?: string; restartInMs?: number }[] = [];
    const log = createLogger({
      level: 'info',
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean))
            lines.push(JSON.parse(line) as never);
          done();
        },
      }),
    });
    const mgr = new Manager({
      client: KubeClient.fromKubeConfig(kc),
      name: 'restart-test',
      log,
      healthPort: 0,
      warmStandby: false,
      scheduler: clock,
    });
    // Simulates a framework bug: the primary watch's events error on its first five subscriptions.
    let subscriptions = 0;
    const original = mgr.registry.watch.bind(mgr.registry);
    mgr.registry.watch = <T extends KubeObject>(target: WatchTarget): SharedWatch<T> => {
      const shared = original<T>(target);
      const events$ = defer(() =>
        ++subscriptions <= MAX_CONTROLLER_FAILURES
          ? throwError(() => new Error(`pipeline bug #${subscriptions}`))
          : concat(from<WatchEvent<T>[]>([{ type: 'Init' }, { type: 'InitDone' }]), NEVER),
      );
      return { ...shared, events$ };
    };
    mgr.add('cms', { for: { apiVersion: 'v1', kind: 'ConfigMap' } }, () => of(Action.awaitChange()));
    await mgr.start();
    const port = mgr.ports[0] ?? 0;
    try {
      expect((await healthz(port)).status).toBe(200); // one failure so far: restarting, not yet dead
      // failures at 0, 1 s, 3 s, 7 s, 15 s (delays 1, 2, 4, 8 s)
      clock.maxFrames = 15_000;
      clock.flush();
      const failing = await healthz(port);
      expect(failing.status).toBe(500);
      expect(failing.body).toMatch(
        /\[-\]controllers failed: controller cms failed 5 times in a row: pipeline bug #5/,
      );
      const restarts = lines.filter((l) => l.msg.startsWith('controller cms stopped with an error'));
      expect(restarts.map((l) => [l.level, l.controller, l.restartInMs])).toEqual([
        [50, 'cms', 1_000],
        [50, 'cms', 2_000],
        [50, 'cms', 4_000],
        [50, 'cms', 8_000],
        [50, 'cms', 16_000],
      ]);
      // the sixth run (at 31 s) stays up: after 60 s healthy the streak ends
      clock.maxFrames = 31_000 + 59_999;
      clock.flush();
      expect((await healthz(port)).status).toBe(500);
      clock.maxFrames = 31_000 + 60_000;
      clock.flush();
      expect((await healthz(port)).status).toBe(200);
      expect(subscriptions).toBe(MAX_CONTROLLER_FAILURES + 1);
    } finally {
      clock.maxFrames = Number.POSITIVE_INFINITY;
      const stopping = mgr.stop();
      clock.flush();
      await stopping;
    }
  });
});

describe('Manager: logs', () => {
  it('logs a failed reconcile once (not once by the controller and again by the manager)', async () => {
    const clock = new VirtualTimeScheduler();
    const lines: { msg: string; key?: string; hook?: string }[] = [];
    const log = createLogger({
      level: 'debug',
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean))
            lines.push(JSON.parse(line) as never);
          done();
        },
      }),
    });
    const mgr = new Manager({
      client: KubeClient.fromKubeConfig(kc),
      name: 'log-test',
      log,
      scheduler: clock,
    });
    mgr.registry.watch = <T extends KubeObject>(_target: WatchTarget): SharedWatch<T> =>
      shareWatch(
        concat(
          from<WatchEvent<T>[]>([
            { type: 'Init' },
            {
              type: 'InitApply',
              object: { metadata: { namespace: 'ns', name: 'a', resourceVersion: '1' } } as T,
            },
            { type: 'InitDone' },
          ]),
          NEVER,
        ),
      );
    mgr.add('cms', { for: { apiVersion: 'v1', kind: 'ConfigMap' }, rateLimit: false }, () =>
      throwError(() => new Error('the API said no')),
    );
    await mgr.start();
    try {
      clock.maxFrames = 0;
      clock.flush();
      const aboutA = lines.filter((l) => l.key === 'ns/a');
      expect(aboutA.map((l) => l.msg)).toEqual(['reconcile error']);
      // the running controller's Stores and idle signal, through the public API (issue 12 §5)
      expect(mgr.controller('cms')?.stores.primary.get('ns/a')?.metadata.resourceVersion).toBe('1');
      expect(mgr.controller('cms')?.idle).toBe(false); // its retry is waiting
      expect(mgr.controller('nope')).toBeUndefined();
    } finally {
      clock.maxFrames = Number.POSITIVE_INFINITY;
      const stopping = mgr.stop();
      clock.flush();
      await stopping;
    }
  });
});

describe('Manager: a registration is a plain description (issue 14)', () => {
  it('computes targets, the description and RBAC from registrations without building a controller', async () => {
    const mgr = new Manager({ client: KubeClient.fromKubeConfig(kc), name: 'plain', logLevel: 'silent' });
    const reconcile = () => of(Action.awaitChange());
    mgr.add('widgets', { for: { apiVersion: 'example.com/v1', kind: 'Widget' }, events: true }, reconcile);
    mgr.add(
      'children',
      {
        for: { apiVersion: 'v1', kind: 'ConfigMap' },
        owns: [{ apiVersion: 'v1', kind: 'Secret' }],
        namespace: 'shop',
      },
      reconcile,
    );
    const { registered, targets, installedCrds, leaseNamespace } = await mgr.describe();
    expect(registered.map((r) => [r.name, r.options.events ?? false])).toEqual([
      ['widgets', true],
      ['children', false],
    ]);
    expect(targets.map((t) => [t.resource.kind, t.namespace])).toEqual([
      ['Widget', undefined],
      ['ConfigMap', 'shop'],
      ['Secret', 'shop'],
    ]);
    expect(installedCrds).toEqual([]);
    expect(leaseNamespace).toBeUndefined();
    // nothing was built: no shared watch (Store) was handed out, no controller, no metrics series
    expect(mgr.registry.size).toBe(0);
    expect(mgr.controller('widgets')).toBeUndefined();
    expect(
      await mgr.metrics.registry.getSingleMetricAsString('controller_runtime_active_workers'),
    ).not.toContain('widgets');
  });

  it('refuses a bad option at add(), naming it, before anything starts', () => {
    const mgr = new Manager({ client: KubeClient.fromKubeConfig(kc), name: 'plain', logLevel: 'silent' });
    expect(() =>
      mgr.add('bad', { for: { apiVersion: 'v1', kind: 'ConfigMap' }, concurrency: 0 }, () =>
        of(Action.awaitChange()),
      ),
    ).toThrow(/concurrency/);
    expect(mgr.registered).toEqual([]);
  });

  it('refuses a dry run that would take part in leader election or a shard ring', () => {
    const client = KubeClient.fromKubeConfig(kc);
    expect(
      () => new Manager({ client, name: 'dry', logLevel: 'silent', dryRun: true, leaderElection: true }),
    ).toThrow(/options\.leaderElection.*must be off with dryRun.*without --leader-elect/);
    expect(
      () => new Manager({ client, name: 'dry', logLevel: 'silent', dryRun: true, sharding: { ring: 'r' } }),
    ).toThrow(/options\.sharding.*must be unset with dryRun/);
    // alone, or with election explicitly off, it is fine
    expect(
      () => new Manager({ client, name: 'dry', logLevel: 'silent', dryRun: true, leaderElection: false }),
    ).not.toThrow();
  });
});
