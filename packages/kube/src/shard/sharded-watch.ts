/**
 * `shardedWatch`: the primary watch of a sharded controller, carrying only the objects of the
 * buckets this replica watches (`ShardRing.watched$`), so its Store holds about 1/N of them.
 *
 * - Filtering: where the API server applies KEP-5866's `shardSelector` (checked once per
 *   connection: a list whose `metadata.shardInfo` echoes the selector, `supportsShardSelector`),
 *   each watch asks for its buckets' hash ranges and receives only them. Elsewhere (kube-apiserver
 *   before 1.36, or without the `ShardedListAndWatch` gate) the server sends every object; they
 *   are dropped with the identical hash (`bucketOf`) as each list page or watch line arrives,
 *   before the watcher keeps a reference — the Store and the watcher hold only the watched
 *   buckets' objects, but every object is still parsed. The same check runs behind a server-side
 *   selector too (a bucket that left keeps nothing).
 * - Buckets gained: server-side, one new list+watch of the gained buckets' ranges only (the other
 *   watches go on untouched); its objects reach subscribers as `Apply` (not a relist: the rest of
 *   the Store is whole). Client-side, the server cannot list a range, so the one watch is started
 *   again over every watched bucket: a fresh consistent list, compared with the Store (changed →
 *   `Apply`, vanished → `Delete`).
 * - Buckets lost (released or lost by the ring, and no longer assigned): their objects leave the
 *   Store silently — no `Delete` reaches subscribers, because the objects were not deleted; the
 *   replica stopped being responsible for them (the ring released their fences after draining
 *   their reconciles, which read the Store until then). A watch whose buckets all left is closed.
 * - Until the first list of every watch started at connection ended: `Init`, then the objects as
 *   `InitApply`, then `InitDone` (the Store's `ready`). The first watch's objects go on as they
 *   arrive (the Store transforms them at once: no raw copy of the whole list is held); a watch
 *   opened while it lists holds its own until `InitDone`.
 *
 * - A name deleted and created again usually changes bucket (`key: 'uid'`), and so, server-side,
 *   watch: the two watches' events reach the Store in no common order. Only the newer
 *   incarnation is kept (resourceVersions compared as KEP-5504 orders them); the older one's late
 *   change or deletion leaves it alone.
 *
 * What it does not do: decide which buckets to watch (the ring does), or share one watch between
 * targets (one per target, as `WatchRegistry`).
 *
 * @module
 */
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, filter, map, Observable as Rx, Subscription } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import { compareResourceVersions } from '../internal/resource-version.js';
import type { SharedWatch } from '../reflector/share-watch.js';
import { shareWatch } from '../reflector/share-watch.js';
import type { StoreOptions } from '../reflector/store.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { RawWatchEvent } from '../transport/raw-watch-event.js';
import type { KubeObject, WatchEvent } from '../types.js';
import { objectKey } from '../types.js';
import type { WatcherConfig } from '../watcher/config.js';
import type { WatcherHealth } from '../watcher/health.js';
import { listWatchSource } from '../watcher/list-watch-source.js';
import type { ListWatchSource } from '../watcher/source.js';
import { watcher } from '../watcher/watcher.js';
import { bucketOf } from './assignment.js';
import { shardSelector } from './selector.js';
import { supportsShardSelector } from './server-support.js';

/**
 * Where the objects of other buckets are dropped: by the API server (`shardSelector`) or here.
 *
 * ## Example
 * ```ts
 * const filtering: ShardFiltering = 'client'; // force the fallback, e.g. to measure it
 * ```
 */
export type ShardFiltering = 'server' | 'client';

/**
 * Options of {@link shardedWatch}.
 *
 * ## Example
 * ```ts
 * declare const ring: ShardRing;
 * const options: ShardedWatchOptions = {
 *   client,
 *   target: { resource: { apiVersion: 'example.com/v1', kind: 'Widget' } },
 *   buckets: ring.options.buckets,
 *   key: ring.options.key,
 *   watched$: ring.watched$,
 * };
 * ```
 */
