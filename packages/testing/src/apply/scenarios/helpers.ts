/**
 * Test data: what the server-side apply scenarios are made of — the namespace and paths, the
 * Widget CRD (every list and map type, a status subresource), and request builders. Not exported
 * from the package.
 *
 * @module
 */
import type { TwinRequest } from '../../internal/differential.js';

/** Where the real server's answers to these scenarios are recorded (see `apply.differential.test.ts`). */
export const SCENARIOS_FIXTURE = new URL(
  '../../../fixtures/kube-v1.24/apply-scenarios.json',
  import.meta.url,
);

/** A named sequence of requests. */
export interface Scenario {
  readonly name: string;
  /** The Kubernetes file whose behaviour it checks. */
  readonly source: string;
  readonly steps: readonly TwinRequest[];
}

export const NS = 'ssa';
export const CM = `/api/v1/namespaces/${NS}/configmaps`;
export const W = `/apis/example.com/v1/namespaces/${NS}/widgets`;
export const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
export const JOB = `/apis/batch/v1/namespaces/${NS}/jobs`;
export const CRON = `/apis/batch/v1/namespaces/${NS}/cronjobs`;
export const SVC = `/api/v1/namespaces/${NS}/services`;
export const POD = `/api/v1/namespaces/${NS}/pods`;
export const SECRET = `/api/v1/namespaces/${NS}/secrets`;
export const EVENT = `/api/v1/namespaces/${NS}/events`;
export const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;
export const ROLE = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`;
export const ROLEBINDING = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`;
export const NAMESPACES = '/api/v1/namespaces';
export const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** What only a real server fills in: the Service IP allocator's fields. */
export const SERVICE_IPS = ['spec.clusterIP', 'spec.clusterIPs', 'spec.ipFamilies', 'spec.ipFamilyPolicy'];
/** What only a real server's admission plugins add to a Pod (Priority, DefaultTolerationSeconds). */
export const POD_ADMISSION = ['spec.priority', 'spec.preemptionPolicy', 'spec.tolerations'];

/** The CRD the widget scenarios use: every list and map type, a status subresource. */
export const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  color: { type: 'string' },
                  opt: { type: 'string', nullable: true },
                  tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                  args: { type: 'array', items: { type: 'string' } },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['port', 'protocol'],
                    items: {
                      type: 'object',
                      required: ['port'],
                      properties: {
                        port: { type: 'integer' },
                        protocol: { type: 'string', default: 'TCP' },
                        name: { type: 'string' },
                      },
                    },
                  },
                  selector: {
                    type: 'object',
                    'x-kubernetes-map-type': 'atomic',
                    properties: { a: { type: 'string' }, b: { type: 'string' } },
                  },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  nested: {
                    type: 'object',
                    properties: {
                      inner: { type: 'object', properties: { x: { type: 'string' }, y: { type: 'string' } } },
                    },
                  },
                },
              },
              status: {
                type: 'object',
                properties: {
                  phase: { type: 'string' },
                  conditions: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['type'],
                    items: {
                      type: 'object',
                      required: ['type', 'status'],
                      properties: {
                        type: { type: 'string' },
                        status: { type: 'string' },
                        reason: { type: 'string' },
                        message: { type: 'string' },
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

function query(manager: string, force?: boolean): string {
  return `?fieldManager=${manager}${force === true ? '&force=true' : ''}`;
}

/** A server-side apply of `body` to `path` (a collection) as `manager`. */
export function apply(
  base: string,
  name: string,
  manager: string,
  body: unknown,
  opts: { force?: boolean; status?: boolean; ignore?: readonly string[] } = {},
): TwinRequest {
  return {
    method: 'PATCH',
    path: `${base}/${name}${opts.status === true ? '/status' : ''}${query(manager, opts.force)}`,
    body,
    type: 'apply',
    ...(opts.ignore ? { ignore: opts.ignore } : {}),
  };
}

export function get(base: string, name: string): TwinRequest {
  return { method: 'GET', path: `${base}/${name}` };
}

export function patch(
  base: string,
  name: string,
  type: 'merge' | 'json' | 'strategic',
  body: unknown,
  manager?: string,
  status = false,
): TwinRequest {
  return {
    method: 'PATCH',
    path: `${base}/${name}${status ? '/status' : ''}${manager ? `?fieldManager=${manager}` : ''}`,
    body,
    type,
  };
}

export const cm = (
  name: string,
  data: Record<string, string>,
  extra: Record<string, unknown> = {},
): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

export const widget = (
  name: string,
  spec: Record<string, unknown>,
  rest: Record<string, unknown> = {},
): unknown => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name },
  spec,
  ...rest,
});

export const widgetStatus = (
  name: string,
  status: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): unknown => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, ...metadata },
  status,
});

export const container = (c: Record<string, unknown>): Record<string, unknown> => ({ name: 'app', ...c });
export const deployment = (
  name: string,
  containers: Record<string, unknown>[],
  rest: Record<string, unknown> = {},
): unknown => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers } },
  },
  ...rest,
});
