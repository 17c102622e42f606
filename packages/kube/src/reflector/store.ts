/**
 * The reflector's cache: the current objects of one watch target, kept from {@link WatchEvent}s,
 * with indexes. Readers (reconciles) read it; only the reflector writes it.
 *
 * What it does not do: talk to the server (the watcher does), or notify anyone (the event stream
 * the reflector passes on does).
 *
 * @module
 */
import type { Observable } from 'rxjs';
import { BehaviorSubject, distinctUntilChanged } from 'rxjs';

import type { KubeObject, ObjectMeta } from '../types.js';
import { objectKey } from '../types.js';
import type { WatchEvent } from '../types.js';
import { InvalidArgumentError } from '../watcher/internal/invalid-argument.js';

/** Computes the index values of an object (`[]` when it belongs to no bucket). */
export type Indexer<T extends KubeObject> = (object: T) => readonly string[];

/** Options of a {@link Store}. */
export interface StoreOptions<T extends KubeObject> {
  /**
   * Applied to every object before it is stored (and passed on by the reflector). Default
   * {@link stripManagedFields} (controller-runtime's cache transform). Pass `(o) => o` to keep
   * objects as received. Must not mutate frozen objects.
   */
  readonly transform?: (object: T) => T;
  /** Extra indexers by name, besides the built-in `namespace` and `owner`. */
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
}

/** Built-in index: the object's namespace (cluster-scoped objects are in no bucket). */
export const NAMESPACE_INDEX = 'namespace';
/** Built-in index: the uids of the object's `metadata.ownerReferences`. */
export const OWNER_INDEX = 'owner';

/**
 * Drops `metadata.managedFields` — typically half of an object's bytes and never needed by a
 * controller. Objects fresh from the wire are changed in place (no copy, so the watcher and the
 * Store share one object); frozen objects are copied instead.
 *
 * ## Example
 * ```ts
 * new Store({ transform: (o) => stripManagedFields(o) });
 * ```
 */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  const meta = object.metadata as ObjectMeta | undefined;
  if (meta?.managedFields === undefined) return object;
  if (Object.isFrozen(object) || Object.isFrozen(meta)) {
    const { managedFields: _dropped, ...rest } = meta;
    return { ...object, metadata: rest };
  }
  delete meta.managedFields;
  return object;
}

/** A reference that names one object: a key (`namespace/name`), an ObjectRef or an object. */
export type StoreRef =
  string | { readonly namespace?: string; readonly name: string } | { readonly metadata: ObjectMeta };

const builtInIndexers: Readonly<Record<string, Indexer<KubeObject>>> = {
  [NAMESPACE_INDEX]: (o) => (o.metadata.namespace ? [o.metadata.namespace] : []),
  [OWNER_INDEX]: (o) => (o.metadata.ownerReferences ?? []).map((r) => r.uid),
};

/**
 * A cache of the current objects of one watch target: a mutable Map of frozen plain objects,
 * with indexes, replaced atomically at each `InitDone`.
 *
 * ## Example
 * ```ts
 * const store = new Store<ConfigMap>();
 * watcher(source).pipe(reflector(store)).subscribe();
 * await firstValueFrom(store.ready$.pipe(filter(Boolean)));
 * store.get('default/app-config'); store.list('default'); store.byIndex('owner', deployment.metadata.uid);
 * ```
 *
 * ## Semantics
 * - `Init` starts a buffer; `InitApply` fills it; `InitDone` swaps it in at once — readers see the
 *   old complete list until then, never a half list. A second `Init` before `InitDone` (a list that
 *   restarted) discards the buffer.
 * - `Apply` stores, `Delete` removes; both update every index.
 * - Objects are passed through `transform`, then deep-frozen: what a reader gets cannot change
 *   under it, and must not be changed by it (draft a copy — immer — to build a patch).
 * - `ready$`: `false` until the first `InitDone`, then `true` (also during later relists, since
 *   the old list stays readable); back to `false` after {@link Store.clear}.
 *
 * ## Guarantees
 * - After `InitDone` the Store holds exactly the listed objects, whatever it held before.
 * - Index results always match the stored objects (updated on every write).
 *
 * ## Memory
 * One entry per live object, plus one Set entry per (index value, object). Index buckets that
 * become empty are released. During a relist the previous objects stay until `InitDone`.
 * The default transform edits objects in place: the Store takes ownership of the objects it is
 * given.
 */
export class Store<T extends KubeObject = KubeObject> {
  private live = new Map<string, T>();
  private buffer: Map<string, T> | undefined;
  private readonly transform: (object: T) => T;
  private readonly indexers = new Map<string, Indexer<T>>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  private readonly readySubject = new BehaviorSubject<boolean>(false);

  /** `false` until the first `InitDone`, then `true`; replays the current value on subscribe. */
  readonly ready$: Observable<boolean> = this.readySubject.pipe(distinctUntilChanged());

  /**
   * @param options see {@link StoreOptions}.
   * @throws {InvalidArgumentError} when an option is unusable.
   */
  constructor(options: StoreOptions<T> = {}) {
    if (options === null || typeof options !== 'object') {
      throw new InvalidArgumentError('Store', 'options', options, 'must be an object or undefined');
    }
    const transform = options.transform ?? stripManagedFields;
    if (typeof transform !== 'function') {
      throw new InvalidArgumentError(
        'Store',
        'options.transform',
        transform,
        'must be a function (object) => object',
      );
    }
    this.transform = transform;
    for (const [name, fn] of Object.entries(builtInIndexers)) this.addIndexer(name, fn);
    for (const [name, fn] of Object.entries(options.indexers ?? {})) this.addIndexer(name, fn);
  }

  /** Whether the first list completed (`InitDone` seen). */
  get ready(): boolean {
    return this.readySubject.getValue();
  }