export interface ShardedWatchOptions<T extends KubeObject = KubeObject> {
  readonly client: KubeClient;
  readonly target: WatchTarget;
  /** The ring's bucket count. */
  readonly buckets: number;
  /** What the ring hashes: `metadata.uid` or `metadata.namespace`. */
  readonly key: 'uid' | 'namespace';
  /** The buckets to watch (replays; `ShardRing.watched$`). */
  readonly watched$: Observable<readonly number[]>;
  /** `'server'` or `'client'` forces a filtering; default: asked of the server on each connection. */
  readonly filtering?: ShardFiltering;
  /**
   * The hashed key of an object when it is not the object's own `key` field — an owned child's is
   * its owner's uid; `undefined`: in no bucket (dropped). Filtering is then client-side: the
   * server selects on an object's own fields only.
   */
  readonly keyOf?: (object: KubeObject) => string | undefined;
  /** Watcher config of every watch (backoff, page size, recovery, …). */
  readonly watcher?: Omit<WatcherConfig, 'health'>;
  /** Health of each watch. */
  readonly health?: (health: WatcherHealth) => void;
  /** Options of the Store. */
  readonly store?: StoreOptions<T>;
}

/**
 * A sharded watch: a {@link SharedWatch} whose Store holds the watched buckets' objects.
 *
 * ## Example
 * ```ts
 * declare const widgets: ShardedWatch;
 * console.log(widgets.filtering, widgets.watches, widgets.synced, widgets.store.size);
 * ```
 */
export interface ShardedWatch<T extends KubeObject = KubeObject> extends SharedWatch<T> {
  /** Whether a subscriber holds the watch open (a connection exists). */
  readonly connected: boolean;
  /** Whether the first list of every watch open now has ended (and the filtering is known). */
  readonly synced: boolean;
  /** The filtering of the current connection, once known. */
  readonly filtering: ShardFiltering | undefined;
  /** List+watch requests open now (one per set of buckets gained together, server-side). */
  readonly watches: number;
}

interface Group<T extends KubeObject> {
  /** The buckets it still serves (only shrinks). */
  readonly buckets: Set<number>;
  /** The list in progress. */
  listing: Map<string, T> | undefined;
  /** Its objects while the connection's first `InitDone` waits for other watches. */
  initial: Map<string, T> | undefined;
  /**
   * Opened first, when the connection started (or when no other watch was left): during the
   * connection's first list its objects go straight on as `InitApply` (the Store keeps them
   * transformed), instead of being held raw until every watch has listed.
   */
  readonly streaming: boolean;
  synced: boolean;
  sub: Subscription;
}

/**
 * The watch of `target` restricted to the buckets `watched$` names, as a {@link SharedWatch}.
 *
 * ## Example
 * ```ts
 * declare const ring: ShardRing;
 * const widgets = shardedWatch({
 *   client,
 *   target: { resource: { apiVersion: 'example.com/v1', kind: 'Widget' } },
 *   buckets: ring.options.buckets,
 *   key: ring.options.key,
 *   watched$: ring.watched$,
 * });
 * widgets.events$.subscribe(); // lists and watches the buckets the ring gives this replica
 * ```
 *
 * ## Semantics
 * - Events: the connection's first lists as `Init`, `InitApply`*, `InitDone`; then `Apply` and
 *   `Delete` of the watched buckets' objects — including the objects of a bucket gained later
 *   (`Apply`) and what a relist found changed or gone. Never a `Delete` for a bucket that left.
 * - Subscribers share one connection and one Store (`shareWatch`); the last leaving stops every
 *   watch and clears the Store.
 * - A server that fails the `shardInfo` check (or errors on it) is filtered client-side.
 *
 * ## Memory
 * The Store (the watched buckets' objects); each watcher's reference per object it serves; per
 * watch its bucket set. While the first lists are in progress, the objects of the watches opened
 * after the first (the first's go straight to the Store).
 *
 * @param scheduler time source of the watchers.
 */
