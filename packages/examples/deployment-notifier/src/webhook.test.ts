import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, from } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookRequest } from './deliver.js';
import { httpPost, parseRetryAfter } from './webhook.js';

const body: WebhookRequest['body'] = {
  notifier: 'n',
  namespace: 'ns',
  deployment: 'web',
  container: 'app',
  from: 'nginx:1.26',
  to: 'nginx:1.27',
  at: '2025-01-01T00:00:00.000Z',
  idempotencyKey: 'uid/app/nginx:1.27',
};

describe('httpPost over node:http', () => {
  const got: {
    method: string | undefined;
    url: string | undefined;
    headers: IncomingHttpHeaders;
    body: string;
  }[] = [];
  let held: (() => void) | undefined;
  let closed = 0;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      got.push({ method: req.method, url: req.url, headers: req.headers, body: text });
      if (req.url === '/busy') res.writeHead(429, { 'retry-after': '7' }).end('slow down');
      else if (req.url === '/moved') res.writeHead(302, { location: '/elsewhere' }).end();
      else if (req.url === '/hold') {
        res.on('close', () => closed++);
        held = () => res.writeHead(200).end();
      } else res.writeHead(204).end();
    });
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('POSTs the JSON body with Content-Type and Idempotency-Key, and emits the status', async () => {
    const post = httpPost();
    expect(await firstValueFrom(from(post({ url: `${base}/hook?x=1`, body })))).toEqual({ status: 204 });
    const last = got.at(-1);
    expect(last?.method).toBe('POST');
    expect(last?.url).toBe('/hook?x=1');
    expect(last?.headers['content-type']).toBe('application/json');
    expect(last?.headers['idempotency-key']).toBe('uid/app/nginx:1.27');
    expect(JSON.parse(last?.body ?? '')).toEqual(body);
  });

  it('reports Retry-After, and does not follow redirects', async () => {
    const post = httpPost();
    expect(await firstValueFrom(from(post({ url: `${base}/busy`, body })))).toEqual({
      status: 429,
      retryAfterSeconds: 7,
    });
    expect(await firstValueFrom(from(post({ url: `${base}/moved`, body })))).toEqual({ status: 302 });
    expect(got.some((r) => r.url === '/elsewhere')).toBe(false);
  });

  it('errors on a refused connection (a network failure)', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    await expect(
      firstValueFrom(from(httpPost()({ url: `http://127.0.0.1:${port}/`, body }))),
    ).rejects.toThrow(/ECONNREFUSED/);
  });

  it('unsubscribing before the answer destroys the request', async () => {
    const sub = from(httpPost()({ url: `${base}/hold`, body })).subscribe();
    for (let i = 0; i < 10_000 && held === undefined; i++) await new Promise((r) => setImmediate(r));
    expect(held).toBeDefined();
    sub.unsubscribe();
    for (let i = 0; i < 10_000 && closed === 0; i++) await new Promise((r) => setImmediate(r));
    expect(closed).toBe(1);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = () => Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10);
    expect(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