  /** Whether a (re)list is in progress: between `Init` and `InitDone`. */
  get listing(): boolean {
    return this.buffer !== undefined;
  }

  /** Number of objects readers see. */
  get size(): number {
    return this.live.size;
  }

  /** The object with this key (`namespace/name`, or `name` when cluster-scoped), ref or metadata. */
  get(ref: StoreRef): T | undefined {
    return this.live.get(typeof ref === 'string' ? ref : objectKey(ref));
  }

  /** Every object, or those of one namespace (through the `namespace` index). A new array. */
  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.live.values()];
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  /** Keys of every object readers see, in insertion order. */
  keys(): IterableIterator<string> {
    return this.live.keys();
  }

  /**
   * The objects whose indexer `indexName` returned `value`. A new array.
   *
   * @throws {InvalidArgumentError} when no indexer has that name.
   */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indexes.get(indexName);
    if (index === undefined) {
      throw new InvalidArgumentError(
        'Store.byIndex',
        'indexName',
        indexName,
        `must name an indexer (${[...this.indexes.keys()].join(', ')}); add one with addIndexer(name, fn)`,
      );
    }
    const keys = index.get(value);
    if (keys === undefined) return [];
    const out: T[] = [];
    for (const key of keys) {
      const object = this.live.get(key);
      if (object !== undefined) out.push(object);
    }
    return out;
  }

  /**
   * Adds an index; the objects already stored are indexed at once.
   *
   * @throws {InvalidArgumentError} when the name is taken or `fn` is not a function.
   */
  addIndexer(name: string, fn: Indexer<T>): void {
    if (typeof name !== 'string' || name === '') {
      throw new InvalidArgumentError('Store.addIndexer', 'name', name, 'must be a non-empty string');
    }
    if (this.indexers.has(name)) {
      throw new InvalidArgumentError(
        'Store.addIndexer',
        'name',
        name,
        'is already an indexer; pick another name',
      );
    }
    if (typeof fn !== 'function') {
      throw new InvalidArgumentError('Store.addIndexer', 'fn', fn, 'must be a function (object) => string[]');
    }
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indexes.set(name, index);
    for (const [key, object] of this.live) addToIndex(index, fn(object), key);
  }

  /** A copy of what readers see, key → object (for tests and debugging). */
  state(): ReadonlyMap<string, T> {
    return new Map(this.live);
  }

  /**
   * Applies one event and returns it with the stored (transformed, frozen) object — the event the
   * reflector passes on.
   */
  apply(event: WatchEvent<T>): WatchEvent<T> {
    switch (event.type) {
      case 'Init':
        this.buffer = new Map();
        return event;
      case 'InitApply': {
        const object = this.prepare(event.object);
        (this.buffer ??= new Map()).set(objectKey(object), object);
        return { type: 'InitApply', object };
      }
      case 'InitDone':
        if (this.buffer !== undefined) this.swap(this.buffer);
        this.buffer = undefined;
        if (!this.readySubject.getValue()) this.readySubject.next(true);
        return event;
      case 'Apply': {
        const object = this.prepare(event.object);
        this.put(objectKey(object), object);
        return { type: 'Apply', object };
      }
      case 'Delete': {
        const object = this.prepare(event.object);
        const key = objectKey(object);
        this.remove(key);
        this.buffer?.delete(key);
        return { type: 'Delete', object };
      }
    }
  }

  /**
   * The events that rebuild what this Store holds, for a subscriber joining late: `Init`, an
   * `InitApply` per object, `InitDone`. While a list is in progress: `Init` and the objects listed
   * so far (the rest and `InitDone` follow live). Nothing before the first `Init`.
   */
  *replay(): Generator<WatchEvent<T>, void, undefined> {
    if (this.buffer !== undefined) {
      yield { type: 'Init' };
      for (const object of [...this.buffer.values()]) yield { type: 'InitApply', object };
      return;
    }
    if (!this.ready) return;
    yield { type: 'Init' };
    for (const object of [...this.live.values()]) yield { type: 'InitApply', object };
    yield { type: 'InitDone' };
  }

  /** Empties the Store (objects, buffer, index buckets) and sets `ready` back to `false`. */
  clear(): void {
    this.live = new Map();
    this.buffer = undefined;
    for (const index of this.indexes.values()) index.clear();
    if (this.readySubject.getValue()) this.readySubject.next(false);
  }

  private prepare(object: T): T {
    const transformed = this.transform(object);
    deepFreeze(transformed);
    return transformed;
  }

  private put(key: string, object: T): void {
    const previous = this.live.get(key);
    if (previous !== undefined) this.unindex(key, previous);
    this.live.set(key, object);
    for (const [name, fn] of this.indexers) addToIndex(this.indexes.get(name), fn(object), key);
  }

  private remove(key: string): void {
    const previous = this.live.get(key);
    if (previous === undefined) return;
    this.unindex(key, previous);
    this.live.delete(key);
  }

  private unindex(key: string, object: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name);
      if (index === undefined) continue;
      for (const value of fn(object)) {
        const keys = index.get(value);
        if (keys === undefined) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }

  private swap(next: Map<string, T>): void {
    this.live = next;
    for (const [name, fn] of this.indexers) {
      const index = new Map<string, Set<string>>();
      for (const [key, object] of next) addToIndex(index, fn(object), key);
      this.indexes.set(name, index);
    }
  }
}

function addToIndex(
  index: Map<string, Set<string>> | undefined,
  values: readonly string[],
  key: string,
): void {
  if (index === undefined) return;
  for (const value of values) {
    let keys = index.get(value);
    if (keys === undefined) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}

/** Freezes a plain JSON value and everything in it. A frozen root is taken as already deep-frozen. */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
    return;
  }
  for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
}
