/**
 * Differential cases: per-kind rules of the kinds served (ConfigMap, Secret, Service, Deployment,
 * CRD schemas).
 *
 * @module
 */
import type { DiffCase, DiffStep } from '../harness.js';
import { cmPath, crd, deployment, deploymentPath, MERGE } from './fixtures.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const SCHEMA_CRD = ((): unknown => {
  const c = crd('schema.diff.example.com', 'widgets', 'Widget', false) as {
    spec: { versions: { schema: unknown }[] };
  };
  const v = c.spec.versions[0];
  if (v)
    v.schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            required: ['size'],
            properties: {
              size: { type: 'integer', minimum: 1, maximum: 10, multipleOf: 1 },
              mode: { type: 'string', enum: ['a', 'b'] },
              name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
              d: { type: 'string', default: 'dflt' },
              list: { type: 'array', maxItems: 2, items: { type: 'string' } },
            },
          },
        },
      },
    };
  return c;
})();

export const kindCases: DiffCase[] = [
  {
    name: 'ConfigMaps: keys, both maps, size, immutable',
    cite: 'pkg/apis/core/validation/validation.go (ValidateConfigMap, ValidateConfigMapUpdate)',
    steps: (ns) => {
      const p = cmPath(ns);
      return [
        { method: 'POST', path: p, body: { metadata: { name: 'k' }, data: { '..a': 'x' } } },
        { method: 'POST', path: p, body: { metadata: { name: 'k' }, data: { 'a/b': 'x' } } },
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 'd' }, data: { a: 'x' }, binaryData: { a: b64('x') } },
        },
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 'big' }, data: { a: 'x'.repeat(1024 * 1024 + 1) } },
        },
        { method: 'POST', path: p, body: { metadata: { name: 'bin' }, binaryData: { a: 'YWJj!' } } },
        { method: 'POST', path: p, body: { metadata: { name: 'imm' }, immutable: true, data: { a: '1' } } },
        { method: 'PATCH', path: `${p}/imm`, body: { data: { a: '2' } }, contentType: MERGE },
        { method: 'PATCH', path: `${p}/imm`, body: { immutable: false }, contentType: MERGE },
        { method: 'PATCH', path: `${p}/imm`, body: { metadata: { labels: { a: 'b' } } }, contentType: MERGE },
      ];
    },
  },
  {
    name: 'Secrets: base64, types, size, immutable',
    cite: 'pkg/apis/core/validation/validation.go (ValidateSecret, ValidateSecretUpdate), Go encoding/base64',
    steps: (ns) => {
      const p = `/api/v1/namespaces/${ns}/secrets`;
      const typed: [string, Record<string, string> | undefined][] = [
        ['kubernetes.io/service-account-token', undefined],
        ['kubernetes.io/dockercfg', undefined],
        ['kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('notjson') }],
        ['kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('[]') }],
        ['kubernetes.io/basic-auth', undefined],
        ['kubernetes.io/basic-auth', { username: b64('u') }],
        ['kubernetes.io/ssh-auth', undefined],
        ['kubernetes.io/tls', { 'tls.crt': b64('x') }],
        ['', undefined],
      ];
      return [
        ...['YWJj!', 'YWJ', 'YW==YQ==', 'Y', 'YQ=a'].map((a): DiffStep => ({
          method: 'POST',
          path: p,
          body: { metadata: { name: 'b' }, data: { a } },
        })),
        ...typed.map(([type, data], i): DiffStep => ({
          method: 'POST',
          path: p,
          body: { metadata: { name: `t${String(i)}` }, type, ...(data ? { data } : {}) },
        })),
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 'big' }, data: { a: b64('x'.repeat(1024 * 1024 + 1)) } },
        },
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 'im' }, immutable: true, data: { a: b64('1') } },
        },
        { method: 'PATCH', path: `${p}/im`, body: { type: 'Other' }, contentType: MERGE },
        { method: 'PATCH', path: `${p}/im`, body: { stringData: { a: '2' } }, contentType: MERGE },
        { method: 'PATCH', path: `${p}/im`, body: { immutable: false }, contentType: MERGE },
      ];
    },
  },
  {
    name: 'Services: ports, names, protocols, type',
    cite: 'pkg/apis/core/validation/validation.go (ValidateService, validateServicePort)',
    steps: (ns) => {
      const p = `/api/v1/namespaces/${ns}/services`;
      return [
        { method: 'POST', path: p, body: { metadata: { name: 's1' }, spec: {} } },
        {
          method: 'POST',
          path: p,
          body: {
            metadata: { name: 's2' },
            spec: { ports: [{ port: 0 }, { port: 70000, protocol: 'XYZ' }] },
          },
        },
        {
          method: 'POST',
          path: p,
          body: {
            metadata: { name: 's3' },
            spec: {
              ports: [
                { port: 80, name: 'x' },
                { port: 81, name: 'x' },
              ],
            },
          },
        },
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 's4' }, spec: { ports: [{ port: 80, name: 'Bad_Name' }] } },
        },
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 's5' }, spec: { type: 'Bogus', ports: [{ port: 80 }] } },
        },
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 's6' }, spec: { ports: [{ port: 80 }], selector: { 'bad key': 'x' } } },
        },
        {
          method: 'POST',
          path: `${p}?dryRun=All`,
          body: { metadata: { name: 's7' }, spec: { ports: [{ port: 80, name: 'http' }] } },
          pick: (b: { spec?: { ports?: unknown } }) => b.spec?.ports,
        },
      ];
    },
  },
  {
    name: 'Deployments: the apps/v1 selector is immutable',
    cite: 'pkg/registry/apps/deployment/strategy.go (ValidateUpdate)',
    steps: (ns) => [
      {
        method: 'POST',
        path: deploymentPath(ns),
        body: deployment('d'),
      },
      {
        method: 'PATCH',
        path: `${deploymentPath(ns)}/d`,
        body: {
          spec: { selector: { matchLabels: { a: 'c' } }, template: { metadata: { labels: { a: 'c' } } } },
        },
        contentType: MERGE,
      },
      {
        method: 'PATCH',
        path: `${deploymentPath(ns)}/d`,
        body: { spec: { selector: { matchExpressions: [{ key: 'a', operator: 'In', values: ['b'] }] } } },
        contentType: MERGE,
      },
      {
        method: 'PATCH',
        path: `${deploymentPath(ns)}/d`,
        body: { spec: { replicas: -3 } },
        contentType: MERGE,
      },
    ],
  },
  {
    name: 'CRD schema validation, defaults and pruning',
    cite: 'apiextensions-apiserver/pkg/apiserver/validation, go-openapi validate (number and string validators)',
    crds: [SCHEMA_CRD],
    steps: (ns) => {
      const p = `/apis/schema.diff.example.com/v1/namespaces/${ns}/widgets`;
      const w = (name: string, spec: unknown): unknown => ({
        apiVersion: 'schema.diff.example.com/v1',
        kind: 'Widget',
        metadata: { name },
        spec,
      });
      return [
        { method: 'POST', path: p, body: w('w1', {}) },
        { method: 'POST', path: p, body: w('w2', { size: 'big' }) },
        // one failing property per request: the validator walks properties in Go's map order
        { method: 'POST', path: p, body: w('w3', { size: 20 }) },
        { method: 'POST', path: p, body: w('w3', { size: 2, mode: 'c' }) },
        { method: 'POST', path: p, body: w('w3', { size: 2, name: 'ABCDEFG' }) },
        { method: 'POST', path: p, body: w('w3', { size: 2, name: 'AB' }) },
        { method: 'POST', path: p, body: w('w3', { size: 2, list: ['a', 'b', 'c'] }) },
        { method: 'POST', path: p, body: w('w4', { size: 2, extra: 1 }) },
        { method: 'POST', path: p, body: w('w5', 'str') },
      ];
    },
  },
  {
    name: 'Pods: the status a create gets, no PodStatus default; managedFields of built-in shapes',
    cite: 'pkg/registry/core/pod/strategy.go (PrepareForCreate), structured-merge-diff (atomic LabelSelector, mapType=atomic Service selector, value structs)',
    steps: (ns) => {
      const pods = `/api/v1/namespaces/${ns}/pods`;
      const pod = (name: string, extra: Record<string, unknown> = {}): unknown => ({
        metadata: { name },
        spec: { containers: [{ name: 'c', image: 'i' }] },
        ...extra,
      });
      const fields = (b: { metadata?: { managedFields?: { fieldsV1?: unknown }[] } }): unknown =>
        b.metadata?.managedFields?.map((m) => m.fieldsV1);
      return [
        {
          method: 'POST',
          path: pods,
          body: pod('a', { status: { phase: 'Running', message: 'hi', hostIP: '1.2.3.4' } }),
          pick: (b: { status?: unknown; metadata?: { managedFields?: { fieldsV1?: unknown }[] } }) => [
            b.status,
            fields(b),
          ],
        },
        {
          method: 'PATCH',
          path: `${pods}/a/status`,
          body: { status: { phase: null } },
          contentType: MERGE,
          pick: (b: { status?: unknown }) => b.status,
        },
        {
          method: 'PUT',
          path: `${pods}/a`,
          body: pod('a', { status: { phase: 'Failed' } }),
          pick: (b: { status?: unknown }) => b.status,
        },
        {
          method: 'POST',
          path: pods,
          body: {
            metadata: { name: 'b' },
            spec: {
              containers: [{ name: 'c', image: 'i', securityContext: {}, resources: {} }],
              securityContext: {},
            },
          },
          pick: fields,
        },
        {
          method: 'POST',
          path: `/api/v1/namespaces/${ns}/services`,
          body: { metadata: { name: 's' }, spec: { selector: { app: 'x' }, ports: [{ port: 80 }] } },
          pick: fields,
        },
        {
          method: 'POST',
          path: `/api/v1/namespaces/${ns}/persistentvolumeclaims`,
          body: {
            metadata: { name: 'c' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
          // compared whole: `status` (set by PrepareForCreate) is a reset field, owned by nobody
        },
        { method: 'POST', path: deploymentPath(ns), body: deployment('d') },
        {
          method: 'POST',
          path: `/apis/batch/v1/namespaces/${ns}/jobs`,
          body: {
            metadata: { name: 'j' },
            spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'i' }] } } },
          },
          pick: fields,
        },
      ];
    },
  },
];
