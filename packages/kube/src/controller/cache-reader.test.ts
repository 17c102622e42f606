/**
 * Issue 14: the cached reader over a controller's Stores (controller-runtime's cache-backed client),
 * `watches[].map`'s context answering the same across every watched namespace, per-watch predicates
 * on `owns` and `watches`, and `owns` caching full objects unless asked for metadata only.
 */
import { Action, labelsChanged } from '@rxkube/core';
import type { Observable } from 'rxjs';
import { map, NEVER } from 'rxjs';
import { testScheduler } from '@rxkube/testing/vitest';
import { watchEvent } from '@rxkube/testing/controller';
import { describe, expect, expectTypeOf, it } from 'vitest';

import type { StoreReader } from '../reflector/store-reader.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
import type { KubeObject, ResourceType, WatchEvent } from '../types.js';
import type { ControllerOptions, ControllerResult } from './controller.js';
import { controller } from './controller.js';

type Pod = KubeObject<{ nodeName?: string }>;
const POD: ResourceType<Pod> = { apiVersion: 'v1', kind: 'Pod' };
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const I: WatchEvent = watchEvent.init();
const D: WatchEvent = watchEvent.initDone();

const object = (ns: string, name: string, rv: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  metadata: { namespace: ns, name, uid: `uid-${ns}-${name}`, resourceVersion: rv },
  ...extra,
});
const short = (r: ControllerResult): string => `${r.key}:${r.outcome}`;

/** Streams by `Kind@namespace` (namespace empty: all). */
function registry(
  streams: Record<string, Observable<WatchEvent>>,
  targets: WatchTarget[] = [],
): WatchRegistry {
  return new WatchRegistry((t) => {
    targets.push(t);
    return streams[`${t.resource.kind}@${t.namespace ?? ''}`] ?? NEVER;
  });
}
const base = (
  r: WatchRegistry,
  extra: Partial<ControllerOptions<KubeObject>> = {},
): ControllerOptions<KubeObject> => ({
  for: CM,
  registry: r,
  rateLimit: false,
  random: () => 0,
  log: {},
  ...extra,
});

