/**
 * prom-client, pino and the two YAML parsers, loaded on first use instead of at import: importing
 * `@rxkube/kube` (a client, a watch) costs none of them; constructing a `Manager`,
 * `ControllerMetrics`, a logger or a metric loads the first two then, once; reading a kubeconfig
 * loads `js-yaml` (one file, ~6 ms), and `ensureCrd` with YAML text loads `yaml` (72 files, ~40
 * ms). All are loaded as CommonJS, so `require` loads them synchronously; prom-client, pino and
 * `yaml` are CommonJS under Node anyway, so the cache is shared with any `import` of them: the
 * classes (`Registry`, …) are the ones a user's own `import { Registry } from 'prom-client'` sees.
 *
 * @module
 */
import { createRequire } from 'node:module';

import type * as PromClient from 'prom-client';
import type * as Pino from 'pino';
import type * as Yaml from 'yaml';
import type * as JsYaml from 'js-yaml';

const load = createRequire(import.meta.url);

let prom: typeof PromClient | undefined;
let pino: typeof Pino | undefined;
let yaml: typeof Yaml | undefined;
let jsYaml: typeof JsYaml | undefined;

/** The prom-client module, loaded on the first call. */
export function promClient(): typeof PromClient {
  return (prom ??= load('prom-client') as typeof PromClient);
}

/** The pino module, loaded on the first call. */
export function pinoModule(): typeof Pino {
  return (pino ??= load('pino') as typeof Pino);
}

/** The `yaml` module (documents with positions, for CRD text), loaded on the first call. */
export function yamlModule(): typeof Yaml {
  return (yaml ??= load('yaml') as typeof Yaml);
}

/** The `js-yaml` module (plain values, for kubeconfigs), loaded on the first call. */
export function jsYamlModule(): typeof JsYaml {
  return (jsYaml ??= load('js-yaml') as typeof JsYaml);
}
