// Benchmark of @rxkube/testing's write paths that compute managedFields, over real HTTP
// (node:http, keep-alive, one process):
// 1. N Deployments created by server-side apply (manager a), 16 concurrent clients;
// 2. the same N applied again by manager b, who adds an env var to the container (list-map merge);
// 3. the same N applied by a with one change (a conflict-free update of its own field);
// 4. N merge patches of a label (an Update entry next to the Apply entries);
// 5. N ConfigMaps created by POST (the watch benchmark's write path).
// Each phase prints its rate and the process's CPU time per request.
import { Buffer } from 'node:buffer';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';

import { startApiServer } from '../dist/index.js';

const N = Number(process.env.N ?? 5_000);
const CONCURRENCY = 16;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function call(base, method, path, body, contentType = 'application/json') {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, base),
      {
        method,
        agent,
        headers: {
          Accept: 'application/json',
          ...(payload ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

async function run(label, base, make) {
  let next = 0;
  let failed = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < N; i = next++) {
        const [method, path, body, type] = make(i);
        const status = await call(base, method, path, body, type);
        if (status >= 300) failed++;
      }
    }),
  );
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  // CPU per request (server and clients share this process): steadier than the rate on a busy machine
  const cpuUs = (used.user + used.system) / N;
  console.log(
    `${label}: ${N} in ${ms.toFixed(0)} ms (${Math.round((N / ms) * 1000)}/s, ${cpuUs.toFixed(0)} us CPU each)${failed ? `, ${failed} failed` : ''}`,
  );
}

const APPLY = 'application/apply-patch+yaml';
const deployment = (i, container) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: `d${i}` },
  spec: {
    selector: { matchLabels: { app: `d${i}` } },
    template: {
      metadata: { labels: { app: `d${i}` } },
      spec: { containers: [{ name: 'app', ...container }] },
    },
  },
});

const server = await startApiServer({ logger: { error: () => undefined } });
const base = server.url;
const dep = (i, m) => `/apis/apps/v1/namespaces/default/deployments/d${i}?fieldManager=${m}`;
await run('apply create (Deployment)', base, (i) => [
  'PATCH',
  dep(i, 'a'),
  deployment(i, { image: 'nginx:1', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }),
  APPLY,
]);
await run('apply by a second manager (env merged by key)', base, (i) => [
  'PATCH',
  dep(i, 'b'),
  deployment(i, { env: [{ name: 'B', value: '2' }] }),
  APPLY,
]);
await run('apply update by the first manager', base, (i) => [
  'PATCH',
  dep(i, 'a'),
  deployment(i, { image: 'nginx:2', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }),
  APPLY,
]);
await run('merge patch of a label', base, (i) => [
  'PATCH',
  `/apis/apps/v1/namespaces/default/deployments/d${i}?fieldManager=labeler`,
  { metadata: { labels: { touched: 'yes' } } },
  'application/merge-patch+json',
]);
await run('create ConfigMap (POST)', base, (i) => [
  'POST',
  '/api/v1/namespaces/default/configmaps',
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { key: `value-${i}` } },
]);
await server.stop();
agent.destroy();
