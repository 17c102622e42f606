/**
 * `WriteTracker`: the one memory of a controller's own writes (docs/promises.md promise 7, "no
 * self-inflicted loop"). Every write a reconcile makes — status, finalizer, `ctx.apply/patch/create/
 * delete` — goes through it, so that:
 * 1. while a write is in flight, watch events of that object are held (the echo may arrive before
 *    the response that says which resourceVersion the write produced);
 * 2. the watch event echoing a write is recognised (exact resourceVersion), and does not trigger
 *    the reconcile that made the write;
 * 3. a reconcile that reads a version our write replaced sees our write instead (read-own-writes) —
 *    also when the server answered without a new resourceVersion (removing the last finalizer of
 *    a deleting object, packages/testing/fixtures/kube-wire/13-finalizers.json #7).
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import { asyncScheduler, defer, finalize, from, Subject } from 'rxjs';
import type { Observable, ObservableInput, SchedulerLike } from 'rxjs';

import type { KubeObject, ObjectMeta, ResourceType } from '../types.js';

/**
 * Options of {@link WriteTracker}.
 *
 * ## Example
 * ```ts
 * const options: WriteTrackerOptions = { maxObjects: 50_000, ttlMs: 60_000 };
 * const tracker = new WriteTracker(options);
 * ```
 */
export interface WriteTrackerOptions {
  /** Objects remembered at most (oldest forgotten first); default 10 000. */
  readonly maxObjects?: number;
  /** How long (ms) a write is remembered when its echo never arrives; default 300 000 (5 min). */
  readonly ttlMs?: number;
}

/**
 * An echo recognised by {@link WriteTracker.takeEcho}: which reconcile (key) made the write.
 *
 * ## Example
 * ```ts
 * const tracker = new WriteTracker();
 * const echo: OwnEcho | undefined = tracker.takeEcho(widget); // the object of a watch event
 * if (echo !== undefined) console.log(`our own write (by ${echo.writer ?? 'unknown'}): no reconcile`);
 * ```
 */
export interface OwnEcho {
  /** The key of the reconcile that wrote, when the write named one. */
  readonly writer: string | undefined;
}

/** Versions remembered per object: enough for a burst of writes before the first echo. */
const MAX_VERSIONS_PER_OBJECT = 8;

interface Entry {
  /** uid of the object written (undefined until a response carried one). */
  uid: string | undefined;
  /** The object as our last write returned it; `undefined` after our delete removed it. */
  latest: KubeObject | undefined;
  /** resourceVersions our writes produced whose watch event has not been seen yet. */
  readonly echoes: string[];
  /** resourceVersions known to be older than `latest` (what our writes replaced). */
  readonly older: string[];
  /** The reconcile key that made the last write. */
  writer: string | undefined;
  at: number;
}

/** Anything that names an object of a kind: an object, or its group/kind with namespace and name. */
type Named = { readonly apiVersion?: string; readonly kind?: string; readonly metadata: ObjectMeta };

/**
 * The identity of an object for write tracking: API group, kind, namespace and name. The kind comes
 * from `resource` when given (a metadata-only watch reports `PartialObjectMetadata` objects).
 *
 * ## Example
 * ```ts
 * writeId({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: 'ns', name: 'web' }); // 'apps/Deployment/ns/web'
 * ```
 */
export function writeId(
  resource: { readonly apiVersion?: string; readonly kind?: string },
  meta: { readonly namespace?: string; readonly name?: string },
): string {
  const apiVersion = resource.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return `${group}/${resource.kind ?? ''}/${meta.namespace ?? ''}/${meta.name ?? ''}`;
}

