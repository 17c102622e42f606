/**
 * Test data: the request sequences `apply.differential.test.ts` sends to the embedded server and
 * to a real kube-apiserver v1.24, and `apply.scenarios.test.ts` runs on the embedded server alone.
 * Each names the Kubernetes source it exercises. Not exported.
 *
 * @module
 */
import type { TwinRequest } from '../internal/differential.js';

/** A named sequence of requests. */
export interface Scenario {
  readonly name: string;
  /** The Kubernetes file whose behaviour it checks. */
  readonly source: string;
  readonly steps: readonly TwinRequest[];
}

const NS = 'ssa';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const W = `/apis/example.com/v1/namespaces/${NS}/widgets`;
const DEP = `/apis/apps/v1/namespaces/${NS}/deployments`;
const JOB = `/apis/batch/v1/namespaces/${NS}/jobs`;
const CRON = `/apis/batch/v1/namespaces/${NS}/cronjobs`;
const SVC = `/api/v1/namespaces/${NS}/services`;
const POD = `/api/v1/namespaces/${NS}/pods`;
const SECRET = `/api/v1/namespaces/${NS}/secrets`;
const EVENT = `/api/v1/namespaces/${NS}/events`;
const LEASE = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;
const NAMESPACES = '/api/v1/namespaces';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** What only a real server fills in: the Service IP allocator's fields. */
const SERVICE_IPS = ['spec.clusterIP', 'spec.clusterIPs', 'spec.ipFamilies', 'spec.ipFamilyPolicy'];
/** What only a real server's admission plugins add to a Pod (Priority, DefaultTolerationSeconds). */
const POD_ADMISSION = ['spec.priority', 'spec.preemptionPolicy', 'spec.tolerations'];

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
function apply(
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

function get(base: string, name: string): TwinRequest {
  return { method: 'GET', path: `${base}/${name}` };
}

function patch(
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

const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

const widget = (
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

const widgetStatus = (
  name: string,
  status: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): unknown => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, ...metadata },
  status,
});

