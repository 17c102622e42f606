/**
 * The soak's API server in a worker thread: the embedded server, its fault injection driven by
 * messages from the main thread. Its heap and event loop are apart from the operator's, so the
 * operator's heap figures and latencies are its own.
 *
 * @module
 */
import { parentPort } from 'node:worker_threads';

import { startApiServer } from '@rxkube/testing';

import type { FaultKind } from './faults.js';
import { countsOf, inject } from './faults.js';

/** A request from the main thread. */
export type WorkerRequest =
  | { readonly id: number; readonly op: 'fault'; readonly kind: FaultKind; readonly n: number }
  | { readonly id: number; readonly op: 'counts' | 'openWatches' | 'reset' | 'stop' };

const port = parentPort;
if (port === null) throw new Error('server-worker.ts runs in a worker thread only');

const server = await startApiServer({ bookmarkIntervalMs: 5_000, logger: { error: () => undefined } });
port.postMessage({ ready: true, url: server.url, kubeconfigPath: server.kubeconfigPath });
port.on('message', (req: WorkerRequest) => {
  const reply = (result: unknown): void => port.postMessage({ id: req.id, result });
  const fail = (e: unknown): void =>
    port.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) });
  switch (req.op) {
    case 'fault':
      inject(server, req.kind, req.n).then(() => reply(undefined), fail);
      break;
    case 'counts':
      reply(countsOf(server));
      break;
    case 'openWatches':
      reply(server.openWatches);
      break;
    case 'reset':
      server.faults.reset();
      reply(undefined);
      break;
    case 'stop':
      server.stop().then(() => {
        reply(undefined);
        port.close();
      }, fail);
      break;
  }
});
