// Benchmark of @rxkube/testing's API server over real HTTP (node:http, keep-alive).
// 1. 100,000 ConfigMaps created by 64 concurrent clients while one watch receives every ADDED event.
// 2. LIST of all 100,000 (one response) and paged (limit=500).
// 3. A watch from resourceVersion=0 delivering 100,000 synthetic ADDED events.
import { Buffer } from 'node:buffer';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';

import { startApiServer } from '../dist/index.js';

const N = Number(process.env.N ?? 100_000);
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function call(base, method, path, body) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      {
        method,
        agent,
        headers: {
          Accept: 'application/json',
          ...(payload
            ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

function countWatch(base, path, target) {
  return new Promise((resolve, reject) => {
    let lines = 0;
    let bytes = 0;
    const req = request(new URL(path, base), { headers: { Accept: 'application/json' } }, (res) => {
      res.on('data', (c) => {
        bytes += c.length;
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
        if (lines >= target) {
          req.destroy();
          resolve({ lines, bytes });
        }
      });
    });
    req.on('error', (e) => (lines >= target ? undefined : reject(e)));
    req.end();
  });
}

const rate = (n, ms) => `${Math.round((n / ms) * 1000).toLocaleString('en-US')}/s`;

const server = await startApiServer({ watchHistory: 1000 });
try {
  const rv0 = server.resourceVersion;
  const live = countWatch(
    server.url,
    `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv0}`,
    N,
  );
  let t = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < N) {
        const i = next++;
        const r = await call(server.url, 'POST', '/api/v1/namespaces/default/configmaps', {
          metadata: {
            name: `cm-${String(i).padStart(6, '0')}`,
            labels: { app: 'bench', shard: String(i % 10) },
          },
          data: { index: String(i), payload: 'x'.repeat(64) },
        });
        if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${r.text}`);
      }
    }),
  );
  const createMs = performance.now() - t;
  const liveResult = await live;
  const liveMs = performance.now() - t;
  console.log(`create ${N} ConfigMaps (64 clients): ${createMs.toFixed(0)} ms (${rate(N, createMs)})`);
  console.log(
    `live watch received ${liveResult.lines} ADDED events in ${liveMs.toFixed(0)} ms (${rate(liveResult.lines, liveMs)})`,
  );

  t = performance.now();
  const full = await call(server.url, 'GET', '/api/v1/namespaces/default/configmaps');
  const fullMs = performance.now() - t;
  const items = JSON.parse(full.text).items.length;
  console.log(
    `list all ${items} in one response: ${fullMs.toFixed(0)} ms, ${(full.text.length / 1e6).toFixed(1)} MB (${rate(items, fullMs)})`,
  );

  t = performance.now();
  let cont = '';
  let paged = 0;
  let pages = 0;
  do {
    const r = await call(
      server.url,
      'GET',
      `/api/v1/namespaces/default/configmaps?limit=500${cont ? `&continue=${cont}` : ''}`,
    );
    const body = JSON.parse(r.text);
    paged += body.items.length;
    pages++;
    cont = body.metadata.continue ?? '';
  } while (cont);
  const pagedMs = performance.now() - t;
  console.log(
    `paged list (limit=500): ${paged} items in ${pages} pages, ${pagedMs.toFixed(0)} ms (${rate(paged, pagedMs)})`,
  );

  t = performance.now();
  const initial = await countWatch(
    server.url,
    '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0',
    N,
  );
  const initialMs = performance.now() - t;
  console.log(
    `watch from RV 0: ${initial.lines} ADDED events, ${(initial.bytes / 1e6).toFixed(1)} MB in ${initialMs.toFixed(0)} ms (${rate(initial.lines, initialMs)})`,
  );
} finally {
  agent.destroy();
  await server.stop();
}
