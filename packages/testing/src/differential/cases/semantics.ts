/**
 * Differential cases: generation rules, Event validation, PartialObjectMetadata and Tables.
 *
 * @module
 */
import type { DiffCase, DiffStep } from '../harness.js';
import {
  cmPath,
  deployment,
  deploymentPath,
  gadgetPath,
  GADGETS,
  MERGE,
  widget,
  widgetPath,
  WIDGETS,
} from './fixtures.js';

const generation = (b: { metadata?: { generation?: unknown } }): unknown => b.metadata?.generation;
const patches = (path: string, bodies: [unknown, string?][]): DiffStep[] =>
  bodies.map(([body, sub]) => ({
    method: 'PATCH',
    path: `${path}${sub ?? ''}`,
    body,
    contentType: MERGE,
    pick: generation,
  }));
const META_CHANGES: [unknown][] = [
  [{ metadata: { labels: { l: 'x' } } }],
  [{ metadata: { annotations: { n: 'x' } } }],
  [{ metadata: { finalizers: ['example.com/f'] } }],
];

const event = (name: string, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-01-01T00:00:00.000000Z',
  reportingController: 'example.com/ctl',
  reportingInstance: 'inst',
  action: 'Act',
  reason: 'Reason',
  note: 'hello',
  type: 'Normal',
  ...extra,
});
const accept = (as: string, v: string): string => `application/json;as=${as};v=${v};g=meta.k8s.io`;

