// Evaluation cost per object of a CRD with 10 CEL rules (run: `pnpm --filter @rxkube/cel bench`).
//
// One CRD (a Deployment-like spec: replicas, a selector, containers with ports and resources, an
// update strategy) with 10 x-kubernetes-validations rules: 6 plain, 1 on every container, 1 on
// every port, 2 transition rules. Timed, after a warm-up: compileValidations once, then
// `validate(obj)` (a create: transition rules skipped), `validate(obj, old)` (an update: all
// rules), and `validate(bad)` (3 rules fail). µs per object: median of 5 runs of N objects.
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';

import { compileValidations } from '../dist/index.js';

const N = 20_000;
const RUNS = 5;

const v = (rule, message) => ({ rule, ...(message ? { message } : {}) });
const crd = {
  spec: {
    group: 'bench.example.com',
    names: { kind: 'App', plural: 'apps' },
    versions: [
      {
        name: 'v1',
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': [
                  v('self.minReplicas <= self.replicas', 'replicas must be at least minReplicas'),
                  v('self.replicas <= 100'),
                  v("self.strategy in ['RollingUpdate', 'Recreate']"),
                  v("self.strategy != 'Recreate' || !has(self.maxSurge)", 'maxSurge needs RollingUpdate'),
                  v('self.containers.all(c, c.name.size() <= 63)'),
                  v('self.containers.exists_one(c, c.primary)', 'exactly one primary container'),
                  v('self.replicas >= oldSelf.replicas || self.allowScaleDown', 'no scaling down'),
                ],
                properties: {
                  replicas: { type: 'integer' },
                  minReplicas: { type: 'integer' },
                  strategy: { type: 'string' },
                  maxSurge: { type: 'integer' },
                  allowScaleDown: { type: 'boolean' },
                  selector: {
                    type: 'string',
                    'x-kubernetes-validations': [v('self == oldSelf', 'selector is immutable')],
                  },
                  containers: {
                    type: 'array',
                    maxItems: 20,
                    items: {
                      type: 'object',
                      'x-kubernetes-validations': [
                        v("self.image.contains(':') && !self.image.endsWith(':latest')", 'pin the image tag'),
                      ],
                      properties: {
                        name: { type: 'string', maxLength: 63 },
                        image: { type: 'string', maxLength: 256 },
                        primary: { type: 'boolean' },
                        ports: {
                          type: 'array',
                          maxItems: 10,
                          items: {
                            type: 'object',
                            'x-kubernetes-validations': [v('self.port > 0 && self.port < 65536')],
                            properties: { name: { type: 'string' }, port: { type: 'integer' } },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const app = (replicas, image = 'web:1.2.3', strategy = 'RollingUpdate') => ({
  apiVersion: 'bench.example.com/v1',
  kind: 'App',
  metadata: { name: 'a' },
  spec: {
    replicas,
    minReplicas: 2,
    strategy,
    allowScaleDown: false,
    selector: 'app=a',
    containers: [
      {
        name: 'web',
        image,
        primary: true,
        ports: [
          { name: 'http', port: 8080 },
          { name: 'metrics', port: 9090 },
        ],
      },
      { name: 'sidecar', image: 'proxy:2.0', primary: false, ports: [{ name: 'proxy', port: 15001 }] },
    ],
  },
});

const t0 = performance.now();
const compiled = compileValidations(crd);
const compileMs = performance.now() - t0;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(label, fn, expectErrors) {
  const got = fn().length;
  if (got !== expectErrors) throw new Error(`${label}: expected ${expectErrors} errors, got ${got}`);
  for (let i = 0; i < N; i++) fn(); // warm-up
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const start = performance.now();
    for (let i = 0; i < N; i++) fn();
    runs.push(((performance.now() - start) * 1000) / N);
  }
  console.log(
    `${label.padEnd(44)} ${median(runs).toFixed(1).padStart(7)} µs/object (runs: ${runs.map((x) => x.toFixed(1)).join(', ')})`,
  );
}

const good = app(3);
const old = app(3);
const bad = app(1, 'web:latest', 'Blue');
console.log(
  `@rxkube/cel bench — node ${process.version}, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log(`compileValidations (10 rules)                 ${compileMs.toFixed(1)} ms, once`);
time('validate(create, valid; 8 rules run)', () => compiled.validate(good), 0);
time('validate(update, valid; all 10 rules run)', () => compiled.validate(good, old), 0);
time('validate(create, 3 rules fail)', () => compiled.validate(bad), 3);
