import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KubeConfigError } from '../errors.js';
import { credentialSource, TOKEN_FILE_REREAD_MS } from './credentials.js';
import type { Cluster, ExecConfig, User } from './kubeconfig.js';

const cluster: Cluster = { name: 'c', server: 'https://k:6443', caData: 'PEM', tlsServerName: 'k.internal' };
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxkube-credentials-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A clock the test moves. */
function clock(start = Date.parse('2026-01-01T00:00:00Z')): { now(): number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

/**
 * An exec plugin script: prints `answer` (with $N replaced by the run count), appends its
 * environment's KUBERNETES_EXEC_INFO and CLUSTER to a log, one line per run.
 */
function plugin(name: string, answer: string): { command: string; runs(): string[] } {
  const command = join(dir, name);
  const log = join(dir, `${name}.log`);
  writeFileSync(log, '');
  writeFileSync(
    command,
    `#!/bin/sh\nprintf '%s %s\\n' "$CLUSTER" "$KUBERNETES_EXEC_INFO" >> '${log}'\n` +
      `N=$(wc -l < '${log}' | tr -d ' ')\necho '${answer}' | sed "s/\\$N/$N/g"\n`,
  );
  chmodSync(command, 0o755);
  return { command, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

const v1 = 'client.authentication.k8s.io/v1';
const execUser = (exec: Partial<ExecConfig> & { command: string }): User => ({
  name: 'u',
  exec: { apiVersion: v1, interactiveMode: 'Never', ...exec },
});

describe('credentialSource: tokens', () => {
  it('sends the token with impersonation headers', async () => {
    const get = credentialSource(
      {
        name: 'u',
        token: 't0',
        impersonateUser: 'jane',
        impersonateUid: '42',
        impersonateGroups: ['devs', 'ops'],
        impersonateUserExtra: { 'acme.io/scopes': ['view', 'edit x'] },
      },
      cluster,
    );
    expect((await get()).headers).toEqual({
      Authorization: 'Bearer t0',
      'Impersonate-User': 'jane',
      'Impersonate-Uid': '42',
      'Impersonate-Group': 'devs, ops',
      'Impersonate-Extra-acme.io%2Fscopes': 'view, edit%20x',
    });
  });

  it('re-reads a token file once a minute and keeps the last token when a re-read fails (client-go cachedFileTokenSource)', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    const c = clock();
    const get = credentialSource({ name: 'u', tokenFile: file }, cluster, { clock: c });
    expect((await get()).headers['Authorization']).toBe('Bearer first');
    writeFileSync(file, 'second');
    c.advance(TOKEN_FILE_REREAD_MS - 1);
    expect((await get()).headers['Authorization']).toBe('Bearer first');
    c.advance(1);
    expect((await get()).headers['Authorization']).toBe('Bearer second');
    rmSync(file);
    c.advance(TOKEN_FILE_REREAD_MS);
    expect((await get()).headers['Authorization']).toBe('Bearer second');
  });

  it('fails with a KubeConfigError naming a token file it never could read', async () => {
    const get = credentialSource({ name: 'u', tokenFile: join(dir, 'absent') }, cluster);
    await expect(get()).rejects.toThrow(/could not read the token file .*absent of user "u"/);
  });

  it('sends basic auth when there is no token', async () => {
    const get = credentialSource({ name: 'u', username: 'admin', password: 'p:w' }, cluster);
    expect((await get()).headers['Authorization']).toBe(
      `Basic ${Buffer.from('admin:p:w').toString('base64')}`,
    );
  });

  it('reads client certificates from files on first use', async () => {
    writeFileSync(join(dir, 'c.crt'), 'CERT');
    writeFileSync(join(dir, 'c.key'), 'KEY');
    const get = credentialSource(
      { name: 'u', certFile: join(dir, 'c.crt'), keyFile: join(dir, 'c.key') },
      cluster,
    );
    const creds = await get();
    expect(String(creds.cert)).toBe('CERT');
    expect(String(creds.key)).toBe('KEY');
    expect(creds.headers).toEqual({});
    const noKey = credentialSource({ name: 'u', certData: 'CERT' }, cluster);
    await expect(noKey()).rejects.toThrow('user "u" has a client certificate but no key');
  });
});

describe('credentialSource: exec plugins (client-go exec.go)', () => {
  it('runs the plugin once and caches a credential without expiry; env and KUBERNETES_EXEC_INFO reach it', async () => {
    const p = plugin('forever', `{"apiVersion":"${v1}","kind":"ExecCredential","status":{"token":"tok-$N"}}`);
    const get = credentialSource(
      execUser({ command: p.command, env: [{ name: 'CLUSTER', value: 'prod' }], provideClusterInfo: true }),
      cluster,
    );
    const [a, b] = await Promise.all([get(), get()]);
    expect(a.headers['Authorization']).toBe('Bearer tok-1');
    expect(b.headers['Authorization']).toBe('Bearer tok-1');
    expect((await get()).headers['Authorization']).toBe('Bearer tok-1');
    expect(p.runs()).toHaveLength(1);
    const [clusterEnv, info] = (p.runs()[0] ?? '').split(/ (.*)/);
    expect(clusterEnv).toBe('prod');
    expect(JSON.parse(info ?? '')).toEqual({
      apiVersion: v1,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: {
          server: 'https://k:6443',
          'tls-server-name': 'k.internal',
          'certificate-authority-data': Buffer.from('PEM').toString('base64'),
        },
      },
    });
  });

  it('runs it again once the credential expired, not before', async () => {
    const c = clock(Date.parse('2026-01-01T00:00:00Z'));
    const p = plugin(
      'expiring',
      `{"apiVersion":"${v1}","kind":"ExecCredential","status":{"token":"tok-$N","expirationTimestamp":"2026-01-01T00:05:00Z"}}`,
    );
    const get = credentialSource(execUser({ command: p.command }), cluster, { clock: c });
    expect((await get()).headers['Authorization']).toBe('Bearer tok-1');
    c.advance(5 * 60_000 - 1);
    expect((await get()).headers['Authorization']).toBe('Bearer tok-1');
    c.advance(1);
    // the second answer carries the same (past) expiry: every call now runs the plugin
    expect((await get()).headers['Authorization']).toBe('Bearer tok-2');
    expect(p.runs()).toHaveLength(2);
  });

  it('forgets the credential a 401 answered, once: a stale 401 leaves the fresh one alone', async () => {
    const p = plugin(
      'refreshed',
      `{"apiVersion":"${v1}","kind":"ExecCredential","status":{"token":"tok-$N"}}`,
    );
    const get = credentialSource(execUser({ command: p.command }), cluster);
    const first = await get();
    const concurrent = await get(); // the same cached credential, sent by another request
    expect(get.refresh?.(first)).toBe(true);
    const fresh = await get();
    expect(fresh.headers['Authorization']).toBe('Bearer tok-2');
    // the other request's 401 arrives late: the credential it carried is already replaced
    expect(get.refresh?.(concurrent)).toBe(true);
    expect((await get()).headers['Authorization']).toBe('Bearer tok-2');
    expect(p.runs()).toHaveLength(2);
  });

  it('has nothing to refresh for a fixed token', () => {
    expect(credentialSource({ name: 'u', token: 't0' }, cluster).refresh).toBeUndefined();
  });

  it('returns a client certificate from the plugin', async () => {
    const p = plugin(
      'cert',
      `{"apiVersion":"${v1}","kind":"ExecCredential","status":{"clientCertificateData":"C","clientKeyData":"K"}}`,
    );
    const creds = await credentialSource(execUser({ command: p.command }), cluster)();
    expect(creds).toEqual({ headers: {}, cert: 'C', key: 'K' });
  });

  it('leaves the plugin unused when the user also has a token (an explicit credential wins)', async () => {
    const p = plugin('unused', '{}');
    const get = credentialSource({ ...execUser({ command: p.command }), token: 'explicit' }, cluster);
    expect((await get()).headers['Authorization']).toBe('Bearer explicit');
    expect(p.runs()).toHaveLength(0);
  });

  it('refuses what client-go refuses, with the install hint and without the credential', async () => {
    expect(() => credentialSource({ name: 'u', exec: { apiVersion: v1, command: 'x' } }, cluster)).toThrow(
      /interactiveMode must be set with apiVersion client.authentication.k8s.io\/v1/,
    );
    expect(() => credentialSource(execUser({ command: 'x', interactiveMode: 'Always' }), cluster)).toThrow(
      /an operator has no terminal/,
    );
    expect(() =>
      credentialSource(
        execUser({ command: 'x', apiVersion: 'client.authentication.k8s.io/v1alpha1' }),
        cluster,
      ),
    ).toThrow(KubeConfigError);
    const half = plugin(
      'half',
      `{"apiVersion":"${v1}","kind":"ExecCredential","status":{"clientCertificateData":"C"}}`,
    );
    await expect(credentialSource(execUser({ command: half.command }), cluster)()).rejects.toThrow(
      /only one of clientCertificateData and clientKeyData/,
    );
    const wrong = plugin(
      'wrong',
      `{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"s3cret"}}`,
    );
    const e: unknown = await credentialSource(execUser({ command: wrong.command }), cluster)().catch(
      (x: unknown) => x,
    );
    expect((e as Error).message).toMatch(/returned apiVersion "client.authentication.k8s.io\/v1beta1"/);
    expect((e as Error).message).not.toContain('s3cret');
    await expect(
      credentialSource(
        execUser({ command: join(dir, 'nowhere'), installHint: 'brew install cred' }),
        cluster,
      )(),
    ).rejects.toThrow(/could not run it .*\nbrew install cred/s);
  });
});

describe('credentialSource: auth-provider', () => {
  it('gets the token from client-node, imported for it alone (an unexpired oidc id-token)', async () => {
    const b64url = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const idToken = `${b64url({ alg: 'none' })}.${b64url({ exp: 4_102_444_800, sub: 'u' })}.sig`;
    const get = credentialSource(
      {
        name: 'u',
        authProvider: {
          name: 'oidc',
          config: { 'id-token': idToken, 'idp-issuer-url': 'https://issuer.invalid', 'client-id': 'x' },
        },
      },
      cluster,
    );
    expect((await get()).headers['Authorization']).toBe(`Bearer ${idToken}`);
  });
});
