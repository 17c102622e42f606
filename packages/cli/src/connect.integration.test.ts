/**
 * What `connect` (every `rxkube` command against a cluster) says when the server answers but
 * refuses the credentials: a 401 is an authentication problem, not an unreachable server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, expect, it } from 'vitest';

import { connect } from './connect.js';
import { CliError } from './errors.js';

const tmp = mkdtempSync(join(tmpdir(), 'rxkube-connect-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describeEachBackend(
  'rxkube connect',
  (b) => {
    it('reports a 401 as rejected credentials of the kubeconfig user, not as an unreachable server', async () => {
      const kc = new KubeConfig();
      kc.loadFromString(b.cluster.kubeConfig.exportConfig());
      kc.users = kc.users.map((u) => ({ ...u, token: 'not-a-valid-token' }));
      const path = join(tmp, `${b.name}-bad-token`);
      writeFileSync(path, kc.exportConfig());
      const error = await connect({ kubeconfig: path }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).reason).toBe('Unauthenticated');
      expect((error as CliError).message).toMatch(
        new RegExp(
          `^the API server at ${b.cluster.url.replace(/[.]/g, '\\.')} \\(context [^)]+\\) rejected the credentials of user "[^"]+" \\(401 Unauthorized\\)`,
        ),
      );
      expect((error as CliError).message).not.toContain('cannot reach');
      // the admin's own kubeconfig connects
      const { client } = await connect({ kubeconfig: b.cluster.kubeconfigPath });
      client.close();
    });
  },
  // the embedded server authenticates by token only when given tokens (the real one always does)
  { embedded: { auth: { tokens: { admin: { name: 'admin', groups: ['system:masters'] } } } } },
);