export const semanticsCases: DiffCase[] = [
  {
    name: 'generation of custom resources with and without a status subresource',
    cite: 'apiextensions-apiserver/pkg/registry/customresource/strategy.go',
    crds: [WIDGETS, GADGETS],
    steps: (ns) => [
      { method: 'POST', path: widgetPath(ns), body: widget('w'), pick: generation },
      ...patches(`${widgetPath(ns)}/w`, [
        ...META_CHANGES,
        [{ spec: { a: 2 } }],
        [{ status: { x: 1 } }],
        [{ status: { y: 2 } }, '/status'],
      ]),
      { method: 'DELETE', path: `${widgetPath(ns)}/w`, pick: generation },
      {
        method: 'POST',
        path: gadgetPath(ns),
        body: { apiVersion: 'diff.example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { a: 1 } },
        pick: generation,
      },
      ...patches(`${gadgetPath(ns)}/g`, [
        ...META_CHANGES,
        [{ spec: { a: 2 } }],
        [{ status: { x: 1 } }],
        [{ status: { y: 2 } }, '/status'],
      ]),
      { method: 'DELETE', path: `${gadgetPath(ns)}/g`, pick: generation },
    ],
  },
  {
    name: 'generation of Deployments (annotations count) and CRDs; none for ConfigMaps',
    cite: 'pkg/registry/apps/deployment/strategy.go, apiextensions-apiserver customresourcedefinition strategy',
    steps: (ns) => [
      {
        method: 'POST',
        path: deploymentPath(ns),
        body: deployment('d'),
      },
      ...patches(`${deploymentPath(ns)}/d`, [
        ...META_CHANGES,
        [{ spec: { replicas: 3 } }],
        [{ status: { x: 1 } }],
        [{ status: { observedGeneration: 1 } }, '/status'],
      ]),
      { method: 'DELETE', path: `${deploymentPath(ns)}/d`, pick: generation },
      {
        method: 'POST',
        path: cmPath(ns),
        body: { metadata: { name: 'c' }, data: { a: '1' } },
        pick: generation,
      },
      ...patches(`${cmPath(ns)}/c`, [...META_CHANGES, [{ data: { a: '2' } }]]),
    ],
  },
  {
    name: 'events.k8s.io/v1 and core/v1 Event validation',
    cite: 'pkg/apis/core/validation/events.go',
    steps: (ns) => {
      const E = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;
      const V = `/api/v1/namespaces/${ns}/events`;
      const regarding = { kind: 'Pod', name: 'p', namespace: ns };
      return [
        { method: 'POST', path: `${E}?dryRun=All`, body: event('e0', { regarding }) },
        {
          method: 'POST',
          path: E,
          body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1' } },
        },
        { method: 'POST', path: E, body: event('e2', { regarding, type: 'Bogus' }) },
        { method: 'POST', path: E, body: event('e3', { regarding, reportingController: '' }) },
        { method: 'POST', path: E, body: event('e4', { regarding, reportingController: 'bad controller!' }) },
        {
          method: 'POST',
          path: E,
          body: event('e5', { regarding, reportingInstance: '', action: '', reason: '' }),
        },
        {
          method: 'POST',
          path: E,
          body: event('e6', {
            regarding,
            reportingInstance: 'i'.repeat(129),
            action: 'a'.repeat(129),
            reason: 'r'.repeat(129),
            note: 'n'.repeat(1025),
          }),
        },
        {
          method: 'POST',
          path: E,
          body: event('e7', {
            regarding,
            deprecatedCount: 2,
            deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
            deprecatedLastTimestamp: '2024-01-01T00:00:00Z',
            deprecatedSource: { component: 'c' },
            series: { count: 1 },
          }),
        },
        { method: 'POST', path: E, body: event('e8', { regarding: { kind: 'Node', name: 'n' } }) },
        {
          method: 'POST',
          path: E,
          body: event('e9', { regarding, metadata: { name: 'e9', labels: { 'bad key': 'x' } } }),
        },
        {
          method: 'POST',
          path: V,
          body: { metadata: { name: 'v1' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' } },
        },
        {
          method: 'POST',
          path: V,
          body: {
            metadata: { name: 'v2' },
            eventTime: '2024-01-01T00:00:00.000000Z',
            involvedObject: regarding,
          },
        },
        {
          method: 'POST',
          path: `${V}?dryRun=All`,
          body: { metadata: { name: 'v3' }, type: 'Bogus', involvedObject: regarding },
        },
        { method: 'POST', path: E, body: event('u1', { regarding }), compare: 'none' },
        ...[
          { note: 'changed' },
          { reason: 'Other' },
          { regarding: { kind: 'Pod', name: 'q', namespace: ns } },
          { type: 'Warning' },
          { action: 'Other' },
          { reportingController: 'example.com/other' },
          { eventTime: '2024-01-02T00:00:00.000000Z' },
          { series: { count: 2, lastObservedTime: '2024-01-01T00:00:02.000000Z' } },
          { metadata: { labels: { a: 'b' } } },
        ].map((body): DiffStep => ({ method: 'PATCH', path: `${E}/u1`, body, contentType: MERGE })),
      ];
    },
  },
  {
    name: 'PartialObjectMetadata and Table in meta.k8s.io v1 and v1beta1',
    cite: 'apiserver/pkg/endpoints/handlers/response.go, apiextensions serveDefaultColumnsIfEmpty',
    crds: [WIDGETS],
    steps: (ns) => {
      const steps: DiffStep[] = [
        {
          method: 'POST',
          path: cmPath(ns),
          body: { metadata: { name: 'm1', labels: { a: 'b' } }, data: { a: '1' } },
          compare: 'none',
        },
        { method: 'POST', path: widgetPath(ns), body: widget('w1'), compare: 'none' },
      ];
      for (const v of ['v1', 'v1beta1']) {
        for (const [path, one] of [
          [cmPath(ns), 'm1'],
          [widgetPath(ns), 'w1'],
        ] as const) {
          steps.push({ method: 'GET', path: `${path}/${one}`, accept: accept('PartialObjectMetadata', v) });
          steps.push({ method: 'GET', path, accept: accept('PartialObjectMetadataList', v) });
          steps.push({ method: 'GET', path: `${path}/${one}`, accept: accept('Table', v) });
          steps.push({ method: 'GET', path, accept: accept('Table', v) });
        }
      }
      steps.push({
        method: 'GET',
        path: `${cmPath(ns)}/m1`,
        accept: accept('PartialObjectMetadataList', 'v1'),
      });
      steps.push({ method: 'GET', path: cmPath(ns), accept: accept('PartialObjectMetadata', 'v1') });
      steps.push({ method: 'GET', path: widgetPath(ns), accept: accept('PartialObjectMetadata', 'v1') });
      steps.push({ method: 'GET', path: `${cmPath(ns)}/m1`, accept: accept('PartialObjectMetadata', 'v2') });
      steps.push({
        method: 'POST',
        path: `${cmPath(ns)}?dryRun=All`,
        body: { metadata: { name: 'm2' } },
        accept: accept('PartialObjectMetadata', 'v1beta1'),
      });
      return steps;
    },
  },
];
