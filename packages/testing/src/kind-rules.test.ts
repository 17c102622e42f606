/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- response bodies are untyped JSON */
// Per-kind rules of the kinds served today, as kube-apiserver v1.24 applies them (expected bodies
// read from the real server): pkg/apis/core/validation/validation.go (ValidateConfigMap(Update),
// ValidateSecret(Update), ValidateService), pkg/registry/apps/deployment/strategy.go (selector
// immutable), go-openapi's number and string validators for CRD schemas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'kinds';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const SEC = `/api/v1/namespaces/${NS}/secrets`;
const SVC = `/api/v1/namespaces/${NS}/services`;
const MERGE = 'application/merge-patch+json';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  expect(
    (await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
  ).toBe(201);
});
afterAll(async () => {
  await server.stop();
});

const causes = (body: {
  details?: { causes?: { field?: string; message: string }[] };
}): [string | undefined, string][] => (body.details?.causes ?? []).map((c) => [c.field, c.message]);

describe('ConfigMaps', () => {
  it('keys (".." prefix), keys in data and binaryData, 1 MiB in total', async () => {
    const keys = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'k' }, data: { '..a': 'x' }, binaryData: { b: b64('x') } },
    });
    expect(causes(keys.body)).toEqual([['data[..a]', `Invalid value: "..a": must not start with '..'`]]);
    const dup = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'd' }, data: { a: 'x' }, binaryData: { a: b64('x') } },
    });
    expect(causes(dup.body)).toEqual([
      ['data[a]', 'Invalid value: "a": duplicate of key present in binaryData'],
    ]);
    const big = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'big' }, data: { a: 'x'.repeat(1024 * 1024 + 1) } },
    });
    expect(big.body.message).toBe(
      'ConfigMap "big" is invalid: []: Too long: must have at most 1048576 bytes',
    );
  });

  it('immutable: data, binaryData and the flag itself are frozen; metadata is not', async () => {
    await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'imm' }, immutable: true, data: { a: '1' } },
    });
    const data = await call(server.url, 'PATCH', `${CM}/imm`, {
      body: { data: { a: '2' } },
      contentType: MERGE,
    });
    expect(data.body.message).toBe(
      'ConfigMap "imm" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
    const flag = await call(server.url, 'PATCH', `${CM}/imm`, {
      body: { immutable: false },
      contentType: MERGE,
    });
    expect(causes(flag.body)).toEqual([
      ['immutable', 'Forbidden: field is immutable when `immutable` is set'],
    ]);
    const labels = await call(server.url, 'PATCH', `${CM}/imm`, {
      body: { metadata: { labels: { a: 'b' } } },
      contentType: MERGE,
    });
    expect(labels.status).toBe(200);
  });

  it('binaryData must be base64 (the decoder answers 400)', async () => {
    const r = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'bin' }, binaryData: { a: 'YWJj!' } },
    });
    expect([r.status, r.body.message]).toEqual([
      400,
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 4',
    ]);
  });
});

