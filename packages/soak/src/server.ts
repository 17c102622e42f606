/**
 * The soak's API server handle: the embedded server in a worker thread (the full soak) or in this
 * thread (the short soak inside the test run, where there is no built worker script).
 *
 * @module
 */
import { Worker } from 'node:worker_threads';

import type { FaultCounts } from '@rxkube/testing';
import { startApiServer } from '@rxkube/testing';

import type { FaultKind } from './faults.js';
import { countsOf, inject } from './faults.js';

/** What the soak needs of its server. */
export interface SoakServer {
  readonly url: string;
  readonly kubeconfigPath: string;
  fault(kind: FaultKind, n: number): Promise<void>;
  counts(): Promise<FaultCounts>;
  /** Watch streams open right now. */
  openWatches(): Promise<number>;
  /** Clears pending fault rules (injected errors, delays). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the server where the config says. */
export async function startSoakServer(inWorker: boolean): Promise<SoakServer> {
  if (!inWorker) {
    const server = await startApiServer({ bookmarkIntervalMs: 5_000, logger: { error: () => undefined } });
    return {
      url: server.url,
      kubeconfigPath: server.kubeconfigPath,
      fault: (kind, n) => inject(server, kind, n),
      counts: () => Promise.resolve(countsOf(server)),
      openWatches: () => Promise.resolve(server.openWatches),
      reset: () => {
        server.faults.reset();
        return Promise.resolve();
      },
      stop: () => server.stop(),
    };
  }
  const worker = new Worker(new URL('./server-worker.js', import.meta.url));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  const ready = await new Promise<{ url: string; kubeconfigPath: string }>((resolve, reject) => {
    worker.once('error', reject);
    worker.on(
      'message',
      (m: {
        ready?: boolean;
        url: string;
        kubeconfigPath: string;
        id?: number;
        result?: unknown;
        error?: string;
      }) => {
        if (m.ready === true) {
          resolve(m);
          return;
        }
        const p = m.id === undefined ? undefined : pending.get(m.id);
        if (p === undefined || m.id === undefined) return;
        pending.delete(m.id);
        if (m.error !== undefined) p.reject(new Error(m.error));
        else p.resolve(m.result);
      },
    );
  });
  const call = <T>(message: Record<string, unknown>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: (v) => resolve(v as T), reject });
      worker.postMessage({ ...message, id });
    });
  return {
    url: ready.url,
    kubeconfigPath: ready.kubeconfigPath,
    fault: (kind, n) => call<undefined>({ op: 'fault', kind, n }),
    counts: () => call<FaultCounts>({ op: 'counts' }),
    openWatches: () => call<number>({ op: 'openWatches' }),
    reset: () => call<undefined>({ op: 'reset' }),
    stop: async () => {
      await call<undefined>({ op: 'stop' });
      await worker.terminate();
    },
  };
}