const container = (c: Record<string, unknown>): Record<string, unknown> => ({ name: 'app', ...c });
const deployment = (
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

/** The sequences. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'ConfigMap: shared values, a conflict, force, and pruning what a manager stops applying',
    source: 'structured-merge-diff merge/update.go',
    steps: [
      apply(CM, 'c1', 'a', cm('c1', { x: '1', y: '1' })),
      apply(CM, 'c1', 'b', cm('c1', { y: '1' })),
      apply(CM, 'c1', 'b', cm('c1', { y: '2' })),
      apply(CM, 'c1', 'b', cm('c1', { y: '2' }), { force: true }),
      apply(CM, 'c1', 'a', cm('c1', { x: '1' })),
      apply(CM, 'c1', 'a', cm('c1', { x: '1' })),
      apply(CM, 'c1', 'a', cm('c1', {}, { labels: { l: 'v' } })),
      patch(CM, 'c1', 'merge', { data: { z: '3' }, metadata: { annotations: { n: 'v' } } }, 'kubectl-edit'),
      apply(CM, 'c1', 'b', cm('c1', { y: '2', z: '4' })),
      get(CM, 'c1'),
    ],
  },
  {
    name: 'two managers apply different conditions of a CRD status: merged by type',
    source: 'structured-merge-diff typed/merge.go, x-kubernetes-list-map-keys',
    steps: [
      apply(W, 'w1', 'owner', widget('w1', { size: 1 })),
      apply(W, 'w1', 'ready', widgetStatus('w1', { conditions: [{ type: 'Ready', status: 'True' }] }), {
        status: true,
      }),
      apply(
        W,
        'w1',
        'synced',
        widgetStatus('w1', { conditions: [{ type: 'Synced', status: 'False', reason: 'Wait' }] }),
        {
          status: true,
        },
      ),
      apply(W, 'w1', 'ready', widgetStatus('w1', { conditions: [{ type: 'Ready', status: 'False' }] }), {
        status: true,
      }),
      apply(W, 'w1', 'synced', widgetStatus('w1', { conditions: [{ type: 'Ready', status: 'True' }] }), {
        status: true,
      }),
      apply(W, 'w1', 'ready', widgetStatus('w1', { phase: 'Up' }), { status: true }),
      get(W, 'w1'),
    ],
  },
  {
    name: 'a set merges by value, an atomic list is owned whole, an atomic map too, a granular map by key',
    source: 'structured-merge-diff typed/tofieldset.go, schemaconv smd.go',
    steps: [
      apply(
        W,
        'w2',
        'm1',
        widget('w2', { tags: ['a', 'b'], args: ['x'], selector: { a: '1' }, labels: { p: '1' } }),
      ),
      apply(W, 'w2', 'm2', widget('w2', { tags: ['b', 'c'], labels: { q: '2' } })),
      apply(W, 'w2', 'm2', widget('w2', { args: ['y'] })),
      apply(W, 'w2', 'm2', widget('w2', { selector: { b: '2' } })),
      apply(W, 'w2', 'm2', widget('w2', { args: ['y'], selector: { b: '2' } }), { force: true }),
      apply(W, 'w2', 'm1', widget('w2', { tags: ['a'] })),
      get(W, 'w2'),
    ],
  },
  {
    name: 'list-map keys with a default, nested structs, preserved unknown fields, nullable',
    source: 'structured-merge-diff typed/helpers.go keyedAssociativeListItemToPathElement',
    steps: [
      apply(
        W,
        'w3',
        'm1',
        widget('w3', {
          ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }],
          nested: { inner: { x: '1' } },
          free: { a: { b: 1 } },
          opt: null,
        }),
      ),
      apply(
        W,
        'w3',
        'm2',
        widget('w3', {
          ports: [{ port: 80, protocol: 'TCP', name: 'http' }],
          nested: { inner: { y: '2' } },
          free: { a: { c: 2 } },
        }),
      ),
      apply(W, 'w3', 'm1', widget('w3', { ports: [{ port: 53, protocol: 'UDP' }] })),
      get(W, 'w3'),
    ],
  },
  {
    name: 'status in a main-resource apply is ignored, and spec in a /status apply',
    source: 'customresource/strategy.go and status_strategy.go GetResetFields',
    steps: [
      apply(W, 'w4', 'm', widget('w4', { size: 1 }, { status: { phase: 'Ignored' } })),
      apply(
        W,
        'w4',
        's',
        widget('w4', { size: 9 }, { status: { phase: 'Set' }, metadata: { name: 'w4', labels: { l: '1' } } }),
        {
          status: true,
        },
      ),
      apply(W, 'w4', 'm', widget('w4', { size: 2 }, { status: { phase: 'Again' } })),
      get(W, 'w4'),
    ],
  },
  {
    name: 'Deployment containers, ports and env merge by key across managers',
    source: 'apps/v1 schema: x-kubernetes-patch-merge-key, x-kubernetes-list-map-keys',
    steps: [
      apply(
        DEP,
        'd1',
        'm1',
        deployment('d1', [
          container({ image: 'nginx:1', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: '1' }] }),
        ]),
      ),
      apply(
        DEP,
        'd1',
        'm2',
        deployment('d1', [container({ ports: [{ containerPort: 8080 }], env: [{ name: 'B', value: '2' }] })]),
      ),
      apply(DEP, 'd1', 'm2', deployment('d1', [container({ image: 'nginx:2' })])),
      apply(
        DEP,
        'd1',
        'm2',
        deployment('d1', [
          container({ image: 'nginx:2', env: [{ name: 'B', value: '2' }] }),
          { name: 'side', image: 'busybox' },
        ]),
        {
          force: true,
        },
      ),
      apply(DEP, 'd1', 'm1', deployment('d1', [container({ ports: [{ containerPort: 80 }] })])),
      patch(
        DEP,
        'd1',
        'strategic',
        { spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'C', value: '3' }] }] } } } },
        'kubectl-patch',
      ),
      get(DEP, 'd1'),
    ],
  },
  {
    name: 'Deployment status: main apply ignores it; /status apply resets spec and labels',
    source: 'registry/apps/deployment/strategy.go GetResetFields',
    steps: [
      apply(
        DEP,
        'd2',
        'm',
        deployment('d2', [container({ image: 'nginx' })], { status: { observedGeneration: 5 } }),
      ),
      apply(
        DEP,
        'd2',
        's',
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'd2', labels: { s: '1' }, annotations: { s: '1' } },
          status: { observedGeneration: 1 },
        },
        { status: true },
      ),
      get(DEP, 'd2'),
    ],
  },
  {
    name: 'Job /status apply keeps metadata and owns it; spec is reset',
    source: 'registry/batch/job/strategy.go GetResetFields',
    steps: [
      apply(JOB, 'j1', 'm', {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j1' },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
        },
      }),
      apply(
        JOB,
        'j1',
        's',
        {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'j1', labels: { s: '1' } },
          spec: { parallelism: 3 },
          status: { active: 1 },
        },
        { status: true },
      ),
      get(JOB, 'j1'),
    ],
  },
  {
    name: 'configs the schema cannot read: unknown fields, wrong types, missing keys, duplicates, managedFields',
    source: 'structured-merge-diff typed/validate.go, structuredmerge.go',
    steps: [
      apply(CM, 'bad', 'm', { ...(cm('bad', { a: '1' }) as object), foo: 1 }),
      apply(CM, 'bad', 'm', cm('bad', { a: 1 as unknown as string })),
      apply(W, 'bad', 'm', widget('bad', { size: 'x', ports: [{ name: 'p' }] })),
      apply(W, 'bad', 'm', widget('bad', { ports: [{ port: 1 }, { port: 1 }], tags: ['a', 'a'] })),
      apply(W, 'bad', 'm', widget('bad', { selector: 3 })),
      apply(CM, 'bad', 'm', cm('bad', { a: '1' }, { managedFields: [] })),
      apply(CM, 'bad', 'm', cm('bad', { a: '1' }, { managedFields: null })),
    ],
  },
  {
    name: 'more than ten Update managers: the oldest are merged into ancient-changes',
    source: 'fieldmanager/capmanagers.go',
    steps: [
      { method: 'POST', path: `${CM}?fieldManager=creator`, body: cm('many', { base: '0' }) },
      ...Array.from({ length: 11 }, (_, i) =>
        patch(
          CM,
          'many',
          'merge',
          { data: { [`k${String(i)}`]: String(i) } },
          `u${String(i).padStart(2, '0')}`,
        ),
      ),
      get(CM, 'many'),
    ],
  },
  {
    name: 'managedFields reset with [{}] and []: untracked updates, then before-first-apply owns everything',
    source: 'fieldmanager/fieldmanager.go isResetManagedFields, skipnonapplied.go',
    steps: [
      apply(CM, 'reset', 'a', cm('reset', { x: '1', y: '1' })),
      patch(CM, 'reset', 'merge', { metadata: { managedFields: [{}] } }, 'resetter'),
      patch(CM, 'reset', 'merge', { data: { z: '1' } }, 'untracked'),
      apply(CM, 'reset', 'b', cm('reset', { x: '2' })),
      apply(CM, 'reset', 'b', cm('reset', { x: '2' }), { force: true }),
      patch(CM, 'reset', 'merge', { metadata: { managedFields: [] } }, 'resetter'),
      get(CM, 'reset'),
      apply(W, 'wreset', 'a', widget('wreset', { size: 1 })),
      apply(W, 'wreset', 's', widgetStatus('wreset', { phase: 'A' }), { status: true }),
      patch(W, 'wreset', 'merge', { metadata: { managedFields: [{}] } }, 'resetter'),
      apply(W, 'wreset', 's', widgetStatus('wreset', { phase: 'B' }), { status: true }),
      apply(W, 'wreset', 'a', widget('wreset', { size: 2 })),
    ],
  },
  {
    name: 'managedFields written by a client are kept when they decode, ignored when they do not',
    source: 'fieldmanager/fieldmanager.go decodeLiveOrNew, internal/managedfields.go DecodeManagedFields',
    steps: [
      apply(CM, 'written', 'a', cm('written', { x: '1', y: '1' })),
      patch(CM, 'written', 'json', [
        {
          op: 'replace',
          path: '/metadata/managedFields',
          value: [
            {
              manager: 'crafted',
              operation: 'Apply',
              apiVersion: 'v1',
              time: '2020-01-01T00:00:00Z',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:x': {}, 'f:gone': {} } },
            },
            {
              manager: 'kept',
              operation: 'Update',
              apiVersion: 'v1',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:y': {} } },
            },
          ],
        },
      ]),
      apply(CM, 'written', 'b', cm('written', { x: '2' })),
      patch(CM, 'written', 'merge', {
        metadata: {
          managedFields: [
            { manager: 'bogus', operation: 'Bogus', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} },
          ],
        },
      }),
      patch(CM, 'written', 'merge', {
        metadata: {
          managedFields: [{ manager: 'no-type', operation: 'Update', apiVersion: 'v1', fieldsV1: {} }],
        },
      }),
      patch(CM, 'written', 'merge', {
        metadata: {
          managedFields: [
            {
              manager: 'bad-key',
              operation: 'Update',
              apiVersion: 'v1',
              fieldsType: 'FieldsV1',
              fieldsV1: { bad: {} },
            },
          ],
        },
      }),
      patch(CM, 'written', 'merge', {
        metadata: {
          managedFields: [
            {
              manager: 'x'.repeat(129),
              operation: 'Update',
              apiVersion: 'v1',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': {} },
            },
          ],
        },
      }),
      patch(CM, 'written', 'merge', {
        metadata: {
          managedFields: [
            {
              manager: 'dup',
              operation: 'Update',
              apiVersion: 'v1',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:x': {} } },
            },
            {
              manager: 'dup',
              operation: 'Update',
              apiVersion: 'v1',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:y': {} } },
            },
          ],
        },
      }),
      {
        method: 'PUT',
        path: `${CM}/written`,
        body: cm('written', { x: '3', y: '1' }, { managedFields: [{}] }),
      },
      {
        method: 'POST',
        path: `${CM}?fieldManager=creator`,
        body: cm(
          'created-with',
          { a: '1' },
          {
            managedFields: [
              {
                manager: 'pre',
                operation: 'Apply',
                apiVersion: 'v1',
                fieldsType: 'FieldsV1',
                fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } },
              },
            ],
          },
        ),
      },
      patch(W, 'w1', 'merge', { metadata: { managedFields: [{}] } }, 'status-writer', true),
      get(W, 'w1'),
      apply(DEP, 'd3', 'm', deployment('d3', [container({ image: 'nginx' })])),
      patch(DEP, 'd3', 'merge', {
        metadata: {
          managedFields: [
            {
              manager: 'granular',
              operation: 'Apply',
              apiVersion: 'apps/v1',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:spec': { 'f:selector': { 'f:matchLabels': { 'f:app': {} } } } },
            },
          ],
        },
      }),
      apply(
        DEP,
        'd3',
        'other',
        deployment('d3', [container({ image: 'nginx' })], { metadata: { name: 'd3', labels: { o: '1' } } }),
      ),
    ],
  },
  {
    name: 'kubectl apply --server-side after client-side apply: last-applied fields are no conflict',
    source: 'fieldmanager/lastappliedmanager.go, lastappliedupdater.go',
    steps: [
      {
        method: 'POST',
        path: `${CM}?fieldManager=kubectl-client-side-apply`,
        body: cm(
          'csa',
          { a: '1', b: '1' },
          {
            annotations: {
              'kubectl.kubernetes.io/last-applied-configuration':
                '{"apiVersion":"v1","data":{"a":"1","b":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"csa","namespace":"ssa"}}\n',
            },
          },
        ),
      },
      apply(CM, 'csa', 'other', cm('csa', { a: '2' })),
      apply(CM, 'csa', 'kubectl', cm('csa', { a: '2', c: '3' })),
      patch(CM, 'csa', 'merge', { data: { b: 'edited' } }, 'editor'),
      apply(CM, 'csa', 'kubectl', cm('csa', { a: '2', b: '2', c: '3' })),
      apply(CM, 'csa', 'kubectl', cm('csa', { a: '2', b: '2', c: '3' }), { force: true }),
      get(CM, 'csa'),
    ],
  },
  {
    name: 'a CRD applied server-side: its empty status subresource is kept and owned',
    source: 'apiextensions v1 schema: CustomResourceSubresourceStatus is a struct without fields',
    steps: [
      {
        ...apply(CRDS, 'things.example.com', 'installer', {
          ...WIDGET_CRD,
          metadata: { name: 'things.example.com' },
          spec: {
            ...WIDGET_CRD.spec,
            names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
          },
        }),
        ignore: ['status'],
      },
    ],
  },
  {
    name: 'built-in kinds: Service ports by port and protocol, Pod containers, Secret stringData, Event references, Namespace, Lease',
    source: 'core/v1 and coordination/v1 schemas (structType=atomic, listMapKeys), go-form of typed objects',
    steps: [
      {
        ...apply(SVC, 's1', 'm1', {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 's1' },
          spec: { selector: { app: 's1' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
        }),
        ignore: SERVICE_IPS,
      },
      {
        ...apply(SVC, 's1', 'm2', {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 's1' },
          spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
        }),
        ignore: SERVICE_IPS,
      },
      apply(
        POD,
        'p1',
        'm1',
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p1', labels: { a: '1' } },
          spec: {
            containers: [
              {
                name: 'c',
                image: 'nginx:1',
                volumeMounts: [{ name: 'v', mountPath: '/data' }],
                args: ['--x'],
              },
            ],
            volumes: [{ name: 'v', emptyDir: {} }],
            tolerations: [{ key: 'k', operator: 'Exists' }],
          },
        },
        { ignore: POD_ADMISSION },
      ),
      apply(
        POD,
        'p1',
        'm2',
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p1', labels: { b: '2' } },
          spec: { containers: [{ name: 'c', image: 'nginx:2' }] },
        },
        { ignore: POD_ADMISSION },
      ),
      apply(
        POD,
        'p1',
        'm2',
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p1' },
          spec: { containers: [{ name: 'c', image: 'nginx:2' }] },
        },
        { force: true, ignore: POD_ADMISSION },
      ),
      apply(SECRET, 'sec', 'm', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'sec' },
        stringData: { user: 'admin' },
        type: 'Opaque',
      }),
      apply(SECRET, 'sec', 'm', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'sec' },
        data: { user: 'YWRtaW4=' },
      }),
      apply(EVENT, 'ev', 'recorder', {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: 'ev' },
        involvedObject: { kind: 'Pod', name: 'p1', namespace: NS },
        reason: 'Started',
        message: 'm',
        type: 'Normal',
        source: { component: 'test' },
      }),
      apply(NAMESPACES, 'ssa-ns', 'm', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'ssa-ns', labels: { team: 'a' } },
      }),
      apply(LEASE, 'lock', 'leader', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'lock' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
      }),
      patch(LEASE, 'lock', 'merge', { spec: { holderIdentity: 'b' } }, 'thief'),
      apply(LEASE, 'lock', 'leader', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'lock' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
      }),
    ],
  },
  {
    name: 'a controller reads, changes and PUTs back a Deployment it applied: managedFields round-trip',
    source: 'fieldmanager/fieldmanager.go decodeLiveOrNew (request managedFields equal to the live ones)',
    steps: [
      apply(DEP, 'rt', 'ctl', deployment('rt', [container({ image: 'nginx:1' })])),
      {
        method: 'PUT',
        path: `${DEP}/rt?fieldManager=ctl-update`,
        edit: (o: { spec: { replicas: number }; metadata: { annotations?: Record<string, string> } }) => {
          o.spec.replicas = 3;
          o.metadata.annotations = { touched: 'yes' };
        },
      },
      {
        method: 'PUT',
        path: `${DEP}/rt?fieldManager=ctl-update`,
        edit: (o: { metadata: { managedFields?: unknown } }) => {
          delete o.metadata.managedFields;
        },
      },
      apply(CRON, 'cj', 'a', {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'cj' },
        spec: {
          schedule: '*/5 * * * *',
          jobTemplate: {
            spec: {
              template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
            },
          },
        },
      }),
      apply(CRON, 'cj', 'b', {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'cj' },
        spec: {
          jobTemplate: {
            spec: { template: { spec: { containers: [{ name: 'c', env: [{ name: 'E', value: '1' }] }] } } },
          },
        },
      }),
    ],
  },
];
