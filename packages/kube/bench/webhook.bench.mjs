// Webhook benchmark (issue 23): the cost of one conversion and one mutation of a 10 KiB object,
// (a) in-process (convertObject, createJsonPatch after an immer recipe) and (b) end to end
// through the WebhookServer over HTTPS (a ConversionReview / AdmissionReview POSTed on a
// keep-alive connection, as kube-apiserver sends them), one object per review and 100 per review.
// The goal is ≤ 1 ms per 10 KiB object converted, so a slow conversion never stalls the API
// server's watch cache. Prints the machine's load beside the figures.
//
//   pnpm --filter @rxkube/kube bench:webhook      # builds, then runs this
//   BENCH_ITERATIONS=2000 node bench/webhook.bench.mjs
import { Buffer } from 'node:buffer';
import { Agent, request } from 'node:https';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

import {
  WebhookServer,
  convertObject,
  createJsonPatch,
  generateWebhookCertificates,
} from '../dist/webhook/index.js';

const ITERATIONS = Number(process.env['BENCH_ITERATIONS'] ?? 1000);

/** A Gadget of about 10 KiB: 100 items of ~100 bytes in spec. */
function gadget(i, version = 'v1') {
  const items = Array.from({ length: 100 }, (_, j) => ({
    name: `item-${j}`,
    note: 'x'.repeat(60),
    weight: j,
  }));
  const spec = version === 'v1' ? { size: i, items } : { replicas: i, items };
  return {
    apiVersion: `example.com/${version}`,
    kind: 'Gadget',
    metadata: { name: `g-${i}`, namespace: 'bench', uid: `uid-${i}`, labels: { app: 'bench' } },
    spec,
  };
}

const conversion = {
  hub: 'v2',
  spokes: {
    v1: {
      toHub: (o) => {
        const { size, ...rest } = o.spec;
        return { ...o, spec: { replicas: size, ...rest } };
      },
      fromHub: (o) => {
        const { replicas, ...rest } = o.spec;
        return { ...o, spec: { size: replicas, ...rest } };
      },
    },
  },
};
const lookup = () => conversion;

function perOp(label, n, fn) {
  for (let i = 0; i < Math.min(200, n); i++) fn(i); // warm up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  const ms = (performance.now() - t0) / n;
  console.log(`${label.padEnd(58)} ${ms.toFixed(4)} ms/object`);
  return ms;
}

async function perRequest(label, n, perReview, send) {
  for (let i = 0; i < 50; i++) await send(i); // warm up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await send(i);
  const ms = (performance.now() - t0) / (n * perReview);
  console.log(`${label.padEnd(58)} ${ms.toFixed(4)} ms/object`);
  return ms;
}

const size = Buffer.byteLength(JSON.stringify(gadget(1)));
console.log(
  `webhook bench: object ${(size / 1024).toFixed(1)} KiB, ${ITERATIONS} iterations, ${cpus().length} cores, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, Node ${process.version}`,
);

const objects = Array.from({ length: 100 }, (_, i) => gadget(i));
perOp('convertObject v1 → v2 (in-process)', ITERATIONS, (i) =>
  convertObject(objects[i % 100], 'example.com/v2', lookup),
);
perOp('createJsonPatch after changing two fields (in-process)', ITERATIONS, (i) => {
  const o = objects[i % 100];
  createJsonPatch(o, {
    ...o,
    metadata: { ...o.metadata, labels: { ...o.metadata.labels, size: 'large' } },
    spec: { ...o.spec, size: o.spec.size + 1 },
  });
});

const certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
const server = new WebhookServer({ host: '127.0.0.1', port: 0, tls: { cert: certs.cert, key: certs.key } })
  .convert({ group: 'example.com', kind: 'Gadget' }, conversion)
  .mutate({ apiVersion: 'example.com/v1', kind: 'Gadget' }, (draft) => {
    draft.metadata.labels = { ...draft.metadata.labels, size: 'large' };
    draft.spec.size += 1;
  });
await server.start();
const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: certs.caCert });
function post(path, body) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      server.url(path),
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(Buffer.concat(chunks))
            : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
const review = (objs) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: { uid: 'u', desiredAPIVersion: 'example.com/v2', objects: objs },
});
const http1 = await perRequest('ConversionReview over HTTPS, 1 object per review', ITERATIONS, 1, (i) =>
  post('/convert', review([objects[i % 100]])),
);
const http100 = await perRequest(
  'ConversionReview over HTTPS, 100 objects per review',
  Math.max(10, ITERATIONS / 50),
  100,
  () => post('/convert', review(objects)),
);
const admission = (o) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u',
    kind: { group: 'example.com', version: 'v1', kind: 'Gadget' },
    resource: { group: 'example.com', version: 'v1', resource: 'gadgets' },
    name: o.metadata.name,
    namespace: 'bench',
    operation: 'CREATE',
    userInfo: { username: 'bench' },
    object: o,
  },
});
const mutate = await perRequest('AdmissionReview (mutate, immer + patch) over HTTPS', ITERATIONS, 1, (i) =>
  post('/mutate-example-com-v1-gadget', admission(objects[i % 100])),
);
agent.destroy();
await server.stop();
const worst = Math.max(http1, http100, mutate);
console.log(
  `goal ≤ 1 ms per 10 KiB object end to end: ${worst <= 1 ? 'met' : 'NOT met'} (worst ${worst.toFixed(3)} ms); load after ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
