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
 *     const yamlText = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n';
 *     const r = await kubectl.run(['apply', '-f', '-'], { input: yamlText });
 *     expect(r.code).toBe(0);
 *     expect(await cluster.get('configmaps', 'default', 'a')).toBeDefined();
 *   });
 * });
 * ```
 *
 * @module
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
  /**
   * Ends the case as skipped, with the reason in the report: a kind this backend does not serve,
   * or a named difference of the embedded server from kube-apiserver that is not fixed yet.
   */
  readonly skip: (reason: string) => never;
  /**
   * Records an output (already normalised: see `normalize.ts`) under `key` for the suite's last
   * test, which compares what each backend recorded under the same key: the real control plane is
   * the specification, so the embedded server must print the same. Record only what must agree;
   * assert documented differences in the case itself.
   */
  readonly same: (key: string, output: string) => void;
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
  const recorded = { embedded: new Map<string, string>(), real: new Map<string, string>() };
  const ran = { embedded: false, real: false };
  // which case recorded a key, and the cases skipped on some backend: their keys are not compared
  const recordedBy = new Map<string, string>();
  const skipped = new Set<string>();
  describeEachBackend(
    `${name} (kubectl ${found.version})`,
    (b) => {
      let kubectl: Kubectl | undefined;
      beforeAll(() => {
        kubectl = new Kubectl(binary, b.cluster.kubeconfigPath);
        ran[b.name] = true;
      });
      afterAll(() => {
        kubectl?.dispose();
      });
      declare((title, fn, timeoutMs) => {
        it(
          title,
          async (ctx) => {
            if (!kubectl) throw new Error('the suite did not start');
            const mine = recorded[b.name];
            await fn({
              kubectl,
              cluster: b.cluster,
              backend: b.name,
              skip: (reason) => {
                skipped.add(title);
                return ctx.skip(reason);
              },
              same: (key, output) => {
                if (mine.has(key)) throw new Error(`same(${JSON.stringify(key)}) recorded twice`);
                mine.set(key, output);
                recordedBy.set(key, title);
              },
            });
          },
          timeoutMs,
        );
      });
    },
    options,
  );
  // declared after both backends' suites, so it runs last in the file
  describe(`${name}: the embedded server prints what the real control plane prints`, () => {
    it('outputs recorded with same() agree between the backends', (ctx) => {
      if (!ran.embedded || !ran.real) {
        ctx.skip(
          `needs both backends; ran: ${
            Object.keys(ran)
              .filter((k) => ran[k as keyof typeof ran])
              .join(', ') || 'none'
          }`,
        );
      }
      const compared = (k: string): boolean => !skipped.has(recordedBy.get(k) ?? '');
      const keys = [...recorded.real.keys()].filter((k) => recorded.embedded.has(k));
      const onlyOne = [...recorded.real.keys(), ...recorded.embedded.keys()].filter(
        (k) => compared(k) && !(recorded.real.has(k) && recorded.embedded.has(k)),
      );
      // a key recorded on one backend only means a case failed there: its own report says why (a
      // case skipped on one backend, with its reason, records nothing to compare)
      expect.soft(onlyOne, 'recorded on one backend only').toEqual([]);
      for (const k of keys) expect.soft(recorded.embedded.get(k), k).toBe(recorded.real.get(k));
    });
  });
}
