/**
 * Differential cases: patch bodies, patched objects, apply configurations.
 *
 * @module
 */
import type { DiffCase } from '../harness.js';
import { APPLY, cmPath, JSON_PATCH, MERGE, STRATEGIC, widget, widgetPath, WIDGETS } from './fixtures.js';

export const patchCases: DiffCase[] = [
  {
    name: 'patch bodies and what the patched object may change',
    cite: 'apiserver/pkg/endpoints/handlers/patch.go, rest.go checkName, customresource validator',
    crds: [WIDGETS],
    steps: (ns) => {
      const p = `${cmPath(ns)}/p1`;
      const w = `${widgetPath(ns)}/w1`;
      return [
        {
          method: 'POST',
          path: cmPath(ns),
          body: { metadata: { name: 'p1' }, data: { a: '1' } },
          compare: 'none',
        },
        { method: 'POST', path: widgetPath(ns), body: widget('w1'), compare: 'none' },
        { method: 'PATCH', path: p, body: '{bad', contentType: MERGE },
        { method: 'PATCH', path: p, body: '{bad', contentType: JSON_PATCH },
        { method: 'PATCH', path: p, body: '{bad', contentType: STRATEGIC },
        { method: 'PATCH', path: p, body: '{}', contentType: JSON_PATCH },
        { method: 'PATCH', path: p, body: '[]', contentType: MERGE },
        {
          method: 'PATCH',
          path: p,
          body: { kind: 'Foo' },
          contentType: MERGE,
          pick: (b: { details?: { causes?: { field?: string }[] } }) => b.details?.causes?.[0]?.field,
        },
        { method: 'PATCH', path: p, body: { kind: null }, contentType: MERGE },
        { method: 'PATCH', path: p, body: { data: { a: 1 } }, contentType: MERGE },
        {
          method: 'PATCH',
          path: p,
          body: { kind: 'Foo', apiVersion: 'v2', data: { b: '2' } },
          contentType: STRATEGIC,
        },
        {
          method: 'PATCH',
          path: p,
          body: [{ op: 'remove', path: '/metadata/name' }],
          contentType: JSON_PATCH,
        },
        { method: 'PATCH', path: p, body: { metadata: { name: null } }, contentType: MERGE },
        { method: 'PATCH', path: w, body: { kind: 'Foo' }, contentType: MERGE },
        { method: 'PATCH', path: w, body: { apiVersion: 'diff.example.com/v9' }, contentType: MERGE },
        {
          method: 'PATCH',
          path: w,
          body: { kind: null },
          contentType: MERGE,
          pick: (b: { details?: { causes?: { field?: string }[] } }) => b.details?.causes?.[0]?.field,
        },
      ];
    },
  },
  {
    name: 'apply configurations: version, kind, shape',
    cite: 'apiserver/pkg/endpoints/handlers/patch.go (applyPatcher), fieldmanager',
    crds: [WIDGETS],
    steps: (ns) => {
      const p = `${cmPath(ns)}/p1?fieldManager=m`;
      return [
        {
          method: 'POST',
          path: cmPath(ns),
          body: { metadata: { name: 'p1' }, data: { a: '1' } },
          compare: 'none',
        },
        { method: 'POST', path: widgetPath(ns), body: widget('w1'), compare: 'none' },
        { method: 'PATCH', path: p, body: 'metadata:\n  name: p1\n', contentType: APPLY },
        {
          method: 'PATCH',
          path: p,
          body: 'apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: p1\n',
          contentType: APPLY,
        },
        { method: 'PATCH', path: p, body: 'apiVersion: v1\nmetadata:\n  name: p1\n', contentType: APPLY },
        {
          method: 'PATCH',
          path: p,
          body: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: p1\n',
          contentType: APPLY,
        },
        {
          method: 'PATCH',
          path: p,
          body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n',
          contentType: APPLY,
        },
        { method: 'PATCH', path: p, body: '- a\n', contentType: APPLY },
        {
          method: 'PATCH',
          path: `${widgetPath(ns)}/w1?fieldManager=m`,
          body: 'apiVersion: diff.example.com/v1\nkind: Foo\nmetadata:\n  name: w1\n',
          contentType: APPLY,
        },
      ];
    },
  },
];
