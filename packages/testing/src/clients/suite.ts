/**
 * The frame of a real-client test file: finds kubectl once, runs the file's cases on each test
 * backend (a server started per suite), and skips them with the reason printed when kubectl is
 * absent (never silently).
 * Test support only: not exported.
 *
 * To add cases (apply, edit, explain, rollout, auth can-i, …), write `kubectl-<topic>.test.ts`
 * beside this file:
 *
 * ```ts
 * kubectlSuite('kubectl apply', {}, (it) => {
 *   it('applies a ConfigMap', async ({ kubectl, cluster }) => {
 *     const r = await kubectl.run(['apply', '-f', '-'], { input: yamlText });
 *     expect(r.code).toBe(0);
 *     expect(await cluster.get('configmaps', 'default', 'a')).toBeDefined();
 *   });
 * });
 * ```
 *
 * @module
 */
import { afterAll, beforeAll, describe, it } from 'vitest';

import type { TestCluster } from '../cluster/cluster.js';
import type { DescribeEachBackendOptions } from '../vitest/describe-each-backend.js';
import { describeEachBackend } from '../vitest/describe-each-backend.js';
import type { FoundKubectl } from './kubectl.js';
import { Kubectl, findKubectl } from './kubectl.js';

/** What each case gets. */
export interface KubectlCase {
  readonly kubectl: Kubectl;
  /** The backend's cluster (embedded server or real control plane). */
  readonly cluster: TestCluster;
  /** Which backend this copy of the case runs on. */
  readonly backend: 'embedded' | 'real';
  /** Ends the case as skipped, with the reason in the report (a kind this backend does not serve). */
  readonly skip: (reason: string) => never;
}

const found: FoundKubectl = await findKubectl();
if (!found.found) console.warn(`[rxkube] kubectl tests skipped: ${found.reason}`);

/** Whether kubectl can run here, and its version or the reason it cannot. */
export const kubectlFound = found;

/** Declares one case of a kubectl suite. */
export type KubectlIt = (title: string, fn: (c: KubectlCase) => Promise<void>, timeoutMs?: number) => void;

/**
 * A suite whose cases run kubectl, once per test backend (`describeEachBackend`: the embedded
 * server and, where its binaries are, a real control plane); skipped, with the reason in its title
 * and printed, when kubectl is absent.
 *
 * @param options the backends' options (simulated Deployments, embedded server options, …).
 * @param declare declares the cases with the `it` it is given.
 */
export function kubectlSuite(
  name: string,
  options: DescribeEachBackendOptions,
  declare: (it: KubectlIt) => void,
): void {
  if (!found.found) {
    describe.skip(`${name} — skipped: ${found.reason}`, () => {
      declare((title) => {
        it.skip(title, () => undefined);
      });
    });
    return;
  }
  const binary = found.path;
  describeEachBackend(
    `${name} (kubectl ${found.version})`,
    (b) => {
      let kubectl: Kubectl | undefined;
      beforeAll(() => {
        kubectl = new Kubectl(binary, b.cluster.kubeconfigPath);
      });
      afterAll(() => {
        kubectl?.dispose();
      });
      declare((title, fn, timeoutMs) => {
        it(
          title,
          async (ctx) => {
            if (!kubectl) throw new Error('the suite did not start');
            await fn({ kubectl, cluster: b.cluster, backend: b.name, skip: (reason) => ctx.skip(reason) });
          },
          timeoutMs,
        );
      });
    },
    options,
  );
}
