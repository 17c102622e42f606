/**
 * Test data: scenarios of apply semantics — list and map types, conflicts, force, pruning, reset
 * fields, errors, and the built-in kinds. Not exported from the package.
 *
 * @module
 */
import {
  apply,
  cm,
  CM,
  container,
  CRDS,
  CRON,
  DEP,
  deployment,
  EVENT,
  get,
  JOB,
  LEASE,
  NAMESPACES,
  NS,
  patch,
  POD,
  POD_ADMISSION,
  ROLE,
  ROLEBINDING,
  type Scenario,
  SECRET,
  SERVICE_IPS,
  SVC,
  W,
  widget,
  WIDGET_CRD,
  widgetStatus,
} from './helpers.js';

/** Scenarios of merge and ownership semantics. */
export const SEMANTICS: readonly Scenario[] = [
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
    name: 'Role rules: [] is owned and absent rules are not; a RoleBinding roleRef is owned whole',
    source: 'k8s.io/api/rbac/v1 types.go (Rules without omitempty, RoleRef +structType=atomic)',
    steps: [
      { method: 'POST', path: `${ROLE}?fieldManager=m`, body: { metadata: { name: 'r0' }, rules: [] } },
      { method: 'POST', path: `${ROLE}?fieldManager=m`, body: { metadata: { name: 'r1' } } },
      {
        method: 'PUT',
        path: `${ROLE}/r1?fieldManager=u`,
        body: { metadata: { name: 'r1' }, rules: [] },
      },
      apply(ROLE, 'r2', 'a', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'r2' },
        rules: [],
      }),
      apply(ROLE, 'r2', 'b', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'r2' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      }),
      ...['a', 'b'].map((manager) =>
        apply(ROLEBINDING, 'rb', manager, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name: 'rb' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r2' },
          subjects: [{ kind: 'User', name: manager, apiGroup: 'rbac.authorization.k8s.io' }],
        }),
      ),
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