export function shardedWatch<T extends KubeObject = KubeObject>(
  options: ShardedWatchOptions<T>,
  scheduler: SchedulerLike = asyncScheduler,
): ShardedWatch<T> {
  const { client, target } = options;
  const { keyOf } = options;
  const hashedKey =
    keyOf ??
    ((o: KubeObject): string =>
      options.key === 'uid' ? (o.metadata.uid ?? '') : (o.metadata.namespace ?? ''));
  // An object's bucket is asked twice in a row: by `keeping` as its line arrives, then by
  // `onEvent` as the watcher passes it on. The last answer is kept for the same object.
  let lastObject: KubeObject | undefined;
  let lastBucket = -1;
  const bucketOfObject = (o: KubeObject): number => {
    if (o === lastObject) return lastBucket;
    const key = hashedKey(o);
    lastBucket = key === undefined ? -1 : bucketOf(key, options.buckets);
    lastObject = o;
    return lastBucket;
  };
  let state: { groups: Set<Group<T>>; initial: boolean; mode: ShardFiltering | undefined } | undefined;

  const upstream$ = new Rx<WatchEvent<T>>((out) => {
    const groups = new Set<Group<T>>();
    const current: {
      groups: Set<Group<T>>;
      initial: boolean;
      mode: ShardFiltering | undefined;
      /** A streaming watch passed `InitApply`s on since the last `Init` told downstream. */
      streamed: boolean;
    } = {
      groups,
      initial: true,
      mode: keyOf !== undefined ? 'client' : options.filtering,
      streamed: false,
    };
    state = current;
    const store = shared.store;
    /** Buckets some group serves. */
    const covered = new Set<number>();
    let latest: readonly number[] = [];
    const teardown = new Subscription();

    const finishInitial = (): void => {
      if (!current.initial || current.mode === undefined) return;
      for (const g of groups) if (!g.synced) return;
      current.initial = false;
      // Each watch listed its own buckets at its own time: a name deleted and created again in
      // another bucket meanwhile is in two lists, under two uids; the newer stays.
      const held = new Map<string, T>();
      if (store.listing && [...groups].some((g) => (g.initial?.size ?? 0) > 0))
        for (const object of listed(store)) held.set(objectKey(object), object);
      for (const g of groups) {
        for (const object of g.initial?.values() ?? []) {
          const key = objectKey(object);
          if (supersededBy(object, held.get(key), false)) continue;
          held.set(key, object);
          out.next({ type: 'InitApply', object });
        }
        g.initial = undefined;
      }
      out.next({ type: 'InitDone' });
    };

    const onEvent = (g: Group<T>, e: WatchEvent<T>): void => {
      const streaming = g.streaming && current.initial;
      switch (e.type) {
        case 'Init':
          if (streaming) {
            // A list that starts again (a relist, or the one watch of a client-side restart):
            // what the last one passed on is void; the Store's list in progress starts afresh.
            if (current.streamed) out.next({ type: 'Init' });
            current.streamed = false;
            return;
          }
          g.listing = new Map();
          return;
        case 'InitApply':
          if (streaming) {
            if (g.buckets.has(bucketOfObject(e.object))) {
              current.streamed = true;
              out.next(e);
            }
            return;
          }
          (g.listing ??= new Map()).set(objectKey(e.object), e.object);
          return;
        case 'InitDone': {
          const listing = g.listing ?? new Map<string, T>();
          g.listing = undefined;
          g.synced = true;
          if (streaming) {
            finishInitial();
            return;
          }
          if (current.initial) {
            g.initial = new Map([...listing].filter(([, o]) => g.buckets.has(bucketOfObject(o))));
            finishInitial();
            return;
          }
          for (const [key, object] of listing) {
            if (!g.buckets.has(bucketOfObject(object))) continue;
            const held = store.get(key);
            if (
              held?.metadata.resourceVersion !== object.metadata.resourceVersion &&
              !supersededBy(object, held, false)
            ) {
              out.next({ type: 'Apply', object });
            }
          }
          for (const object of store.list()) {
            if (g.buckets.has(bucketOfObject(object)) && !listing.has(objectKey(object))) {
              out.next({ type: 'Delete', object });
            }
          }
          return;
        }
        case 'Apply':
        case 'Delete': {
          if (!g.buckets.has(bucketOfObject(e.object))) {
            // A key that can change (an owned child whose controller owner changed or went) took
            // the object out of this watch's buckets: it leaves the Store, told as a Delete of the
            // version held (whose owner is the one to reconcile).
            if (keyOf === undefined || e.type !== 'Delete') return;
            if (streaming) store.apply(e);
            else if (g.initial !== undefined) g.initial.delete(objectKey(e.object));
            else {
              const held = store.get(objectKey(e.object));
              if (held !== undefined && g.buckets.has(bucketOfObject(held)))
                out.next({ type: 'Delete', object: held });
            }
            return;
          }
          if (streaming) {
            // Listed, waiting for the other watches: into the Store's list in progress.
            if (e.type === 'Apply') {
              current.streamed = true;
              out.next({ type: 'InitApply', object: e.object });
            } else store.apply(e);
            return;
          }
          if (g.initial !== undefined) {
            if (e.type === 'Apply') g.initial.set(objectKey(e.object), e.object);
            else g.initial.delete(objectKey(e.object));
            return;
          }
          const held = store.get(objectKey(e.object));
          // A Delete of what the Store does not hold (a relist's diff came first) says nothing.
          if (e.type === 'Delete' && held === undefined) return;
          // Another incarnation of the name, watched by another watch: see `supersededBy`.
          if (supersededBy(e.object, held, e.type === 'Delete')) return;
          out.next(e);
          return;
        }
      }
    };

    const close = (g: Group<T>): void => {
      g.sub.unsubscribe();
      groups.delete(g);
    };

    const open = (buckets: Set<number>): void => {
      const mode = current.mode ?? 'client';
      const g: Group<T> = {
        buckets,
        listing: undefined,
        initial: undefined,
        streaming: current.initial && groups.size === 0,
        synced: false,
        sub: new Subscription(),
      };
      groups.add(g);
      const selector = mode === 'server' ? shardSelector(buckets, options.buckets, options.key) : undefined;
      const source = keeping(
        listWatchSource<T>(client, target.resource, {
          ...(target.namespace !== undefined ? { namespace: target.namespace } : {}),
          ...(target.labelSelector !== undefined ? { labelSelector: target.labelSelector } : {}),
          ...(target.fieldSelector !== undefined ? { fieldSelector: target.fieldSelector } : {}),
          ...(target.metadataOnly !== undefined ? { metadataOnly: target.metadataOnly } : {}),
          ...(selector !== undefined ? { shardSelector: selector } : {}),
        }),
        (o) => g.buckets.has(bucketOfObject(o)),
        keyOf !== undefined,
      );
      g.sub = watcher<T>(
        source,
        { ...options.watcher, ...(options.health !== undefined ? { health: options.health } : {}) },
        scheduler,
      ).subscribe({
        next: (e) => onEvent(g, e),
        error: (error: unknown) => out.error(error),
      });
    };

    const apply = (next: readonly number[]): void => {
      latest = next;
      if (current.mode === undefined) return;
      const wanted = new Set(next);
      const lost = new Set([...covered].filter((b) => !wanted.has(b)));
      const gained = new Set(next.filter((b) => !covered.has(b)));
      if (lost.size > 0) {
        for (const b of lost) covered.delete(b);
        for (const g of [...groups]) {
          for (const b of lost) g.buckets.delete(b);
          if (g.buckets.size === 0) close(g);
          for (const [key, o] of g.initial ?? []) if (lost.has(bucketOfObject(o))) g.initial?.delete(key);
        }
        // Out of the Store without a Delete to subscribers: not deleted, only no longer ours —
        // and out of its list in progress (what a streaming watch passed on).
        const held = store.listing ? [...store.list(), ...listed(store)] : store.list();
        for (const object of held) {
          if (lost.has(bucketOfObject(object))) store.apply({ type: 'Delete', object });
        }
      }
      if (gained.size > 0) {
        for (const b of gained) covered.add(b);
        if (current.mode === 'server') open(gained);
        else {
          // The server cannot list a range: one watch over every watched bucket, listed afresh.
          for (const g of [...groups]) close(g);
          open(new Set(covered));
        }
      }
      finishInitial();
    };

    out.next({ type: 'Init' });
    teardown.add(options.watched$.subscribe((next) => apply(next)));
    if (current.mode === undefined) {
      const probe = supportsShardSelector(client, target.resource, target.namespace).then(
        (yes): ShardFiltering => (yes ? 'server' : 'client'),
        (): ShardFiltering => 'client',
      );
      void probe.then((mode) => {
        if (state !== current || out.closed) return;
        current.mode = mode;
        apply(latest);
      });
    } else {
      apply(latest);
    }
    return () => {
      teardown.unsubscribe();
      for (const g of [...groups]) close(g);
      if (state === current) state = undefined;
    };
  });

  // The upstream reads `shared.store`: it runs only once subscribed, after this line.
  const shared = shareWatch(
    upstream$,
    options.store !== undefined ? { store: options.store } : {},
    scheduler,
  );
  return {
    events$: shared.events$,
    store: shared.store,
    get synced(): boolean {
      return state !== undefined && !state.initial && [...state.groups].every((g) => g.synced);
    },
    get connected(): boolean {
      return state !== undefined;
    },
    get filtering(): ShardFiltering | undefined {
      return state?.mode;
    },
    get watches(): number {
      return state?.groups.size ?? 0;
    },
  };
}

