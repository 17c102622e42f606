/**
 * The frame of a real-client test file: finds kubectl once, starts a server for the file, and
 * skips the file's kubectl cases with the reason printed when kubectl is absent (never silently).
 * Test support only: not exported.
 *
 * To add cases (apply, edit, explain, rollout, auth can-i, …), write `kubectl-<topic>.test.ts`
 * beside this file:
 *
 * ```ts
 * kubectlSuite('kubectl apply', {}, (it) => {
 *   it('applies a ConfigMap', async ({ kubectl, server }) => {
 *     const r = await kubectl.run(['apply', '-f', '-'], { input: yamlText });
 *     expect(r.code).toBe(0);
 *   });
 * });
 * ```
 *
 * @module
 */
import { afterAll, beforeAll, describe, it } from 'vitest';

import type { ApiServer, ApiServerOptions } from '../server.js';
import { startApiServer } from '../server.js';
import type { FoundKubectl } from './kubectl.js';
import { Kubectl, findKubectl } from './kubectl.js';

/** What each case gets. */
export interface KubectlCase {
  readonly kubectl: Kubectl;
  readonly server: ApiServer;
}

const found: FoundKubectl = await findKubectl();
if (!found.found) console.warn(`[rxkube] kubectl tests skipped: ${found.reason}`);

/** Whether kubectl can run here, and its version or the reason it cannot. */
export const kubectlFound = found;

/** Declares one case of a kubectl suite. */
export type KubectlIt = (title: string, fn: (c: KubectlCase) => Promise<void>, timeoutMs?: number) => void;

/**
 * A describe block whose cases run kubectl against one embedded server started for it; skipped,
 * with the reason in its title and printed, when kubectl is absent.
 *
 * @param options the server's options (auth, simulated Deployments, …).
 * @param declare declares the cases with the `it` it is given.
 */
export function kubectlSuite(
  name: string,
  options: ApiServerOptions,
  declare: (it: KubectlIt) => void,
): void {
  const title = found.found ? `${name} (kubectl ${found.version})` : `${name} — skipped: ${found.reason}`;
  describe.skipIf(!found.found)(title, () => {
    let server: ApiServer | undefined;
    let kubectl: Kubectl | undefined;
    beforeAll(async () => {
      if (!found.found) return;
      server = await startApiServer({ logger: { error: () => undefined }, ...options });
      kubectl = new Kubectl(found.path, server.kubeconfigPath);
    });
    afterAll(async () => {
      kubectl?.dispose();
      await server?.stop();
    });
    declare((caseTitle, fn, timeoutMs) => {
      it(
        caseTitle,
        async () => {
          if (!server || !kubectl) throw new Error('the suite did not start');
          await fn({ kubectl, server });
        },
        timeoutMs,
      );
    });
  });
}
