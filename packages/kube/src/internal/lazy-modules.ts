/**
 * prom-client and pino, loaded on first use instead of at import: importing `@rxkube/kube` (a
 * client, a watch) costs neither; constructing a `Manager`, `ControllerMetrics`, a logger or a
 * metric loads them then, once. Both are CommonJS packages, so `require` loads them synchronously
 * and shares Node's module cache with any `import` of them: the classes (`Registry`, …) are the
 * ones a user's own `import { Registry } from 'prom-client'` sees.
 *
 * @module
 */
import { createRequire } from 'node:module';

import type * as PromClient from 'prom-client';
import type * as Pino from 'pino';

const load = createRequire(import.meta.url);

let prom: typeof PromClient | undefined;
let pino: typeof Pino | undefined;

/** The prom-client module, loaded on the first call. */
export function promClient(): typeof PromClient {
  return (prom ??= load('prom-client') as typeof PromClient);
}

/** The pino module, loaded on the first call. */
export function pinoModule(): typeof Pino {
  return (pino ??= load('pino') as typeof Pino);
}