/**
 * Whether an event's `object` must leave alone what the Store holds under its name: `held` is
 * another incarnation (another uid). With `key: 'uid'` a name deleted and created again usually
 * moves to another bucket, and server-side another watch (one per range gained) carries it: the
 * two connections' events arrive in no common order, so the new incarnation's `ADDED` can come
 * before the old one's last `MODIFIED` or its `DELETED`. The old incarnation's deletion precedes
 * the new one's creation, so every version of the old is older (KEP-5504): an older version of
 * another uid is not applied, and a deletion of another uid never removes what is held. Where
 * resourceVersions are not comparable (not decimal), a later arrival replaces, as before.
 */
function supersededBy(object: KubeObject, held: KubeObject | undefined, deleting: boolean): boolean {
  if (held === undefined || held.metadata.uid === object.metadata.uid) return false;
  if (deleting) return true;
  const order = compareResourceVersions(object.metadata.resourceVersion, held.metadata.resourceVersion);
  return order !== undefined && order <= 0;
}

/** The objects of a Store's list in progress (its `replay()` while listing). */
function listed<T extends KubeObject>(store: { replay(): Iterable<WatchEvent<T>> }): T[] {
  const out: T[] = [];
  for (const e of store.replay()) if (e.type === 'InitApply') out.push(e.object);
  return out;
}

