/**
 * Differential cases: request options (Create/Update/Patch/Delete/List), body media types and
 * decoder errors.
 *
 * @module
 */
import type { DiffCase, DiffStep } from '../harness.js';
import { cmPath, MERGE, widget, widgetPath, WIDGETS } from './fixtures.js';

const cm = (name: string): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

export const optionCases: DiffCase[] = [
  {
    name: 'CreateOptions, UpdateOptions, PatchOptions',
    cite: 'apimachinery/pkg/apis/meta/v1/validation/validation.go',
    steps: (ns) => {
      const p = cmPath(ns);
      return [
        { method: 'POST', path: p, body: cm('o1'), compare: 'none' },
        { method: 'POST', path: `${p}?dryRun=bogus`, body: cm('x') },
        { method: 'POST', path: `${p}?dryRun=All&dryRun=`, body: cm('x') },
        { method: 'POST', path: `${p}?fieldManager=${'m'.repeat(129)}&dryRun=bogus`, body: cm('x') },
        { method: 'POST', path: `${p}?fieldManager=a%01b%7Fc`, body: cm('x') },
        { method: 'POST', path: `${p}?fieldValidation=Bogus`, body: cm('x') },
        { method: 'PUT', path: `${p}/o1?dryRun=bogus`, body: cm('o1') },
        { method: 'PUT', path: `${p}/o1?fieldManager=${'m'.repeat(129)}`, body: cm('o1') },
        ...['true', 'false', 'bogus'].map((v): DiffStep => ({
          method: 'PATCH',
          path: `${p}/o1?force=${v}`,
          body: { data: { a: 'b' } },
          contentType: MERGE,
        })),
        { method: 'PATCH', path: `${p}/o1?dryRun=bogus`, body: { data: { a: 'b' } }, contentType: MERGE },
        {
          method: 'PATCH',
          path: `${p}/o1?dryRun=bogus`,
          body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o1\n',
          contentType: 'application/apply-patch+yaml',
        },
      ];
    },
  },
  {
    name: 'DeleteOptions from the query or the body',
    cite: 'apiserver/pkg/endpoints/handlers/delete.go, meta/v1/validation ValidateDeleteOptions',
    steps: (ns) => {
      const p = cmPath(ns);
      return [
        { method: 'POST', path: p, body: cm('o1'), compare: 'none' },
        { method: 'DELETE', path: `${p}/o1?dryRun=bogus` },
        { method: 'DELETE', path: `${p}/o1?propagationPolicy=Bogus` },
        {
          method: 'DELETE',
          path: `${p}/o1`,
          body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Bogus' },
        },
        { method: 'DELETE', path: `${p}/o1?orphanDependents=true&propagationPolicy=Background` },
        { method: 'DELETE', path: `${p}/o1`, body: { orphanDependents: false, propagationPolicy: 'Orphan' } },
        { method: 'DELETE', path: `${p}/o1?gracePeriodSeconds=abc` },
        { method: 'DELETE', path: `${p}/o1`, body: '{bad' },
        { method: 'DELETE', path: `${p}/o1`, body: { kind: 'ConfigMap', apiVersion: 'v1' } },
        { method: 'DELETE', path: `${p}/o1`, body: { dryRun: ['bogus'] } },
        { method: 'DELETE', path: `${p}?propagationPolicy=Bogus` },
        { method: 'DELETE', path: `${p}?resourceVersionMatch=Exact` },
        {
          method: 'POST',
          path: p,
          body: { metadata: { name: 'o2', finalizers: ['example.com/keep'] } },
          compare: 'none',
        },
        { method: 'DELETE', path: `${p}/o2?orphanDependents=false` },
        { method: 'GET', path: `${p}/o1` },
        // with a body, the query's dryRun does not apply
        {
          method: 'DELETE',
          path: `${p}/o1?dryRun=All`,
          body: 'kind: DeleteOptions\napiVersion: v1\n',
          contentType: 'application/yaml',
        },
        { method: 'GET', path: `${p}/o1` },
      ];
    },
  },
  {
    name: 'ListOptions',
    cite: 'apimachinery/pkg/apis/meta/internalversion/validation/validation.go, runtime/conversion.go',
    steps: (ns) => {
      const p = cmPath(ns);
      return [
        { method: 'POST', path: p, body: cm('o1'), compare: 'none' },
        { method: 'GET', path: `${p}?resourceVersionMatch=Exact` },
        { method: 'GET', path: `${p}?resourceVersionMatch=Bogus&resourceVersion=1` },
        { method: 'GET', path: `${p}?resourceVersionMatch=Exact&resourceVersion=0` },
        { method: 'GET', path: `${p}?resourceVersionMatch=NotOlderThan&resourceVersion=1&continue=abc` },
        { method: 'GET', path: `${p}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1` },
        // a streaming list (WatchList), which 1.24 refuses (fixtures/watch-list/README.md)
        {
          method: 'GET',
          path: `${p}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
        },
        {
          method: 'GET',
          path: `${p}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=1`,
        },
        { method: 'GET', path: `${p}?sendInitialEvents=true`, pick: (b: { kind?: string }) => b.kind },
        { method: 'GET', path: `${p}?resourceVersion=1&continue=abc` },
        { method: 'GET', path: `${p}?continue=abc` },
        { method: 'GET', path: `${p}?limit=abc` },
        { method: 'GET', path: `${p}?limit=99999999999999999999` },
        { method: 'GET', path: `${p}?limit=-1` },
        { method: 'GET', path: `${p}?timeoutSeconds=abc` },
        { method: 'GET', path: `${p}?allowWatchBookmarks=bogus` },
        { method: 'GET', path: `${p}/o1?resourceVersion=abc` },
        { method: 'GET', path: `${p}/o1?resourceVersion=0` },
        {
          method: 'GET',
          path: `${p}/o1?resourceVersion=99999999`,
          pick: (b: { reason?: string }) => b.reason,
        },
        {
          method: 'GET',
          path: `${p}?includeObject=Bogus`,
          accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
        },
      ];
    },
  },
  {
    name: 'body media types: 415 for anything but JSON, YAML and protobuf',
    cite: 'apiserver/pkg/endpoints/handlers/negotiation NegotiateInputSerializer, handlers/patch.go',
    crds: [WIDGETS],
    steps: (ns) => {
      const p = cmPath(ns);
      const w = widgetPath(ns);
      const steps: DiffStep[] = [
        { method: 'POST', path: p, body: cm('m0'), compare: 'none' },
        { method: 'POST', path: w, body: widget('w0'), compare: 'none' },
      ];
      for (const contentType of [
        'text/plain',
        'application/xml',
        'application/merge-patch+json',
        'bogus',
        '*/*',
        'application/json;charset=utf-8',
        'application/json;stream=watch',
        'application/vnd.kubernetes.protobuf',
      ]) {
        steps.push({ method: 'POST', path: `${p}?dryRun=All`, body: cm('m1'), contentType });
        steps.push({ method: 'PUT', path: `${p}/m0?dryRun=All`, body: cm('m0'), contentType });
        steps.push({ method: 'POST', path: `${w}?dryRun=All`, body: widget('w1'), contentType });
      }
      for (const contentType of [
        'text/plain',
        'application/json',
        'application/yaml',
        'bogus',
        'application/merge-patch+json; charset=utf-8',
        'application/strategic-merge-patch+json',
      ]) {
        steps.push({ method: 'PATCH', path: `${p}/m0?dryRun=All`, body: {}, contentType });
        steps.push({ method: 'PATCH', path: `${w}/w0?dryRun=All`, body: {}, contentType });
      }
      steps.push({
        method: 'POST',
        path: `${p}?dryRun=All`,
        body: 'metadata:\n  name: y1\n',
        contentType: 'application/yaml',
      });
      steps.push({ method: 'DELETE', path: `${p}/m0?dryRun=All`, body: '{}', contentType: 'text/plain' });
      return steps;
    },
  },
  {
    name: 'malformed JSON bodies: Go decoder messages',
    cite: 'Go encoding/json scanner.go; apiserver/pkg/endpoints/handlers/rest.go summarizeData',
    steps: (ns) =>
      [
        '{bad',
        '{"a":1,}',
        '[1,2',
        '{"a" 1}',
        '[1 2]',
        'tru',
        '{"a":1}x',
        '{"a":1.}',
        '{"a":"\\q"}',
        '',
        ' ',
        '"str"',
        '{"a":[1,]}',
      ].map((body): DiffStep => ({ method: 'POST', path: `${cmPath(ns)}?dryRun=All`, body })),
  },
];