/**
 * Remembers the writes a controller made, for echo suppression and read-own-writes.
 *
 * ## Example
 * ```ts
 * const tracker = new WriteTracker();
 * const before = store.get('ns/w');
 * const patch: Patch = { type: 'merge', body: { metadata: { labels: { seen: 'yes' } } } };
 * const patched$ = tracker.track(writeId(widgetType, ref), () => client.patch<Widget>(ref, patch));
 * patched$.subscribe((after) => tracker.recorded(before, after, 'ns/w'));
 * events$.pipe(suppressOwnEcho(tracker)); // the echo of that patch is dropped
 * const cached = store.get('ns/w');
 * if (cached !== undefined) tracker.latest(cached); // our patched version until the Store catches up
 * ```
 *
 * ## Semantics
 * - `track(id, write)`: the object counts as written-to while the write runs; `settled$` emits its
 *   id when the last write in flight settled (success, error or unsubscribe).
 * - `recorded(before, after, writer)`: a write turned `before` into `after` (the server's
 *   response). Remembered when the resourceVersion changed (an echo will follow), or when it did
 *   not but the object is being deleted (our finalizer removal: no echo, but the stored version is
 *   stale).
 * - `deleted(object, writer)`: our DELETE removed it; its `Delete` event is our echo.
 * - `takeEcho(object)`: for an `Apply`, the echo of one of our writes (each taken once; taking the
 *   latest releases the entry); for `Delete` see `takeDeleteEcho`. Objects with another uid (deleted
 *   and re-created) are never echoes.
 * - `latest(object)`: our latest written version when `object` is a version our writes replaced,
 *   else `object` (resourceVersions are compared for equality only, never ordered).
 *
 * ## Memory
 * At most `maxObjects` entries of at most 8 versions each; an entry is released when its latest
 * echo is taken, on `Delete`, or `ttlMs` after the write (swept lazily on every call; no timers).
 * In-flight counters exist only while writes run.
 */