/**
 * `source` keeping only the objects `keep` accepts, in list pages and watch lines. With `moves`
 * (an object's key can change), a modification that is no longer kept goes on as a deletion, and
 * every deletion goes on: the object may have been kept before.
 */
function keeping<T extends KubeObject>(
  source: ListWatchSource<T>,
  keep: (object: T) => boolean,
  moves = false,
): ListWatchSource<T> {
  return {
    ...(source.streamingLists !== undefined ? { streamingLists: source.streamingLists } : {}),
    list: (params) => source.list(params).pipe(map((page) => ({ ...page, items: page.items.filter(keep) }))),
    // One operator where keys cannot move (each layer costs per event).
    watch: (params) =>
      moves
        ? source.watch(params).pipe(
            map((e) => (e.type === 'MODIFIED' && !keep(e.object) ? { ...e, type: 'DELETED' as const } : e)),
            filter((e) => !isObjectEvent(e) || e.type === 'DELETED' || keep(e.object)),
          )
        : source.watch(params).pipe(filter((e) => !isObjectEvent(e) || keep(e.object))),
  };
}

/** A watch line that carries an object of the watched kind (not a BOOKMARK, ERROR or MALFORMED). */
function isObjectEvent<T extends KubeObject>(
  e: RawWatchEvent<T>,
): e is Extract<RawWatchEvent<T>, { type: 'ADDED' | 'MODIFIED' | 'DELETED' }> {
  return e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED';
}
