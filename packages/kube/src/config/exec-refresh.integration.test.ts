/**
 * An exec credential plugin's token that the server stops accepting, on both backends: the
 * request answered 401 runs the plugin again and is sent once more with the fresh token — a list
 * and a watch — and a request whose fresh token is refused too fails with the 401 (one retry).
 *
 * How a token stops being accepted: the embedded server reads its token table per request, so the
 * test removes the token from it; kube-apiserver 1.24's `--token-auth-file` is read once at start,
 * so on the real tier the tokens are ServiceAccount tokens (TokenRequest) and deleting the
 * ServiceAccount revokes its token (the ServiceAccount authenticator looks the account up,
 * `--service-account-lookup` defaults to true; a success is cached for up to 10 s, hence the wait).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { AuthUser } from '@rxkube/testing';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { firstValueFrom, filter, take, timeout, toArray } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';

import { KubeClient } from '../client/kube-client.js';
import { isUnauthorized } from '../errors.js';
import { loadKubeConfigFile } from './connection.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const NS = 'exec-refresh';

/** The embedded server's token table, read per request: the test adds and removes tokens. */
const TOKENS: Record<string, AuthUser> = { admin: { name: 'admin', groups: ['system:masters'] } };

let dir: string;
let admin: KubeClient;

/** The plugin: prints the token in `token.txt` as an ExecCredential, one line in `runs.log` per run. */
function writePlugin(): string {
  const command = join(dir, 'plugin.sh');
  writeFileSync(join(dir, 'runs.log'), '');
  writeFileSync(
    command,
    `#!/bin/sh\necho run >> '${join(dir, 'runs.log')}'\n` +
      `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' ` +
      `"$(cat '${join(dir, 'token.txt')}')"\n`,
  );
  chmodSync(command, 0o755);
  return command;
}

const runs = (): number => readFileSync(join(dir, 'runs.log'), 'utf8').split('\n').filter(Boolean).length;

describeEachBackend(
  'an exec plugin credential refused with 401 (over HTTP)',
  (b) => {
    let client: KubeClient;
    let account = 0;

    /** A token the server accepts now, for a user allowed everything. */
    async function validToken(): Promise<{ token: string; revoke(): Promise<void> }> {
      const name = `exec-user-${++account}`;
      if (b.name === 'embedded') {
        const token = `${name}-token`;
        TOKENS[token] = { name, groups: ['system:masters'] };
        return {
          token,
          revoke: () => {
            delete TOKENS[token];
            return Promise.resolve();
          },
        };
      }
      await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: NS } });
      await admin.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name, namespace: NS }],
      });
      const answer = await admin.transport.request<{ status: { token: string } }>({
        method: 'POST',
        path: `/api/v1/namespaces/${NS}/serviceaccounts/${name}/token`,
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds: 3600 },
        }),
        contentType: 'application/json',
        target: { verb: 'create', group: '', resource: 'serviceaccounts/token', namespace: NS, name },
      });
      const token = answer.status.token;
      // a real RBAC authorizer reads its informer cache: wait until the binding counts
      await waitFor('the token to be allowed', async () => (await answers(token)) === 'ok', {
        timeoutMs: 30_000,
      });
      return {
        token,
        revoke: async () => {
          await admin.delete({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: NS, name });
          await waitFor('the revoked token to be refused', async () => (await answers(token)) === 401, {
            timeoutMs: 30_000,
          });
        },
      };
    }

    /** What the server answers a list with `token` (a client with that fixed token). */
    async function answers(token: string): Promise<'ok' | 401 | 'other'> {
      const kc = b.cluster.kubeConfig;
      const cluster = kc.getCurrentCluster();
      const path = join(dir, `fixed-${token.slice(-8)}.yaml`);
      writeFileSync(path, kubeconfig(cluster?.server ?? '', cluster?.caData, { token }));
      const fixed = KubeClient.fromKubeConfig(loadKubeConfigFile(path));
      try {
        await fixed.list(CM, { namespace: NS, limit: 1 });
        return 'ok';
      } catch (e) {
        return isUnauthorized(e) ? 401 : 'other';
      } finally {
        fixed.close();
      }
    }

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'rxkube-exec-refresh-'));
      admin = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      const cluster = b.cluster.kubeConfig.getCurrentCluster();
      const path = join(dir, 'kubeconfig.yaml');
      writeFileSync(
        path,
        kubeconfig(cluster?.server ?? '', cluster?.caData, {
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: writePlugin(),
            interactiveMode: 'Never',
          },
        }),
      );
      client = KubeClient.fromKubeConfig(loadKubeConfigFile(path));
    });
    afterAll(() => {
      client.close();
      admin.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('runs the plugin again after a 401 and sends the list once more with the fresh token', async () => {
      const first = await validToken();
      writeFileSync(join(dir, 'token.txt'), first.token);
      await client.list(CM, { namespace: NS });
      await client.list(CM, { namespace: NS });
      expect(runs()).toBe(1); // cached: no expirationTimestamp

      const second = await validToken();
      writeFileSync(join(dir, 'token.txt'), second.token);
      await first.revoke();
      await client.list(CM, { namespace: NS }); // 401, plugin again, sent again
      expect(runs()).toBe(2);
      await client.list(CM, { namespace: NS });
      expect(runs()).toBe(2);

      // a fresh token the server refuses too: one retry, then the 401
      writeFileSync(join(dir, 'token.txt'), 'not-a-token');
      await second.revoke();
      const error: unknown = await client.list(CM, { namespace: NS }).catch((e: unknown) => e);
      expect(isUnauthorized(error)).toBe(true);
      expect(runs()).toBe(3);
    });

    it('opens a watch once more with a fresh token after a 401', async () => {
      const first = await validToken();
      writeFileSync(join(dir, 'token.txt'), first.token);
      const before = runs();
      await client.list(CM, { namespace: NS }); // the plugin ran for the token now in force
      const second = await validToken();
      writeFileSync(join(dir, 'token.txt'), second.token);
      await first.revoke();
      const events = firstValueFrom(
        client.transport
          .watch({
            method: 'GET',
            path: `/api/v1/namespaces/${NS}/configmaps`,
            query: { watch: 'true', resourceVersion: '0' },
            target: { verb: 'watch', group: '', resource: 'configmaps', namespace: NS },
          })
          .pipe(
            filter((e) => e.type === 'ADDED' && e.object.metadata.name === 'after-refresh'),
            take(1),
            toArray(),
            timeout(30_000),
          ),
      );
      await admin.create({ ...CM, metadata: { name: 'after-refresh', namespace: NS } });
      expect((await events).map((e) => e.type)).toEqual(['ADDED']);
      expect(runs()).toBe(before + 2); // the list's refresh, then the watch's
    });
  },
  {
    embedded: { auth: { tokens: TOKENS } },
    controllerManager: false,
  },
);

/** A kubeconfig with one cluster (its CA) and one user. */
function kubeconfig(server: string, caData: string | undefined, user: Record<string, unknown>): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'c',
        cluster: { server, ...(caData !== undefined ? { 'certificate-authority-data': caData } : {}) },
      },
    ],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });
}
