/**
 * Differential watch cases: the events two watches get for the same writes.
 *
 * @module
 */
import type { WatchDiffCase } from '../harness.js';
import { cmPath, MERGE } from './fixtures.js';

export const watchCases: WatchDiffCase[] = [
  {
    name: 'a label-selector watch: objects entering and leaving the selector',
    cite: 'apiserver/pkg/storage/cacher/cacher.go (cacheWatcher.convertToWatchEvent)',
    watch: (ns) => `${cmPath(ns)}?watch=true&labelSelector=a%3D1`,
    events: 4,
    steps: (ns) => {
      const p = `${cmPath(ns)}/c1`;
      return [
        {
          method: 'POST',
          path: cmPath(ns),
          body: { metadata: { name: 'c1', labels: { a: '1' } }, data: { v: '1' } },
          compare: 'none',
        },
        {
          method: 'PATCH',
          path: p,
          body: { metadata: { labels: { a: '2' } }, data: { v: '2' } },
          contentType: MERGE,
          compare: 'none',
        },
        { method: 'PATCH', path: p, body: { data: { v: '3' } }, contentType: MERGE, compare: 'none' },
        {
          method: 'PATCH',
          path: p,
          body: { metadata: { labels: { a: '1' } }, data: { v: '4' } },
          contentType: MERGE,
          compare: 'none',
        },
        { method: 'DELETE', path: p, compare: 'none' },
      ];
    },
  },
  {
    name: 'a field-selector watch sees every change of its object',
    cite: 'apiserver/pkg/storage/cacher/cacher.go',
    watch: (ns) => `${cmPath(ns)}?watch=true&fieldSelector=metadata.name%3Dc1`,
    events: 4,
    steps: (ns) => {
      const p = `${cmPath(ns)}/c1`;
      return [
        { method: 'POST', path: cmPath(ns), body: { metadata: { name: 'c0' } }, compare: 'none' },
        {
          method: 'POST',
          path: cmPath(ns),
          body: { metadata: { name: 'c1', labels: { a: '1' } }, data: { v: '1' } },
          compare: 'none',
        },
        {
          method: 'PATCH',
          path: p,
          body: { metadata: { labels: { a: '2' } } },
          contentType: MERGE,
          compare: 'none',
        },
        { method: 'PATCH', path: p, body: { data: { v: '3' } }, contentType: MERGE, compare: 'none' },
        { method: 'DELETE', path: p, compare: 'none' },
      ];
    },
  },
];
