/**
 * `describeEachBackend()`: one vitest suite, run once per selected test backend — the embedded API
 * server and a real control plane — so every test whose expected behaviour is Kubernetes' own is
 * proven on both. A backend that is not run says why in the skipped suite's name.
 *
 * Import it from `@rxkube/testing/vitest` (vitest is an optional peer dependency).
 *
 * @module
 */
import { afterAll, beforeAll, describe, it } from 'vitest';

import type { BackendName, TestBackend, TestBackendOptions } from '../backends/backends.js';
import { selectedBackends, startTestBackend } from '../backends/backends.js';
import type { ApiServer } from '../server.js';

/**
 * A test function as `it` takes it.
 *
 * ## Example
 * ```ts
 * const createsOne: TestFunction = async () => {
 *   await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'a' } });
 * };
 * describeEachBackend('ConfigMaps', (b) => {
 *   b.itOn('embedded', 'reads state directly')('creates one', createsOne);
 * });
 * ```
 */
export type TestFunction = () => unknown;

/**
 * What a suite body gets: which backend, and (inside hooks and tests) the running cluster.
 *
 * ## Example
 * ```ts
 * describeEachBackend('watches', (b: BackendContext) => {
 *   it(`lists on ${b.name}`, async () => {
 *     expect(await b.cluster.list('namespaces')).not.toHaveLength(0);
 *   });
 *   b.itOn('embedded', 'needs fault injection')('survives a dropped watch', () => {
 *     b.apiServer.faults.dropWatches();
 *   });
 * });
 * ```
 */
export interface BackendContext {
  /** The backend this copy of the suite runs on. */
  readonly name: BackendName;
  /** The started backend. Only inside hooks and tests (it starts in the suite's first `beforeAll`). */
  readonly cluster: TestBackend;
  /**
   * The embedded server, for fault injection and direct state. Only inside hooks and tests of
   * the embedded copy: throws on the real backend (declare such tests with `itOn('embedded', why)`).
   */
  readonly apiServer: ApiServer;
  /**
   * `it` on one backend only; on the other a skipped test whose name says why, e.g.
   * `itOn('embedded', 'needs fault injection: a stalled watch')('recovers', async () => …)`.
   */
  itOn(backend: BackendName, why: string): (name: string, fn: TestFunction, timeoutMs?: number) => void;
}

/**
 * Options of {@link describeEachBackend}.
 *
 * ## Example
 * ```ts
 * const options: DescribeEachBackendOptions = { only: 'embedded', why: 'needs fault injection' };
 * describeEachBackend('stalled watches', (b) => {
 *   // …
 * }, options);
 * ```
 */
export interface DescribeEachBackendOptions extends TestBackendOptions {
  /** Run on this backend only; `why` is required and shows in the other's skipped suite. */
  readonly only?: BackendName;
  readonly why?: string;
  /** Per-test timeout on the real backend (default 60 s: a real namespace deletion takes ~5 s). */
  readonly realTimeoutMs?: number;
}

/**
 * Declares `fn`'s suite once per selected backend: `title [embedded]` and `title [real]`, each
 * with its own server started before the suite and stopped after it.
 *
 * ## Example
 * ```ts
 * describeEachBackend('ConfigMaps over HTTP', (b) => {
 *   let client: KubeClient;
 *   beforeAll(() => {
 *     client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
 *   });
 *   it('creates one', async () => {
 *     await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });
 *     expect(await b.cluster.get('configmaps', 'default', 'a')).toBeDefined();
 *   });
 *   b.itOn('embedded', 'needs fault injection')('survives a dropped watch', async () => {
 *     b.apiServer.faults.dropWatches();
 *   });
 * });
 * ```
 *
 * Which backends run: `RXKUBE_TEST_BACKEND=embedded|real|both`; unset, the embedded one always
 * and the real one when `KUBEBUILDER_ASSETS` has the binaries. A real backend asked for
 * explicitly but without binaries fails the suite with the missing binaries named.
 */
export function describeEachBackend(
  title: string,
  fn: (backend: BackendContext) => void,
  options: DescribeEachBackendOptions = {},
): void {
  if (options.only !== undefined && (options.why === undefined || options.why === '')) {
    throw new RangeError(
      `describeEachBackend("${title}"): options.only needs options.why (printed where it is skipped)`,
    );
  }
  for (const selection of selectedBackends()) {
    const name = selection.name;
    let running: TestBackend | undefined;
    const ctx: BackendContext = {
      name,
      get cluster(): TestBackend {
        if (running === undefined) {
          throw new Error(`${title} [${name}]: the backend is only available inside hooks and tests`);
        }
        return running;
      },
      get apiServer(): ApiServer {
        const server = ctx.cluster.apiServer;
        if (server === undefined) {
          throw new Error(
            `${title} [${name}]: apiServer (fault injection, direct state) exists on the embedded backend only; declare the test with itOn('embedded', why)`,
          );
        }
        return server;
      },
      itOn: (backend, why) => (testName, testFn, timeoutMs) => {
        if (backend === name) it(testName, testFn, timeoutMs);
        else it.skip(`${testName} — skipped on ${name}: ${why}`, testFn);
      },
    };
    const suite = `${title} [${name}]`;
    if (options.only !== undefined && options.only !== name) {
      describe.skip(`${suite} — skipped: ${options.why ?? ''}`, () => fn(ctx));
      continue;
    }
    if (!selection.enabled) {
      // not selected in this run: declared skipped, so the report counts what did not run and why
      describe.skip(`${suite} — skipped: ${selection.reason ?? 'not selected'}`, () => fn(ctx));
      continue;
    }
    const timeout = name === 'real' ? (options.realTimeoutMs ?? 60_000) : undefined;
    describe(suite, timeout !== undefined ? { timeout } : {}, () => {
      beforeAll(async () => {
        running = await startTestBackend(name, options);
      }, 120_000);
      afterAll(async () => {
        await running?.stop();
        running = undefined;
      }, 60_000);
      fn(ctx);
    });
  }
}
