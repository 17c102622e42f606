import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type * as http from 'node:http';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { KubeConfig } from '@kubernetes/client-node';
import { testCertificates } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

import { KubeClient } from '../client/kube-client.js';
import { KubeConfigError, KubeTransportError } from '../errors.js';
import { connectionFromKubeConfig, loadKubeConfigFile } from './connection.js';
import type { Kubeconfig } from './kubeconfig.js';

const TOKEN = 'tok-0123456789-secret';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxkube-kubeconfig-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfig(
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
  namespace?: string,
): Kubeconfig {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', ...(namespace ? { namespace } : {}) } }],
      'current-context': 'ctx',
    }),
  );
  return loadKubeConfigFile(path);
}

const caData = () => Buffer.from(testCertificates().ca).toString('base64');

function agentOptions(agent: http.Agent): https.AgentOptions {
  return (agent as unknown as { options: https.AgentOptions }).options;
}

describe('connectionFromKubeConfig', () => {
  it('uses the bearer token, the cluster CA, keep-alive, and verifies TLS by default', async () => {
    const conn = connectionFromKubeConfig(
      kubeconfig(
        { server: 'https://127.0.0.1:6443', 'certificate-authority-data': caData() },
        { token: TOKEN },
        'team-a',
      ),
    );
    const { headers, agent } = await conn.auth();
    expect(headers['Authorization']).toBe(`Bearer ${TOKEN}`);
    expect(agent).toBeInstanceOf(https.Agent);
    expect(agentOptions(agent).rejectUnauthorized).toBe(true);
    expect(String(agentOptions(agent).ca)).toContain('BEGIN CERTIFICATE');
    expect(agentOptions(agent).keepAlive).toBe(true);
    expect(conn.tlsVerify).toBe(true);
    expect(conn.namespace).toBe('team-a');
    expect(conn.description).toBe('context "ctx" (cluster "c" at https://127.0.0.1:6443, user "u")');
    expect(conn.description).not.toContain(TOKEN);
    conn.close();
  });

  it('keeps verification on even when NODE_TLS_REJECT_UNAUTHORIZED=0', async () => {
    const before = process.env['NODE_TLS_REJECT_UNAUTHORIZED'];
    process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
    try {
      const conn = connectionFromKubeConfig(kubeconfig({ server: 'https://k:6443' }, { token: TOKEN }));
      expect(agentOptions((await conn.auth()).agent).rejectUnauthorized).toBe(true);
      conn.close();
    } finally {
      if (before === undefined) delete process.env['NODE_TLS_REJECT_UNAUTHORIZED'];
      else process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = before;
    }
  });

  it('skips verification only when the kubeconfig says insecure-skip-tls-verify', async () => {
    const conn = connectionFromKubeConfig(
      kubeconfig({ server: 'https://k:6443', 'insecure-skip-tls-verify': true }, { token: TOKEN }),
    );
    expect(conn.tlsVerify).toBe(false);
    expect(agentOptions((await conn.auth()).agent).rejectUnauthorized).toBe(false);
    expect(conn.namespace).toBe('default');
    conn.close();
  });

  it('passes client certificates to the agent', async () => {
    const { cert, key } = testCertificates();
    const conn = connectionFromKubeConfig(
      kubeconfig(
        { server: 'https://k:6443' },
        {
          'client-certificate-data': Buffer.from(cert).toString('base64'),
          'client-key-data': Buffer.from(key).toString('base64'),
        },
      ),
    );
    const { headers, agent } = await conn.auth();
    expect(headers['Authorization']).toBeUndefined();
    expect(String(agentOptions(agent).cert as string | Buffer)).toBe(cert);
    expect(String(agentOptions(agent).key as string | Buffer)).toBe(key);
    conn.close();
  });

  it('gets the token from an exec credential plugin', async () => {
    const script = join(dir, 'cred.sh');
    writeFileSync(
      script,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"exec-${TOKEN}"}}'\n`,
    );
    chmodSync(script, 0o755);
    const conn = connectionFromKubeConfig(
      kubeconfig(
        { server: 'https://k:6443' },
        { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: script, args: [] } },
      ),
    );
    expect((await conn.auth()).headers['Authorization']).toBe(`Bearer exec-${TOKEN}`);
    conn.close();
  });

  it('reports a failing exec plugin as KubeConfigError without the token', async () => {
    const script = join(dir, 'fail.sh');
    writeFileSync(script, '#!/bin/sh\necho "no credentials for you" >&2\nexit 3\n');
    chmodSync(script, 0o755);
    const conn = connectionFromKubeConfig(
      kubeconfig(
        { server: 'https://k:6443' },
        { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: script, args: [] } },
      ),
    );
    const e: unknown = await conn.auth().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(KubeConfigError);
    expect((e as Error).message).toContain('could not obtain credentials for context "ctx"');
    expect((e as Error).message).not.toContain(TOKEN);
    conn.close();
  });

  it('sends the token to an http:// server as written (like kubectl), through a keep-alive http.Agent', async () => {
    const conn = connectionFromKubeConfig(kubeconfig({ server: 'http://127.0.0.1:8001' }, { token: TOKEN }));
    const { headers, agent } = await conn.auth();
    expect(headers['Authorization']).toBe(`Bearer ${TOKEN}`);
    expect(agent).not.toBeInstanceOf(https.Agent);
    expect(agentOptions(agent).keepAlive).toBe(true);
    conn.close();
    await expect(conn.auth()).rejects.toThrow(/was closed/);
  });

  it('refuses unusable kubeconfigs with a KubeConfigError saying what to fix', () => {
    expect(() => connectionFromKubeConfig(new KubeConfig())).toThrow(
      /current context "<none>" names no known cluster/,
    );
    expect(() => connectionFromKubeConfig(kubeconfig({ server: 'ftp://k' }, { token: TOKEN }))).toThrow(
      /only https:\/\/ and http:\/\//,
    );
    expect(() => loadKubeConfigFile(join(dir, 'missing'))).toThrow(KubeConfigError);
  });
});

describeEachBackend(
  'TLS against the API server',
  (b) => {
    it('connects with the CA from the kubeconfig and refuses a server it cannot verify', async () => {
      const ok = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      const list = await ok.list({ apiVersion: 'v1', kind: 'Namespace' });
      expect(list.items.map((n) => (n as { metadata: { name: string } }).metadata.name)).toContain('default');
      ok.close();

      const noCa = KubeClient.fromKubeConfig(
        kubeconfig({ server: b.cluster.url }, { token: b.cluster.token }),
      );
      const e: unknown = await noCa.list({ apiVersion: 'v1', kind: 'Namespace' }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(KubeTransportError);
      expect((e as KubeTransportError).failure).toBe('tls');
      expect((e as Error).message).not.toContain(b.cluster.token);
      noCa.close();

      const insecure = KubeClient.fromKubeConfig(
        kubeconfig({ server: b.cluster.url, 'insecure-skip-tls-verify': true }, { token: b.cluster.token }),
      );
      await expect(insecure.list({ apiVersion: 'v1', kind: 'Namespace' })).resolves.toMatchObject({
        kind: 'NamespaceList',
      });
      insecure.close();
    });
  },
  // the embedded server with the checked-in test CA; a real one with the CA it generated
  { controllerManager: false, embedded: { tls: true } },
);
