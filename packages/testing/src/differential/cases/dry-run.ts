/**
 * Differential cases: dry-run answers of every verb, deletecollection answers.
 *
 * @module
 */
import type { DiffCase } from '../harness.js';
import { APPLY, cmPath, MERGE, widget, widgetPath, WIDGETS } from './fixtures.js';

export const dryRunCases: DiffCase[] = [
  {
    name: 'dry run of create, update, patch, apply and delete',
    cite: 'apiserver/pkg/registry/generic/registry/store.go (dryrun)',
    crds: [WIDGETS],
    steps: (ns) => {
      const p = cmPath(ns);
      const w = widgetPath(ns);
      return [
        { method: 'POST', path: p, body: { metadata: { name: 'd0' }, data: { a: '1' } }, compare: 'none' },
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 'd1', finalizers: ['example.com/f'] } },
          compare: 'none',
        },
        { method: 'POST', path: w, body: widget('w0'), compare: 'none' },
        { method: 'POST', path: `${p}?dryRun=All`, body: { metadata: { name: 'n1' } } },
        { method: 'POST', path: `${p}?dryRun=All`, body: { metadata: { generateName: 'g-' } } },
        { method: 'POST', path: `${w}?dryRun=All`, body: widget('w1') },
        { method: 'POST', path: `/api/v1/namespaces?dryRun=All`, body: { metadata: { name: `${ns}-dry` } } },
        { method: 'PUT', path: `${p}/d0?dryRun=All`, body: { metadata: { name: 'd0' }, data: { a: '2' } } },
        { method: 'PATCH', path: `${p}/d0?dryRun=All`, body: { data: { a: '3' } }, contentType: MERGE },
        { method: 'PATCH', path: `${w}/w0?dryRun=All`, body: { spec: { a: 2 } }, contentType: MERGE },
        {
          method: 'PATCH',
          path: `${p}/n2?dryRun=All&fieldManager=m`,
          body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n2\n',
          contentType: APPLY,
        },
        { method: 'DELETE', path: `${p}/d0?dryRun=All` },
        { method: 'DELETE', path: `${p}/d1?dryRun=All` },
        {
          method: 'DELETE',
          path: `${p}/d0?dryRun=All&propagationPolicy=Foreground`,
          compare: 'status',
          why: 'gc: false (matching a control plane without kube-controller-manager) deletes at once, nothing would remove foregroundDeletion',
        },
        { method: 'DELETE', path: `${w}/w0?dryRun=All` },
        { method: 'DELETE', path: `${p}?dryRun=All` },
        { method: 'GET', path: p },
        {
          method: 'DELETE',
          path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.diff.example.com?dryRun=All`,
          pick: (b: { metadata?: unknown }) => b.metadata,
        },
      ];
    },
  },
  {
    name: 'deletecollection answers the list it listed',
    cite: 'apiserver/pkg/registry/generic/registry/store.go (DeleteCollection)',
    steps: (ns) => {
      const p = cmPath(ns);
      return [
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 'k1', labels: { dc: 'x' }, finalizers: ['example.com/f'] } },
          compare: 'none',
        },
        { method: 'POST', path: p, body: { metadata: { name: 'k2', labels: { dc: 'x' } } }, compare: 'none' },
        { method: 'DELETE', path: `${p}?labelSelector=dc%3Dx` },
        { method: 'GET', path: p },
        { method: 'PATCH', path: `${p}/k1`, body: { metadata: { finalizers: null } }, contentType: MERGE },
      ];
    },
  },
];