describe('CacheReader and the map context (issue 14)', () => {
  it('lists by namespace, label selector and declared field index, gets by name, and refuses an undeclared index', () => {
    const ts = testScheduler();
    const reads: unknown[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const cms = hot<WatchEvent>('(IaD)', {
        I,
        D,
        a: { type: 'InitApply', object: object('ns', 'a', '1') },
      });
      const pods = hot<WatchEvent>('(IpqrD)', {
        I,
        D,
        p: {
          type: 'InitApply',
          object: object('ns', 'p', '1', {
            metadata: { namespace: 'ns', name: 'p', labels: { app: 'web' } },
            spec: { nodeName: 'n1' },
          }),
        },
        q: {
          type: 'InitApply',
          object: object('ns', 'q', '1', {
            metadata: { namespace: 'ns', name: 'q', labels: { app: 'db' } },
            spec: { nodeName: 'n1' },
          }),
        },
        r: {
          type: 'InitApply',
          object: object('other', 'r', '1', {
            metadata: { namespace: 'other', name: 'r', labels: { app: 'web' } },
            spec: { nodeName: 'n2' },
          }),
        },
      });
      const results$ = controller(
        base(registry({ 'ConfigMap@': cms, 'Pod@': pods }), {
          watches: [
            {
              resource: POD,
              map: () => [],
              indexes: { 'spec.nodeName': (p: Pod) => [p.spec?.nodeName ?? ''] },
            },
          ],
        }),
        ts,
      ).run((_r, ctx) => {
        const names = (list: Pod[]) => list.map((p) => p.metadata.name);
        reads.push(
          names(ctx.cache.list(POD, { namespace: 'ns' })),
          names(ctx.cache.list(POD, { labelSelector: 'app=web' })),
          names(ctx.cache.list(POD, { labelSelector: { app: 'web' }, namespace: 'other' })),
          names(ctx.cache.list(POD, { matchingFields: { 'spec.nodeName': 'n1' } })),
          names(
            ctx.cache.list(POD, { matchingFields: { 'spec.nodeName': 'n1' }, labelSelector: 'app in (db)' }),
          ),
          ctx.cache.get(POD, 'ns/q')?.spec?.nodeName,
          ctx.cache.get(POD, { namespace: 'ns', name: 'nope' }),
          ctx.storeOf(POD).hasIndex('spec.nodeName'),
        );
        expect(() => ctx.cache.list(POD, { matchingFields: { 'spec.ip': 'x' } })).toThrow(
          /matchingFields\.spec\.ip must name an index of Pod: declare it with the registration/,
        );
        expect(() => ctx.cache.get({ apiVersion: 'v1', kind: 'Service' }, 'ns/x')).toThrow(
          /must be one of the kinds/,
        );
        // typed by the resource given
        expectTypeOf(ctx.cache.list(POD)).toEqualTypeOf<Pod[]>();
        expectTypeOf(ctx.storeOf(POD)).toEqualTypeOf<StoreReader<Pod>>();
        return cold('(d|)', { d: Action.awaitChange() });
      });
      expectObservable(results$.pipe(map(short)), '^ 3ms !').toBe('a', { a: 'ns/a:success' });
    });
    expect(reads).toEqual([['p', 'q'], ['p', 'r'], ['r'], ['p', 'q'], ['q'], 'n1', undefined, true]);
  });

  it('watches each of several namespaces and answers the map context across all of them, the primary kind included', () => {
    const ts = testScheduler();
    const targets: WatchTarget[] = [];
    const seen: string[][] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const streams = {
        'ConfigMap@a': hot<WatchEvent>('(IxD)', {
          I,
          D,
          x: {
            type: 'InitApply',
            object: object('a', 'x', '1', {
              metadata: { namespace: 'a', name: 'x', labels: { uses: 'shared' } },
            }),
          },
        }),
        'ConfigMap@b': hot<WatchEvent>('(IyD)', {
          I,
          D,
          y: {
            type: 'InitApply',
            object: object('b', 'y', '1', {
              metadata: { namespace: 'b', name: 'y', labels: { uses: 'shared' } },
            }),
          },
        }),
        'Secret@a': hot<WatchEvent>('(ID)----s', {
          I,
          D,
          s: { type: 'Apply', object: object('a', 'shared', '2') },
        }),
        'Secret@b': hot<WatchEvent>('(ID)', { I, D }),
      };
      const results$ = controller(
        base(registry(streams, targets), {
          namespaces: ['a', 'b'],
          watches: [
            {
              resource: SECRET,
              // every ConfigMap that uses this Secret, whichever watched namespace it is in
              map: (secret, { cache }) => {
                const users = cache.list(CM, { labelSelector: { uses: secret.metadata.name ?? '' } });
                seen.push(users.map((u) => `${u.metadata.namespace ?? ''}/${u.metadata.name ?? ''}`));
                return users.map((u) => ({
                  namespace: u.metadata.namespace ?? '',
                  name: u.metadata.name ?? '',
                }));
              },
            },
          ],
        }),
        ts,
      ).run(() => cold('(d|)', { d: Action.awaitChange() }));
      expectObservable(results$.pipe(map(short)), '^ 10ms !').toBe('(xy)----(xy)', {
        x: 'a/x:success',
        y: 'b/y:success',
      });
    });
    expect(seen).toEqual([['a/x', 'b/y']]);
    expect(targets.map((t) => `${t.resource.kind}@${t.namespace ?? ''}`).sort()).toEqual([
      'ConfigMap@a',
      'ConfigMap@b',
      'Secret@a',
      'Secret@b',
    ]);
  });

  it('applies per-watch predicates to owned and mapped objects (deletes pass), and caches owned kinds in full unless asked', () => {
    const ts = testScheduler();
    const targets: WatchTarget[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      const owned = {
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid: 'uid-ns-p', controller: true },
        ],
      };
      const cms = hot<WatchEvent>('(IpD)', {
        I,
        D,
        p: { type: 'InitApply', object: object('ns', 'p', '1') },
      });
      const secrets = hot<WatchEvent>('(ID)-u--l--x', {
        I,
        D,
        u: {
          type: 'Apply',
          object: { metadata: { namespace: 'ns', name: 's', resourceVersion: '2', ...owned } },
        }, // first sight
        l: {
          type: 'Apply',
          object: { metadata: { namespace: 'ns', name: 's', resourceVersion: '3', ...owned } },
        }, // no label change
        x: {
          type: 'Delete',
          object: { metadata: { namespace: 'ns', name: 's', resourceVersion: '4', ...owned } },
        },
      });
      const results$ = controller(
        base(
          registry(
            { 'ConfigMap@': cms, 'Secret@': secrets, 'Pod@': hot<WatchEvent>('(ID)', { I, D }) },
            targets,
          ),
          {
            owns: [
              { resource: SECRET, predicates: [labelsChanged(undefined, ts)] },
              { resource: POD, metadataOnly: true },
            ],
          },
        ),
        ts,
      ).run(() => cold('(d|)', { d: Action.awaitChange() }));
      // p at 0; the Secret at 5 (labelsChanged passes a first sight), not at 8 (same labels), at 11 (Delete)
      expectObservable(results$.pipe(map(short)), '^ 15ms !').toBe('p----p-----p', { p: 'ns/p:success' });
    });
    expect(targets).toContainEqual({ resource: SECRET });
    expect(targets).toContainEqual({ resource: { apiVersion: 'v1', kind: 'Pod' }, metadataOnly: true });
  });
});
