/**
 * Test data: scenarios of writes to managedFields — the cap on Update entries, resets, entries a
 * client writes, kubectl's migration from client-side apply. Not exported from the package.
 *
 * @module
 */
import {
  apply,
  cm,
  CM,
  container,
  DEP,
  deployment,
  get,
  patch,
  type Scenario,
  W,
  widget,
  widgetStatus,
} from './helpers.js';

/** Scenarios of managedFields bookkeeping. */
export const MANAGED_FIELDS: readonly Scenario[] = [
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
    name: 'duplicate finalizers: a field set cannot hold them, so the entries are dropped',
    source: 'fieldmanager/fieldmanager.go UpdateNoErrors; structured-merge-diff typed/validate.go',
    steps: [
      {
        method: 'POST',
        path: `${CM}?fieldManager=m`,
        body: cm('dup', { a: '1' }, { finalizers: ['x/y', 'x/y'] }),
      },
      patch(CM, 'dup', 'merge', { data: { b: '2' } }, 'editor'),
      patch(CM, 'dup', 'merge', { metadata: { finalizers: ['x/y'] } }, 'editor'),
      patch(CM, 'dup', 'merge', { data: { c: '3' } }, 'other'),
      patch(CM, 'dup', 'merge', { metadata: { finalizers: null } }, 'editor'),
    ],
  },
];
