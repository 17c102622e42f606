/**
 * The config module end to end over HTTPS against the embedded API server: every way a kubeconfig
 * authenticates (token, token file, exec plugin, client certificate), `tls-server-name`, and
 * proxies — through `KubeClient`, as an operator uses it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';

import { startApiServer, testCertificates } from '@rxkube/testing';
import type { ApiServer } from '@rxkube/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

import { KubeClient } from '../client/kube-client.js';
import { KubeTransportError } from '../errors.js';
import { loadKubeConfigFile } from './connection.js';
import { proxyFor } from './proxy.js';

const NAMESPACES = { apiVersion: 'v1', kind: 'Namespace' } as const;
let dir: string;
let server: ApiServer; // HTTPS with the test CA
const caData = (): string => Buffer.from(testCertificates().ca).toString('base64');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rxkube-config-e2e-'));
  server = await startApiServer({ tls: true });
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfigFile(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    path,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'ctx',
    }),
  );
  return path;
}

async function namespaces(client: KubeClient): Promise<string[]> {
  try {
    const list = await client.list(NAMESPACES);
    return list.items.map((n) => (n as { metadata: { name: string } }).metadata.name);
  } finally {
    client.close();
  }
}

describe('kubeconfig auth over HTTPS [embedded]', () => {
  it('a token', async () => {
    const kc = loadKubeConfigFile(
      kubeconfigFile({ server: server.url, 'certificate-authority-data': caData() }, { token: server.token }),
    );
    expect(await namespaces(KubeClient.fromKubeConfig(kc))).toContain('default');
  });

  it('a token file and a CA file, relative to the kubeconfig', async () => {
    writeFileSync(join(dir, 'token'), `${server.token}\n`);
    writeFileSync(join(dir, 'ca.crt'), testCertificates().ca);
    const kc = loadKubeConfigFile(
      kubeconfigFile({ server: server.url, 'certificate-authority': 'ca.crt' }, { tokenFile: 'token' }),
    );
    expect(await namespaces(KubeClient.fromKubeConfig(kc))).toContain('default');
  });

  it('an exec plugin', async () => {
    const script = join(dir, 'cred.sh');
    writeFileSync(
      script,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"${server.token}"}}'\n`,
    );
    chmodSync(script, 0o755);
    const kc = loadKubeConfigFile(
      kubeconfigFile(
        { server: server.url, 'certificate-authority-data': caData() },
        { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: script } },
      ),
    );
    expect(await namespaces(KubeClient.fromKubeConfig(kc))).toContain('default');
  });

  it('checks the certificate against tls-server-name, not the URL host', async () => {
    // the test certificate names 127.0.0.1, ::1 and localhost
    const good = loadKubeConfigFile(
      kubeconfigFile(
        { server: server.url, 'certificate-authority-data': caData(), 'tls-server-name': 'localhost' },
        { token: server.token },
      ),
    );
    expect(await namespaces(KubeClient.fromKubeConfig(good))).toContain('default');
    const wrong = KubeClient.fromKubeConfig(
      loadKubeConfigFile(
        kubeconfigFile(
          {
            server: server.url,
            'certificate-authority-data': caData(),
            'tls-server-name': 'elsewhere.example',
          },
          { token: server.token },
        ),
      ),
    );
    const e: unknown = await namespaces(wrong).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(KubeTransportError);
    expect((e as KubeTransportError).failure).toBe('tls');
  });
});

describe('client certificates over HTTPS [embedded behind a TLS front that requires them]', () => {
  let front: tls.Server;
  let plain: ApiServer;
  const seen: string[] = [];
  let url: string;
  let pki: { ca: string; cert: string; key: string; certFile: string; keyFile: string };

  beforeAll(async () => {
    // a client CA and a certificate for user jane, made for this test (the checked-in test CA's
    // key is discarded)
    const ssl = (...args: string[]): void => {
      execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    };
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'client-ca.key',
      '-out',
      'client-ca.crt',
      '-subj',
      '/CN=client-ca',
      '-days',
      '1',
    );
    ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'jane.key',
      '-out',
      'jane.csr',
      '-subj',
      '/CN=jane/O=devs',
    );
    ssl(
      'x509',
      '-req',
      '-in',
      'jane.csr',
      '-CA',
      'client-ca.crt',
      '-CAkey',
      'client-ca.key',
      '-CAcreateserial',
      '-out',
      'jane.crt',
      '-days',
      '1',
    );
    pki = {
      ca: readFileSync(join(dir, 'client-ca.crt'), 'utf8'),
      cert: readFileSync(join(dir, 'jane.crt'), 'utf8'),
      key: readFileSync(join(dir, 'jane.key'), 'utf8'),
      certFile: join(dir, 'jane.crt'),
      keyFile: join(dir, 'jane.key'),
    };
    plain = await startApiServer();
    const { cert, key } = testCertificates();
    const backend = new URL(plain.url);
    front = tls.createServer(
      { cert, key, ca: pki.ca, requestCert: true, rejectUnauthorized: true },
      (sock) => {
        seen.push(String(sock.getPeerCertificate().subject?.CN));
        const up = net.connect(Number(backend.port), backend.hostname);
        sock.pipe(up).pipe(sock);
        sock.on('error', () => up.destroy());
        up.on('error', () => sock.destroy());
      },
    );
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${String((front.address() as net.AddressInfo).port)}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => front.close(() => resolve()));
    await plain.stop();
  });

  it('inline client-certificate-data and client-key-data', async () => {
    const kc = loadKubeConfigFile(
      kubeconfigFile(
        { server: url, 'certificate-authority-data': caData() },
        {
          'client-certificate-data': Buffer.from(pki.cert).toString('base64'),
          'client-key-data': Buffer.from(pki.key).toString('base64'),
          token: plain.token,
        },
      ),
    );
    seen.length = 0;
    expect(await namespaces(KubeClient.fromKubeConfig(kc))).toContain('default');
    expect(seen).toContain('jane');
  });

  it('client-certificate and client-key files', async () => {
    const kc = loadKubeConfigFile(
      kubeconfigFile(
        { server: url, 'certificate-authority-data': caData() },
        { 'client-certificate': pki.certFile, 'client-key': pki.keyFile },
      ),
    );
    seen.length = 0;
    expect(await namespaces(KubeClient.fromKubeConfig(kc))).toContain('default');
    expect(seen).toEqual(['jane']);
  });

  it('without a client certificate the TLS front refuses the connection', async () => {
    const kc = loadKubeConfigFile(
      kubeconfigFile({ server: url, 'certificate-authority-data': caData() }, { token: plain.token }),
    );
    const e: unknown = await namespaces(KubeClient.fromKubeConfig(kc)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(KubeTransportError);
  });
});

describe('proxies as client-go honours them [embedded]', () => {
  let proxy: http.Server;
  let proxyUrl: string;
  const tunnels: string[] = [];

  beforeAll(async () => {
    // a CONNECT proxy
    proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: http.IncomingMessage, sock: net.Socket) => {
      tunnels.push(`${String(req.url)} ${req.headers['proxy-authorization'] ?? '-'}`);
      const [host, port] = String(req.url).split(/:(?=\d+$)/);
      const up = net.connect(Number(port), host ?? '', () => {
        sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        up.pipe(sock).pipe(up);
      });
      sock.on('error', () => up.destroy());
      up.on('error', () => sock.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${String((proxy.address() as net.AddressInfo).port)}`;
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  });

  it("tunnels through the cluster's proxy-url, with its credentials as Proxy-Authorization", async () => {
    const withAuth = proxyUrl.replace('http://', 'http://pu:pp@');
    const kc = loadKubeConfigFile(
      kubeconfigFile(
        { server: server.url, 'certificate-authority-data': caData(), 'proxy-url': withAuth },
        { token: server.token },
      ),
    );
    tunnels.length = 0;
    expect(await namespaces(KubeClient.fromKubeConfig(kc))).toContain('default');
    expect(tunnels).toEqual([`${new URL(server.url).host} Basic ${Buffer.from('pu:pp').toString('base64')}`]);
  });

  it('uses HTTPS_PROXY except for loopback servers and NO_PROXY hosts', async () => {
    const kc = loadKubeConfigFile(
      kubeconfigFile({ server: server.url, 'certificate-authority-data': caData() }, { token: server.token }),
    );
    // a loopback server is never proxied (Go's ProxyFromEnvironment)
    const before = process.env['HTTPS_PROXY'];
    process.env['HTTPS_PROXY'] = proxyUrl;
    try {
      tunnels.length = 0;
      expect(await namespaces(KubeClient.fromKubeConfig(kc))).toContain('default');
      expect(tunnels).toEqual([]);
    } finally {
      if (before === undefined) delete process.env['HTTPS_PROXY'];
      else process.env['HTTPS_PROXY'] = before;
    }
    // the same server by a non-loopback name would be: HTTPS_PROXY applies, NO_PROXY exempts
    const remote = new URL('https://api.corp.example:6443');
    expect(proxyFor(remote, undefined, { HTTPS_PROXY: proxyUrl })?.href).toBe(`${proxyUrl}/`);
    expect(proxyFor(remote, undefined, { https_proxy: 'proxy.corp:3128' })?.href).toBe(
      'http://proxy.corp:3128/',
    );
    expect(proxyFor(remote, undefined, { HTTPS_PROXY: proxyUrl, NO_PROXY: '.corp.example' })).toBeUndefined();
    expect(
      proxyFor(new URL('http://api.corp.example'), undefined, { HTTPS_PROXY: proxyUrl }),
    ).toBeUndefined();
  });
});