export class WriteTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, number>();
  private readonly settledSubject = new Subject<string>();
  private readonly maxObjects: number;
  private readonly ttlMs: number;
  /** Emits an object's id when its last write in flight settled. */
  readonly settled$: Observable<string> = this.settledSubject.asObservable();

  /**
   * @param options `maxObjects` (integer >= 1), `ttlMs` (>= 0).
   * @param scheduler time source of the TTL; `TestScheduler.run` virtualises it.
   * @throws {InvalidArgumentError} for a bad option.
   */
  constructor(
    options: WriteTrackerOptions = {},
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    const { maxObjects = 10_000, ttlMs = 300_000 } = options;
    if (!Number.isInteger(maxObjects) || maxObjects < 1) {
      throw new InvalidArgumentError(
        'WriteTracker',
        'options.maxObjects',
        maxObjects,
        'must be an integer >= 1',
      );
    }
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0) {
      throw new InvalidArgumentError(
        'WriteTracker',
        'options.ttlMs',
        ttlMs,
        'must be a finite number >= 0 (ms)',
      );
    }
    this.maxObjects = maxObjects;
    this.ttlMs = ttlMs;
  }

  /** Objects currently remembered. */
  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  /** Objects with a write in flight now. */
  get writing(): number {
    return this.inFlight.size;
  }

  /** Whether a write of the object `id` ({@link writeId}) is in flight. */
  busy(id: string): boolean {
    return this.inFlight.has(id);
  }

  /**
   * Runs `write` (on subscribe) counted in flight for `id` until it settles. Record its response
   * with {@link recorded} before it completes (e.g. in a `tap`), so held events are judged against it.
   */
  track<R>(id: string, write: () => ObservableInput<R>): Observable<R> {
    return defer(() => {
      this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
      return from(write()).pipe(finalize(() => this.end(id)));
    });
  }

  /** Records that a write of ours (by the reconcile of `writer`) turned `before` into `after`. */
  recorded(before: Named | undefined, after: Named, writer?: string, resource?: ResourceType): void {
    this.sweep();
    const beforeRv = before?.metadata.resourceVersion;
    const afterRv = after.metadata.resourceVersion;
    if (afterRv === undefined) return;
    const unchanged = afterRv === beforeRv;
    // No new version and not deleting: the server changed nothing, no event follows, nothing stale.
    if (unchanged && after.metadata.deletionTimestamp === undefined) return;
    const id = writeId(resource ?? after, after.metadata);
    const existing = this.entries.get(id);
    const entry =
      existing !== undefined && sameUid(existing.uid, after.metadata.uid)
        ? existing
        : { uid: after.metadata.uid, latest: undefined, echoes: [], older: [], writer, at: 0 };
    const previous = entry.latest?.metadata.resourceVersion;
    if (previous !== undefined && previous !== afterRv) push(entry.older, previous);
    if (beforeRv !== undefined) push(entry.older, beforeRv);
    if (!unchanged) push(entry.echoes, afterRv);
    entry.uid = after.metadata.uid ?? entry.uid;
    entry.latest = after;
    entry.writer = writer;
    this.touch(id, entry);
  }

  /** Records that our DELETE (by the reconcile of `writer`) removed `object`. */
  deleted(object: Named, writer?: string, resource?: ResourceType): void {
    this.sweep();
    const id = writeId(resource ?? object, object.metadata);
    const entry: Entry = {
      uid: object.metadata.uid,
      latest: undefined,
      echoes: [],
      older: [],
      writer,
      at: 0,
    };
    const rv = object.metadata.resourceVersion;
    if (rv !== undefined) entry.older.push(rv);
    this.touch(id, entry);
  }

  /**
   * The echo of one of our writes: `object` (of an `Apply`) carries a resourceVersion our write
   * produced. Each echo is taken once; taking the latest releases the entry.
   */
  takeEcho(object: Named, resource?: ResourceType): OwnEcho | undefined {
    // Nothing remembered (the common case, once per event): no clock read, no id built.
    if (this.entries.size === 0) return undefined;
    this.sweep();
    const id = writeId(resource ?? object, object.metadata);
    const entry = this.entries.get(id);
    const rv = object.metadata.resourceVersion;
    if (entry === undefined || rv === undefined) return undefined;
    if (!sameUid(entry.uid, object.metadata.uid)) return undefined;
    const i = entry.echoes.indexOf(rv);
    if (i < 0) return undefined;
    entry.echoes.splice(i, 1);
    if (rv === entry.latest?.metadata.resourceVersion) this.entries.delete(id);
    return { writer: entry.writer };
  }

  /**
   * For a `Delete` of `object`: our echo when our DELETE removed it (then returns who wrote).
   * Forgets the object either way.
   */
  takeDeleteEcho(object: Named, resource?: ResourceType): OwnEcho | undefined {
    if (this.entries.size === 0) return undefined;
    this.sweep();
    const id = writeId(resource ?? object, object.metadata);
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    return entry.latest === undefined && sameUid(entry.uid, object.metadata.uid)
      ? { writer: entry.writer }
      : undefined;
  }

  /**
   * Our latest written version of `object` when `object` is a version our writes replaced, else
   * `object` itself.
   */
  latest<T extends Named>(object: T, resource?: ResourceType): T {
    // Nothing remembered (the common case, once per reconcile): no clock read, no id built.
    if (this.entries.size === 0) return object;
    this.sweep();
    const entry = this.entries.get(writeId(resource ?? object, object.metadata));
    const rv = object.metadata.resourceVersion;
    if (entry?.latest === undefined || rv === undefined || !sameUid(entry.uid, object.metadata.uid)) {
      return object;
    }
    return entry.older.includes(rv) ? (entry.latest as unknown as T) : object;
  }

  /**
   * What our writes say about an object of `resource` named `meta` that a cache may not show yet:
   * `{ object }` for one we wrote last (created or changed), `{ deleted: true }` for one our DELETE
   * removed, `undefined` when we have no pending write of it.
   */
  pending(
    resource: ResourceType,
    meta: { readonly namespace?: string; readonly name?: string },
  ):
    { readonly object?: KubeObject; readonly deleted?: true; readonly older: readonly string[] } | undefined {
    this.sweep();
    const entry = this.entries.get(writeId(resource, meta));
    if (entry === undefined) return undefined;
    return entry.latest === undefined
      ? { deleted: true, older: entry.older }
      : { object: entry.latest, older: entry.older };
  }

  /** Forgets an object (its Delete was seen). */
  forget(object: Named, resource?: ResourceType): void {
    this.entries.delete(writeId(resource ?? object, object.metadata));
  }

  /** Forgets every write (in-flight counters are kept: their writes still settle). */
  clear(): void {
    this.entries.clear();
  }

  private end(id: string): void {
    const n = (this.inFlight.get(id) ?? 0) - 1;
    if (n > 0) {
      this.inFlight.set(id, n);
      return;
    }
    this.inFlight.delete(id);
    this.settledSubject.next(id);
  }

  private touch(id: string, entry: Entry): void {
    entry.at = this.scheduler.now();
    this.entries.delete(id); // re-insert: the Map stays ordered by write time
    this.entries.set(id, entry);
    if (this.entries.size > this.maxObjects) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  private sweep(): void {
    if (this.entries.size === 0) return;
    const deadline = this.scheduler.now() - this.ttlMs;
    for (const [id, entry] of this.entries) {
      if (entry.at > deadline) return;
      this.entries.delete(id);
    }
  }
}

function sameUid(a: string | undefined, b: string | undefined): boolean {
  return a === undefined || b === undefined || a === b;
}

function push(list: string[], rv: string): void {
  if (list.includes(rv)) return;
  list.push(rv);
  if (list.length > MAX_VERSIONS_PER_OBJECT) list.shift();
}
