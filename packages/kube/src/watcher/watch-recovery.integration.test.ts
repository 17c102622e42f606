/**
 * Recovery after an API server outage, on both backends (issue 19 §3): watches that backed off
 * through an outage reconnect together once the server is ready again — one watch's success or
 * the registry's `GET /api` probe ends every sibling's wait — instead of each waiting out its own
 * backoff. The real tier kills kube-apiserver (etcd stays) and starts it again once every watch has
 * failed four times in a row (each then waits ≥ 22.5 s, outlasting kube-apiserver's start); the
 * embedded server restarts and answers 500 until every watch has failed three times (≥ 9.6 s).
 *
 * The time from "ready" to "every watch has the object written after it" is recorded and printed;
 * it is asserted only against twice the 3 s of docs/promises.md (a generous bound for a loaded
 * machine), which the backoff the outage accumulated would exceed without recovery (measured: 12 s embedded).
 */
import type { TestBackend } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { filter, firstValueFrom, Subject, timeout } from 'rxjs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { KubeTransportError } from '../errors.js';
import { WatchRegistry, watchTargetKey } from '../reflector/watch-registry.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { KubeObject } from '../types.js';
import type { WatcherHealth } from './health.js';
import type { Run } from './watch-harness.test.helper.js';
import { CM, runWatch } from './watch-harness.test.helper.js';

/** The promise (docs/promises.md): converged within 3 s of the server being ready again. */
const PROMISED_MS = 3_000;
/** Asserted: twice the promise, for a loaded machine; no recovery would take ≥ 9.6 s. */
const ASSERTED_MS = 2 * PROMISED_MS;
/** Default backoff but ×4 per failure: after 3 failures (4 s) every wait is ≥ 12.8 s × 0.75. */
const BACKOFF = { initialMs: 800, factor: 4, maxMs: 30_000, jitter: 0.25, resetAfterMs: 120_000 };
const NAMESPACES = ['rec-a', 'rec-b', 'rec-c', 'rec-d'];

let cluster: TestBackend;
let admin: KubeClient;
let operator: KubeClient;
const runs: Run[] = [];

/** Admin writes survive the stale keep-alive socket a restart leaves: retried on transport errors. */
async function write<R>(op: () => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!(e instanceof KubeTransportError) || attempt >= 5) throw e;
    }
  }
}

describeEachBackend('watch recovery after an API server outage', (b) => {
  beforeAll(async () => {
    cluster = b.cluster;
    admin = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    operator = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    for (const name of NAMESPACES) {
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
  });
  afterEach(() => {
    for (const r of runs.splice(0)) r.stop();
    if (b.name === 'embedded') b.apiServer.faults.reset();
  });
  afterAll(() => {
    admin.close();
    operator.close();
  });

  it(`every watch converges within ${PROMISED_MS} ms of the server being ready again`, async () => {
    const healths = new Map<string, WatcherHealth>();
    const changed = new Subject<void>();
    const registry = new WatchRegistry(operator, {
      watcher: { backoff: BACKOFF },
      health: (target, h) => {
        healths.set(watchTargetKey(target), h);
        changed.next();
      },
    });
    const targets: WatchTarget[] = NAMESPACES.map((namespace) => ({ resource: CM, namespace }));
    const watches = targets.map((t) => {
      const shared = registry.watch(t);
      const run = runWatch(() => shared.events$);
      runs.push(run);
      return run;
    });
    await Promise.all(watches.map((w) => w.until('synced', () => w.store.ready)));
    const every = (what: string, p: (h: WatcherHealth) => boolean, ms: number) =>
      firstValueFrom(
        changed.pipe(
          filter(() => targets.every((t) => p(healths.get(watchTargetKey(t)) ?? ({} as WatcherHealth)))),
          timeout({ first: ms, with: () => Promise.reject(new Error(`timed out waiting for ${what}`)) }),
        ),
      );

    const errorsBefore = targets.map((t) => healths.get(watchTargetKey(t))?.errors ?? 0);
    // the outage
    let readyAt: number;
    if (b.name === 'embedded') {
      const server = b.apiServer;
      // 500 (no Retry-After) to every request from now on, the probe included, then a restart
      server.faults.failNext({ status: 500, count: 1_000_000 });
      await server.restart();
      // every watch has failed 3 times in a row: its next wait is ≥ 9.6 s
      await every(
        'every watch to back off three times',
        (h) => h.phase === 'backoff' && h.errors >= 3,
        20_000,
      );
      server.faults.reset();
      readyAt = Date.now();
    } else {
      // kube-apiserver down (connections refused) until every watch has failed four times: its
      // wait (≥ 22.5 s) then outlasts kube-apiserver's own start (a few seconds to /readyz ok)
      const controlPlane = cluster.controlPlane;
      if (controlPlane === undefined) throw new Error('the real backend has no control plane');
      await controlPlane.restartApiServer({
        whileDown: () =>
          every('every watch to back off four times', (h) => h.phase === 'backoff' && h.errors >= 4, 40_000),
      });
      readyAt = Date.now(); // kube-apiserver answered /readyz ok
    }
    const waits = targets.map((t) => healths.get(watchTargetKey(t))?.backoffMs ?? 0);
    // every watch went through the outage (failed at least once), or the test proves nothing
    expect(
      targets.map((t, i) => (healths.get(watchTargetKey(t))?.errors ?? 0) > (errorsBefore[i] ?? 0)),
    ).toEqual(targets.map(() => true));

    // converged: every watch has what was written after the server came back
    await Promise.all(
      NAMESPACES.map((namespace) =>
        write(() =>
          admin.create<KubeObject>({
            ...CM,
            metadata: { name: 'after-outage', namespace },
            data: { k: 'v' },
          }),
        ),
      ),
    );
    await Promise.all(
      watches.map((w, i) =>
        w.until(
          'the object written after the outage',
          () => w.store.get(`${NAMESPACES[i] ?? ''}/after-outage`) !== undefined,
          40_000,
        ),
      ),
    );
    const convergedMs = Date.now() - readyAt;
    console.info(
      `[${b.name}] watch recovery: ${watches.length} watches converged ${convergedMs} ms after the server was ready (backoff waits at ready: ${waits.join(', ')} ms; promise ${PROMISED_MS} ms, asserted ${ASSERTED_MS} ms)`,
    );
    expect(convergedMs).toBeLessThan(ASSERTED_MS);
  }, 90_000);
});
