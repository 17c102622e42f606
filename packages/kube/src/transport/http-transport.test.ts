import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { KubeConfig } from '@kubernetes/client-node';
import { firstValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';

import { connectionFromKubeConfig } from '../config/connection.js';
import { KubeApiError, KubeTransportError } from '../errors.js';
import { HttpTransport } from './http-transport.js';

/** A raw HTTP server standing in for a misbehaving API server (wire-level faults). */
async function rawServer(
  handler: (
    req: { method: string; url: string; headers: IncomingHttpHeaders; body: string },
    res: ServerResponse,
  ) => void,
) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      handler(
        {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        },
        res,
      ),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())), server };
}

function transportFor(url: string, options = {}): HttpTransport {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: false }],
    users: [{ name: 'u', token: 'the-token' }],
    contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
    currentContext: 'ctx',
  });
  return new HttpTransport(connectionFromKubeConfig(kc), options);
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('HttpTransport', () => {
  it('always sends Accept, User-Agent and credentials, and Content-Type with a body', async () => {
    const seen: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[] = [];
    const s = await rawServer((req, res) => {
      seen.push(req);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
    const t = transportFor(s.url, { userAgent: 'test-agent/1' });
    cleanups.push(s.close, () => t.connection.close());
    await t.request({
      method: 'GET',
      path: '/api/v1/pods',
      query: { limit: 5, continue: undefined },
      target: { verb: 'list' },
    });
    await t.request({
      method: 'PATCH',
      path: '/api/v1/namespaces/a/configmaps/b',
      body: '{"data":{}}',
      contentType: 'application/merge-patch+json',
      target: { verb: 'patch' },
    });
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/v1/pods?limit=5' });
    expect(seen[0]?.headers).toMatchObject({
      accept: 'application/json',
      'user-agent': 'test-agent/1',
      authorization: 'Bearer the-token',
    });
    expect(seen[0]?.headers['content-type']).toBeUndefined();
    expect(seen[1]?.headers).toMatchObject({
      'content-type': 'application/merge-patch+json',
      accept: 'application/json',
    });
    expect(seen[1]?.body).toBe('{"data":{}}');
  });

  it('bounds response bodies', async () => {
    const s = await rawServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ items: 'x'.repeat(10_000) }));
    });
    const t = transportFor(s.url, { maxResponseBytes: 1_000 });
    cleanups.push(s.close, () => t.connection.close());
    const e: unknown = await t
      .request({ method: 'GET', path: '/api/v1/pods', target: { verb: 'list' } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(KubeTransportError);
    expect((e as KubeTransportError).failure).toBe('body-too-large');
    expect((e as Error).message).toContain('exceeded 1000 bytes');
  });

  it('reports a 200 that is not JSON as a protocol failure, and a text error body as KubeApiError', async () => {
    const s = await rawServer((req, res) => {
      if (req.url.startsWith('/html'))
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>proxy login</html>');
      else
        res.writeHead(503, { 'Content-Type': 'text/plain', 'Retry-After': '3' }).end('upstream unavailable');
    });
    const t = transportFor(s.url);
    cleanups.push(s.close, () => t.connection.close());
    const html: unknown = await t
      .request({ method: 'GET', path: '/html', target: { verb: 'get' } })
      .catch((x: unknown) => x);
    expect((html as KubeTransportError).failure).toBe('protocol');
    expect((html as Error).message).toContain('did not answer like a Kubernetes API server');
    const unavailable: unknown = await t
      .request({ method: 'GET', path: '/x', target: { verb: 'get' } })
      .catch((x: unknown) => x);
    expect(unavailable).toBeInstanceOf(KubeApiError);
    expect(unavailable).toMatchObject({ code: 503, reason: 'ServiceUnavailable', retryAfterSeconds: 3 });
  });

  it('names the server and what to check when the connection is refused', async () => {
    const s = await rawServer(() => undefined);
    const url = s.url;
    await s.close();
    const t = transportFor(url);
    cleanups.push(() => t.connection.close());
    const e: unknown = await t
      .request({ method: 'GET', path: '/api', target: { verb: 'get' } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(KubeTransportError);
    expect(e).toMatchObject({ failure: 'network', errorCode: 'ECONNREFUSED' });
    expect((e as Error).message).toContain(`Is the API server reachable at ${url}?`);
    expect((e as Error).message).not.toContain('the-token');
  });

  it('ends a watch with MALFORMED and aborts the request when a line exceeds maxLineBytes', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((r) => (closed = r));
    const s = await rawServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}\n');
      res.write(`{"type":"ADDED","object":{"metadata":{"name":"${'b'.repeat(5_000)}"}}}`);
      res.on('close', () => closed());
    });
    const t = transportFor(s.url);
    cleanups.push(s.close, () => t.connection.close());
    const events = await firstValueFrom(
      t
        .watch(
          { method: 'GET', path: '/api/v1/pods', query: { watch: 'true' }, target: { verb: 'watch' } },
          2_048,
        )
        .pipe(toArray()),
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MALFORMED']);
    await serverSawClose;
  });
});