describe('Secrets', () => {
  it('data must be base64: 400 with the byte Go stopped at', async () => {
    for (const [v, at] of [
      ['YWJj!', 4],
      ['YWJ', 0],
      ['YW==YQ==', 4],
    ] as const) {
      const r = await call(server.url, 'POST', SEC, { body: { metadata: { name: 'b' }, data: { a: v } } });
      expect([r.status, r.body.message]).toEqual([
        400,
        `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${String(at)}`,
      ]);
    }
  });

  it('what each type requires', async () => {
    const post = async (
      name: string,
      type: string,
      data?: Record<string, string>,
    ): Promise<[string | undefined, string][]> =>
      causes(
        (
          await call(server.url, 'POST', SEC, {
            body: { metadata: { name }, type, ...(data ? { data } : {}) },
          })
        ).body,
      );
    expect(await post('t1', 'kubernetes.io/service-account-token')).toEqual([
      ['metadata.annotations[kubernetes.io/service-account.name]', 'Required value'],
    ]);
    expect(
      await post('t2', 'kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('notjson') }),
    ).toEqual([
      [
        'data[.dockerconfigjson]',
        `Invalid value: "<secret contents redacted>": invalid character 'o' in literal null (expecting 'u')`,
      ],
    ]);
    expect(await post('t3', 'kubernetes.io/basic-auth')).toEqual([
      ['data[username]', 'Required value'],
      ['data[password]', 'Required value'],
    ]);
    expect(await post('t4', 'kubernetes.io/ssh-auth')).toEqual([['data[ssh-privatekey]', 'Required value']]);
    expect(await post('t5', 'kubernetes.io/tls', { 'tls.crt': b64('x') })).toEqual([
      ['data[tls.key]', 'Required value'],
    ]);
    const empty = await call(server.url, 'POST', SEC, { body: { metadata: { name: 't6' }, type: '' } });
    expect(empty.body.type).toBe('Opaque');
  });

  it('type and, when immutable, data cannot change; 1 MiB of data at most', async () => {
    await call(server.url, 'POST', SEC, {
      body: { metadata: { name: 'im' }, immutable: true, data: { a: b64('1') } },
    });
    const type = await call(server.url, 'PATCH', `${SEC}/im`, {
      body: { type: 'Other' },
      contentType: MERGE,
    });
    expect(causes(type.body)).toEqual([['type', 'Invalid value: "Other": field is immutable']]);
    const data = await call(server.url, 'PATCH', `${SEC}/im`, {
      body: { stringData: { a: '2' } },
      contentType: MERGE,
    });
    expect(causes(data.body)).toEqual([['data', 'Forbidden: field is immutable when `immutable` is set']]);
    const big = await call(server.url, 'POST', SEC, {
      body: { metadata: { name: 'big' }, data: { a: b64('x'.repeat(1024 * 1024 + 1)) } },
    });
    expect(big.body.message).toBe('Secret "big" is invalid: data: Too long: must have at most 1048576 bytes');
  });
});

describe('Services', () => {
  it('ports are required unless headless or ExternalName', async () => {
    expect(
      causes((await call(server.url, 'POST', SVC, { body: { metadata: { name: 's1' }, spec: {} } })).body),
    ).toEqual([['spec.ports', 'Required value']]);
    expect(
      (
        await call(server.url, 'POST', SVC, {
          body: { metadata: { name: 's2' }, spec: { clusterIP: 'None' } },
        })
      ).status,
    ).toBe(201);
  });

  it('port names, numbers and protocols, after the port defaults', async () => {
    const r = await call(server.url, 'POST', SVC, {
      body: { metadata: { name: 's3' }, spec: { ports: [{ port: 0 }, { port: 70000, protocol: 'XYZ' }] } },
    });
    expect(causes(r.body)).toEqual([
      ['spec.ports[0].name', 'Required value'],
      ['spec.ports[0].port', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
      ['spec.ports[0].targetPort', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
      ['spec.ports[1].name', 'Required value'],
      ['spec.ports[1].port', 'Invalid value: 70000: must be between 1 and 65535, inclusive'],
      ['spec.ports[1].protocol', 'Unsupported value: "XYZ": supported values: "SCTP", "TCP", "UDP"'],
      ['spec.ports[1].targetPort', 'Invalid value: 70000: must be between 1 and 65535, inclusive'],
    ]);
    const ok = await call(server.url, 'POST', `${SVC}?dryRun=All`, {
      body: { metadata: { name: 's4' }, spec: { ports: [{ port: 80, name: 'http' }] } },
    });
    expect(ok.body.spec.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }]);
    const type = await call(server.url, 'POST', SVC, {
      body: { metadata: { name: 's5' }, spec: { type: 'Bogus', ports: [{ port: 80 }] } },
    });
    expect(causes(type.body)).toEqual([
      [
        'spec.type',
        'Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      ],
    ]);
  });
});

describe('Deployments', () => {
  it('the apps/v1 selector is immutable', async () => {
    const D = `/apis/apps/v1/namespaces/${NS}/deployments`;
    const dep = {
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    await call(server.url, 'POST', D, { body: dep });
    const r = await call(server.url, 'PATCH', `${D}/d`, {
      body: {
        spec: { selector: { matchLabels: { a: 'c' } }, template: { metadata: { labels: { a: 'c' } } } },
      },
      contentType: MERGE,
    });
    expect(r.body.message).toBe(
      'Deployment.apps "d" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"c"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
  });
});

describe('CRD schemas (go-openapi validators)', () => {
  it('numbers report multipleOf and bounds; strings only their first failure', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.kinds.example.com' },
      spec: {
        group: 'kinds.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      num: { type: 'integer', minimum: 5, multipleOf: 3 },
                      mid: { type: 'string', maxLength: 1, pattern: '^a$' },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    };
    await call(server.url, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    const W = `/apis/kinds.example.com/v1/namespaces/${NS}/widgets`;
    for (let i = 0; i < 100 && (await call(server.url, 'GET', W)).status !== 200; i++)
      await new Promise((r) => setImmediate(r));
    const r = await call(server.url, 'POST', W, {
      body: {
        apiVersion: 'kinds.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { num: 4, mid: 'bbb' },
      },
    });
    expect(causes(r.body)).toEqual([
      ['spec.num', 'Invalid value: 4: spec.num in body should be a multiple of 3'],
      ['spec.num', 'Invalid value: 4: spec.num in body should be greater than or equal to 5'],
      ['spec.mid', 'Too long: may not be longer than 1'],
    ]);
  });
});

// pkg/registry/core/pod/strategy.go PrepareForCreate; managedFields shapes of structured-merge-diff
// for Go types (expected values read from a real v1.24; the differential suite compares them live)
describe('Pods and managedFields of built-in shapes', () => {
  const PODS = `/api/v1/namespaces/${NS}/pods`;
  const fields = (b: { metadata: { managedFields: { fieldsV1: unknown }[] } }): unknown =>
    b.metadata.managedFields[0]?.fieldsV1;
  const dig = (v: unknown, ...keys: string[]): unknown =>
    keys.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], v);

  it('a created Pod has status {phase: Pending, qosClass} owned by nobody; no PodStatus default', async () => {
    const pod = (status: unknown): unknown => ({
      metadata: { name: 'p1' },
      spec: { containers: [{ name: 'c', image: 'i' }] },
      status,
    });
    const created = await call(server.url, 'POST', PODS, {
      body: pod({ phase: 'Running', message: 'hi', hostIP: '1.2.3.4' }),
    });
    expect(created.body.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(fields(created.body)).not.toHaveProperty('f:status');
    const cleared = await call(server.url, 'PATCH', `${PODS}/p1/status`, {
      body: { status: { phase: null } },
      contentType: MERGE,
    });
    expect(cleared.body.status).toEqual({ qosClass: 'BestEffort' });
    const put = await call(server.url, 'PUT', `${PODS}/p1`, { body: pod({ phase: 'Failed' }) });
    expect(put.body.status).toEqual({ qosClass: 'BestEffort' });
  });

  it('containers have no "." of their own; empty resources and securityContext are fields', async () => {
    const r = await call(server.url, 'POST', PODS, {
      body: {
        metadata: { name: 'p2' },
        spec: {
          containers: [{ name: 'c', image: 'i', securityContext: {}, resources: {} }],
          securityContext: {},
        },
      },
    });
    expect(fields(r.body)).toEqual({
      'f:spec': {
        'f:containers': {
          'k:{"name":"c"}': {
            '.': {},
            'f:image': {},
            'f:imagePullPolicy': {},
            'f:name': {},
            'f:resources': {},
            'f:securityContext': {},
            'f:terminationMessagePath': {},
            'f:terminationMessagePolicy': {},
          },
        },
        'f:dnsPolicy': {},
        'f:enableServiceLinks': {},
        'f:restartPolicy': {},
        'f:schedulerName': {},
        'f:securityContext': {},
        'f:terminationGracePeriodSeconds': {},
      },
    });
  });

  it('a Service selector and a Deployment selector are owned whole', async () => {
    const svc = await call(server.url, 'POST', SVC, {
      body: { metadata: { name: 'mf' }, spec: { selector: { app: 'x' }, ports: [{ port: 80 }] } },
    });
    expect(dig(fields(svc.body), 'f:spec', 'f:selector')).toEqual({});
    const d = await call(server.url, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        metadata: { name: 'mf' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      },
    });
    const spec = dig(fields(d.body), 'f:spec');
    expect(dig(spec, 'f:selector')).toEqual({});
    expect(Object.keys(dig(spec, 'f:template', 'f:spec', 'f:containers') as object)).toEqual([
      'k:{"name":"c"}',
    ]);
  });
});
