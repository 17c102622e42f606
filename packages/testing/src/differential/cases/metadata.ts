/**
 * Differential cases: object metadata validation, immutable fields and status writes.
 *
 * @module
 */
import type { DiffCase, DiffStep } from '../harness.js';
import {
  APPLY,
  cmPath,
  deployment,
  deploymentPath,
  GADGETS,
  JSON_PATCH,
  MERGE,
  POD_ADMISSION,
  STRATEGIC,
  widget,
  widgetPath,
  WIDGETS,
} from './fixtures.js';

const OTHER_UID = '00000000-0000-0000-0000-000000000000';
const cm = (meta: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: meta,
  ...extra,
});

export const metadataCases: DiffCase[] = [
  {
    name: 'create: names, labels, annotations, finalizers, ownerReferences',
    cite: 'apimachinery/pkg/api/validation/objectmeta.go, pkg/apis/core/validation (ValidateObjectMeta)',
    steps: (ns) => [
      { method: 'POST', path: cmPath(ns), body: cm({ name: 'Bad_Name' }) },
      { method: 'POST', path: cmPath(ns), body: cm({ generateName: 'Bad_' }) },
      { method: 'POST', path: cmPath(ns), body: cm({ name: 'ok', generateName: 'BAD' }) },
      { method: 'POST', path: cmPath(ns), body: cm({ name: 'a'.repeat(254) }) },
      // one bad label per object: Go's map order makes the order of several causes random
      { method: 'POST', path: cmPath(ns), body: cm({ name: 'l1', labels: { 'bad key': 'x' } }) },
      { method: 'POST', path: cmPath(ns), body: cm({ name: 'l1', labels: { 'a/b/c': 'y' } }) },
      { method: 'POST', path: cmPath(ns), body: cm({ name: 'l1', labels: { ok: 'bad value!' } }) },
      { method: 'POST', path: cmPath(ns), body: cm({ name: 'l2', labels: { ok: 'a'.repeat(64) } }) },
      {
        method: 'POST',
        path: cmPath(ns),
        body: cm({ name: 'a1', annotations: { 'bad key': 'x', 'Example.com/Upper': 'y' } }),
      },
      {
        method: 'POST',
        path: cmPath(ns),
        body: cm({ name: 'a2', annotations: { big: 'x'.repeat(256 * 1024 + 1) } }),
      },
      {
        method: 'POST',
        path: cmPath(ns),
        body: cm({
          name: 'f1',
          finalizers: [
            'bad finalizer',
            'nodomain',
            'kubernetes',
            'example.com/ok',
            'orphan',
            'foregroundDeletion',
            'x/y/z',
          ],
        }),
      },
      { method: 'POST', path: cmPath(ns), body: cm({ name: 'o1', ownerReferences: [{}] }) },
      {
        method: 'POST',
        path: cmPath(ns),
        body: cm({
          name: 'o2',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' },
            { apiVersion: 'v1', kind: 'X', name: 'x', uid: '2', controller: true },
            {
              apiVersion: 'a/b/c',
              kind: 'Y',
              name: 'y',
              uid: '3',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        }),
      },
      {
        method: 'POST',
        path: cmPath(ns),
        body: cm(
          { name: 'Bad', labels: { 'x y': 'z' }, annotations: { 'p q': 'r' } },
          { data: { 'bad key': 'x' } },
        ),
      },
      { method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: 'a.b' } } },
    ],
  },
  {
    name: 'custom resources: apimachinery checks only',
    cite: 'apiextensions-apiserver/pkg/registry/customresource/validator.go',
    crds: [WIDGETS],
    steps: (ns) => [
      {
        method: 'POST',
        path: widgetPath(ns),
        body: widget('w0', {
          metadata: { name: 'w0', labels: { 'bad key': 'x' }, finalizers: ['bad finalizer', 'nodomain'] },
        }),
      },
      { method: 'POST', path: widgetPath(ns), body: widget('w1'), compare: 'none' },
      {
        method: 'PATCH',
        path: `${widgetPath(ns)}/w1`,
        body: { metadata: { labels: { 'bad key': 'x' }, finalizers: ['nodomain', 'bad finalizer'] } },
        contentType: MERGE,
      },
      {
        method: 'PATCH',
        path: `${widgetPath(ns)}/w1/status`,
        body: { metadata: { labels: { st: 'x' } }, status: { a: 1 } },
        contentType: MERGE,
        compare: 'status',
        why: 'v1.24 records the dropped label in the status manager entry of managedFields',
      },
      {
        method: 'PATCH',
        path: `${widgetPath(ns)}/w1/status`,
        body: { metadata: { labels: { st: 'x' } }, status: { a: 2 } },
        contentType: MERGE,
        pick: (b: { metadata?: { labels?: unknown } }) => b.metadata?.labels,
      },
    ],
  },
  {
    name: 'update: each validation pass lists its causes (ConfigMap)',
    cite: 'apiserver/pkg/registry/rest/update.go (validateCommonFields), pkg/apis/core/validation (ValidateConfigMapUpdate)',
    steps: (ns) => {
      const p = `${cmPath(ns)}/u1`;
      const put = (meta: Record<string, unknown>, data: Record<string, string> = { a: '1' }): DiffStep => ({
        method: 'PUT',
        path: p,
        body: cm({ name: 'u1', ...meta }, { data }),
      });
      return [
        { method: 'POST', path: cmPath(ns), body: cm({ name: 'u1' }, { data: { a: '1' } }), compare: 'none' },
        put({ labels: { 'bad key': 'x' } }),
        put({ annotations: { 'bad key': 'x' } }),
        put({ finalizers: ['bad finalizer', 'nodomain'] }),
        put({ ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: '', uid: 'u' }] }),
        put({ uid: OTHER_UID }),
        put({ uid: '' }, { a: '2' }),
        put({ creationTimestamp: '2000-01-01T00:00:00Z', generation: 5, selfLink: '/x' }, { a: '3' }),
        put({ deletionTimestamp: '2000-01-01T00:00:00Z' }, { a: '4' }),
        put({ deletionGracePeriodSeconds: 30 }, { a: '5' }),
        put({ generateName: 'Bad_' }, { a: '6' }),
        { method: 'PUT', path: p, body: cm({ name: 'other' }) },
        { method: 'PUT', path: p, body: cm({ name: 'u1', namespace: 'default' }) },
        { method: 'PUT', path: p, body: { data: { a: '7' } } },
      ];
    },
  },
  {
    name: 'immutable uid, deletionTimestamp and grace period on every patch type',
    cite: 'apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMetaUpdate), apiserver/pkg/endpoints/handlers/patch.go',
    steps: (ns) => {
      const p = `${cmPath(ns)}/p1`;
      return [
        { method: 'POST', path: cmPath(ns), body: cm({ name: 'p1' }, { data: { a: '1' } }), compare: 'none' },
        ...[MERGE, STRATEGIC].flatMap((contentType): DiffStep[] => [
          { method: 'PATCH', path: p, body: { metadata: { uid: OTHER_UID } }, contentType },
          { method: 'PATCH', path: p, body: { metadata: { name: 'other' } }, contentType },
          { method: 'PATCH', path: p, body: { metadata: { namespace: 'default' } }, contentType },
          {
            method: 'PATCH',
            path: p,
            body: { metadata: { deletionTimestamp: '2000-01-01T00:00:00Z' } },
            contentType,
          },
          {
            method: 'PATCH',
            path: p,
            body: { metadata: { creationTimestamp: '2000-01-01T00:00:00Z', generation: 7 } },
            contentType,
          },
          { method: 'PATCH', path: p, body: { metadata: { labels: { 'bad key': 'x' } } }, contentType },
          { method: 'PATCH', path: p, body: { metadata: { resourceVersion: '1' } }, contentType },
        ]),
        {
          method: 'PATCH',
          path: p,
          body: [{ op: 'replace', path: '/metadata/uid', value: OTHER_UID }],
          contentType: JSON_PATCH,
        },
        {
          method: 'PATCH',
          path: p,
          body: [{ op: 'remove', path: '/metadata/uid' }],
          contentType: JSON_PATCH,
        },
        {
          method: 'PATCH',
          path: p,
          body: [{ op: 'add', path: '/metadata/deletionGracePeriodSeconds', value: 3 }],
          contentType: JSON_PATCH,
        },
        {
          method: 'PATCH',
          path: `${p}?fieldManager=m`,
          body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p1\n  uid: ${OTHER_UID}\n`,
          contentType: APPLY,
        },
        {
          method: 'PATCH',
          path: `${cmPath(ns)}/p9?fieldManager=m`,
          body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p9\n  uid: ${OTHER_UID}\n`,
          contentType: APPLY,
        },
        {
          method: 'PUT',
          path: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l1`,
          body: { metadata: { name: 'l1', uid: OTHER_UID }, spec: {} },
        },
      ];
    },
  },
  {
    name: 'validation passes per built-in kind (labels, finalizer names, uid)',
    cite: 'the registry strategies of each kind (pkg/registry/*/strategy.go) and apiserver/pkg/registry/rest/update.go',
    crds: [GADGETS],
    steps: (ns) => {
      const objects: [string, string, unknown][] = [
        ['/api/v1/namespaces', `${ns}-x`, { metadata: { name: `${ns}-x` } }],
        [`/api/v1/namespaces/${ns}/secrets`, 's', { metadata: { name: 's' } }],
        [
          `/api/v1/namespaces/${ns}/services`,
          'svc',
          { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } },
        ],
        [`/api/v1/namespaces/${ns}/serviceaccounts`, 'sa', { metadata: { name: 'sa' } }],
        [
          `/api/v1/namespaces/${ns}/pods`,
          'pod',
          { metadata: { name: 'pod' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        ],
        [
          `/api/v1/namespaces/${ns}/events`,
          'ev',
          {
            metadata: { name: 'ev' },
            involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
            reason: 'R',
          },
        ],
        [deploymentPath(ns), 'd', deployment('d')],
        [`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, 'l', { metadata: { name: 'l' }, spec: {} }],
        [
          `/apis/diff.example.com/v1/namespaces/${ns}/gadgets`,
          'g',
          { apiVersion: 'diff.example.com/v1', kind: 'Gadget', metadata: { name: 'g' } },
        ],
      ];
      return objects.flatMap(([path, name, body]): DiffStep[] => [
        { method: 'POST', path, body, compare: 'none' },
        ...[{ labels: { 'bad key': 'x' } }, { finalizers: ['nodomain'] }, { uid: OTHER_UID }].map(
          (metadata): DiffStep => ({
            method: 'PATCH',
            path: `${path}/${name}`,
            body: { metadata },
            contentType: MERGE,
            pick: (b: { details?: { causes?: unknown } }) => b.details?.causes,
          }),
        ),
      ]);
    },
  },
  {
    name: 'what a status write may change in metadata',
    cite: 'the status strategies: pkg/registry/apps/deployment/strategy.go, core/pod, core/namespace, core/service',
    steps: (ns) => {
      const statusPatch = {
        metadata: { labels: { st: 'x' }, annotations: { st: 'y' }, finalizers: ['example.com/st'] },
      };
      const meta = (b: {
        metadata?: {
          labels?: unknown;
          annotations?: unknown;
          finalizers?: unknown;
          ownerReferences?: unknown;
        };
      }): unknown => ({
        labels: b.metadata?.labels,
        annotations: b.metadata?.annotations,
        finalizers: b.metadata?.finalizers,
        ownerReferences: b.metadata?.ownerReferences,
      });
      const pod = {
        metadata: {
          name: 'pod',
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u1' }],
        },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      };
      return [
        {
          method: 'POST',
          path: deploymentPath(ns),
          body: deployment('d', { labels: { app: 'd' } }),
        },
        {
          method: 'PATCH',
          path: `${deploymentPath(ns)}/d/status`,
          body: statusPatch,
          contentType: MERGE,
          pick: meta,
        },
        {
          method: 'POST',
          path: `/api/v1/namespaces/${ns}/pods`,
          body: pod,
          compare: 'status',
          why: POD_ADMISSION,
        },
        {
          method: 'PATCH',
          path: `/api/v1/namespaces/${ns}/pods/pod/status`,
          body: {
            metadata: {
              ...statusPatch.metadata,
              ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'y', uid: 'u2' }],
            },
          },
          contentType: MERGE,
          pick: meta,
        },
        {
          method: 'PATCH',
          path: `/api/v1/namespaces/${ns}/status`,
          body: statusPatch,
          contentType: MERGE,
          pick: meta,
        },
      ];
    },
  },
];
