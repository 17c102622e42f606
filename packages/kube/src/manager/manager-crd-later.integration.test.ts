/**
 * Issue 21 over HTTP, on both backends: a Manager whose controller's kind is not served yet (its
 * CRD not installed) starts anyway and waits — `/readyz` fails naming the kind, the controller
 * waiting for it and what to do (install the CRD), the log says so once however often the watch
 * checks again — and once the CRD is Established the controller starts, reconciles and `/readyz`
 * passes.
 */
import { Writable } from 'node:stream';
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { filter, firstValueFrom, of, ReplaySubject, timeout } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { ControllerResult } from '../controller/controller.js';
import { createLogger } from '../ops/logging.js';
import { ControllerMetrics } from '../ops/metrics.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { WatcherHealth } from '../watcher/health.js';
import { Manager } from './manager.js';

const GIZMO = { apiVersion: 'later.manager.example.com/v1', kind: 'Gizmo' } as const;
const CRD_NAME = 'gizmos.later.manager.example.com';
const gizmoCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME },
  spec: {
    group: 'later.manager.example.com',
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
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

async function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.text() };
}

/** Metrics that also count the distinct not-served failures the manager's watches report. */
function countingMetrics(): { metrics: ControllerMetrics; notServed: () => number } {
  const metrics = new ControllerMetrics();
  const record = metrics.recordWatchHealth;
  const seen = new Set<number>();
  Object.assign(metrics, {
    recordWatchHealth: (target: WatchTarget, health: WatcherHealth) => {
      if (health.lastError?.kind === 'not-served') seen.add(health.lastError.at);
      record(target, health);
    },
  });
  return { metrics, notServed: () => seen.size };
}

describeEachBackend(
  'Manager: a controller whose CRD is installed later (over HTTP)',
  (b) => {
    let admin: KubeClient;

    beforeAll(() => {
      admin = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    });
    afterAll(async () => {
      await admin
        .delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD_NAME })
        .catch(() => undefined);
      admin.close();
    });

    it('is unready naming the kind and its controller until the CRD is installed, logs it once, then reconciles', async () => {
      const timeoutMs = b.name === 'real' ? 60_000 : 15_000;
      // discovery may look the unknown group-version up again on every retry
      const client = KubeClient.fromKubeConfig(b.cluster.kubeConfig, { discoveryRefreshIntervalMs: 1 });
      const lines: Record<string, unknown>[] = [];
      const log = createLogger({
        level: 'info',
        destination: new Writable({
          write: (chunk: Buffer, _e, cb) => {
            for (const l of chunk.toString().split('\n')) {
              if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>);
            }
            cb();
          },
        }),
      });
      const { metrics, notServed } = countingMetrics();
      const mgr = new Manager({
        client,
        name: 'gizmo-operator',
        log,
        metrics,
        healthPort: 0,
        host: '127.0.0.1',
        watcher: { backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.5, resetAfterMs: 120_000 } },
      });
      const results = new ReplaySubject<ControllerResult>(100);
      mgr.results$.subscribe(results);
      mgr.add('gizmos', { for: GIZMO }, () => of(Action.awaitChange()));
      const notServedLines = () =>
        lines.filter((l) => String(l['msg']).includes('Gizmo') && l['level'] === 40);
      try {
        await mgr.start();
        const [health] = mgr.ports as [number];
        // the watch checked at least three times: still unready, still one warning
        await waitFor('three not-served answers', () => notServed() >= 3, { timeoutMs });
        const unready = await httpGet(health, '/readyz');
        expect(unready.status).toBe(500);
        expect(unready.body).toContain(
          '[-]kinds failed: later.manager.example.com/v1 Gizmo is not served (its CRD is not installed or not ' +
            'Established yet): install the CustomResourceDefinition of kind Gizmo in group ' +
            'later.manager.example.com serving v1 — controller gizmos waits for it and starts once it is Established',
        );
        expect(notServedLines()).toEqual([
          expect.objectContaining({
            watch: 'later.manager.example.com/v1/Gizmo in all namespaces',
            msg: expect.stringContaining(
              'install the CustomResourceDefinition of kind Gizmo in group later.manager.example.com serving v1',
            ) as unknown,
          }),
        ]);

        await admin.create(gizmoCrd);
        await waitFor(
          'Gizmos to be creatable',
          () => admin.create({ ...GIZMO, metadata: { name: 'g1', namespace: 'default' } }).then(() => true),
          { timeoutMs },
        );
        await firstValueFrom(
          results.pipe(
            filter((r) => r.key === 'default/g1'),
            timeout(timeoutMs),
          ),
        );
        await waitFor('/readyz ok', async () => (await httpGet(health, '/readyz')).status === 200, {
          timeoutMs,
        });
        // one warning while it waited, one line when it started
        expect(notServedLines()).toHaveLength(1);
        expect(
          lines.filter((l) => String(l['msg']).includes('Gizmo in all namespaces recovered')),
        ).toHaveLength(1);
      } finally {
        await mgr.stop();
        client.close();
      }
    });
  },
  { controllerManager: false },
);
