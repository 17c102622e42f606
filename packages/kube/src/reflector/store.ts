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
import { UserCodeError } from '../user-code-error.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';

/**
 * Computes the index values of an object (`[]` when it belongs to no bucket).
 *
 * ## Example
 * ```ts
 * const byNode: Indexer<Pod> = (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []);
 * const store = new Store<Pod>({ indexers: { node: byNode } });
 * store.byIndex('node', 'worker-1');
 * ```
 */
export type Indexer<T extends KubeObject> = (object: T) => readonly string[];

/**
 * Options of a {@link Store}.
 *
 * ## Example
 * ```ts
 * const options: StoreOptions<Pod> = { transform: (o) => o, onUserCodeError: (e) => log.warn(e.message) };
 * const store = new Store<Pod>(options);
 * ```
 */
export interface StoreOptions<T extends KubeObject> {
  /**
   * Applied to every object before it is stored (and passed on by the reflector). Default
   * {@link stripManagedFields} (controller-runtime's cache transform). Pass `(o) => o` to keep
   * objects as received. Must not mutate frozen objects.
   */
  readonly transform?: (object: T) => T;
  /** Extra indexers by name, besides the built-in `namespace` and `owner`. */
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
  /**
   * Told when an indexer or the transform throws for an object (a {@link UserCodeError} with hook
   * `indexer` or `transform` and the object's key). The Store keeps going either way: the object
   * is left out of that index, or stored as received. Default: `console.error`.
   */
  readonly onUserCodeError?: (error: UserCodeError) => void;
}

/**
 * Built-in index: the object's namespace (cluster-scoped objects are in no bucket).
 *
 * ## Example
 * ```ts
 * store.byIndex(NAMESPACE_INDEX, 'shop'); // the objects in namespace shop
 * ```
 */
export const NAMESPACE_INDEX = 'namespace';
/**
 * Built-in index: the uids of the object's `metadata.ownerReferences`.
 *
 * ## Example
 * ```ts
 * store.byIndex(OWNER_INDEX, widget.metadata.uid ?? ''); // the objects owned by `widget`
 * ```
 */
export const OWNER_INDEX = 'owner';

/**
 * Drops `metadata.managedFields` — typically half of an object's bytes and never needed by a
 * controller. Objects fresh from the wire are changed in place (the watcher and the Store share one
 * object): their `metadata` is replaced by a copy without `managedFields` — cheaper than `delete`,
 * which would turn `metadata` into a slow dictionary-mode object for every later read and for the
 * freeze. Frozen objects are copied instead.
 *
 * ## Example
 * ```ts
 * new Store({ transform: (o) => stripManagedFields(o) });
 * ```
 */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  const meta = object.metadata as ObjectMeta | undefined;
  if (meta?.managedFields === undefined) return object;
  const { managedFields: _dropped, ...rest } = meta;
  if (Object.isFrozen(object)) return { ...object, metadata: rest };
  (object as { metadata: ObjectMeta }).metadata = rest;
  return object;
}

/**
 * A reference that names one object: a key (`namespace/name`), an ObjectRef or an object.
 *
 * ## Example
 * ```ts
 * store.get('shop/web'); // a key
 * store.get({ namespace: 'shop', name: 'web' }); // an ObjectRef
 * store.get(widget); // an object (its metadata names it)
 * ```
 */
export type StoreRef =
  string | { readonly namespace?: string; readonly name: string } | { readonly metadata: ObjectMeta };

/** The index values of an object that belongs to no bucket: one shared frozen array. */
const NO_VALUES: readonly string[] = Object.freeze([]);

const namespaceIndexer: Indexer<KubeObject> = (o) =>
  o.metadata.namespace ? [o.metadata.namespace] : NO_VALUES;
const ownerIndexer: Indexer<KubeObject> = (o) => {
  const refs = o.metadata.ownerReferences;
  if (refs === undefined || refs.length === 0) return NO_VALUES;
  return refs.map((r) => r.uid);
};
const builtInIndexers: Readonly<Record<string, Indexer<KubeObject>>> = {
  [NAMESPACE_INDEX]: namespaceIndexer,
  [OWNER_INDEX]: ownerIndexer,
};

/**
 * Whether the built-in indexer `fn` gives a new version of a stored object the values it had,
 * known without calling it: the namespace is part of the key; no owners before and none now.
 */
function unchangedBuiltIn(fn: unknown, object: KubeObject, old: readonly string[]): boolean {
  if (fn === namespaceIndexer) return true;
  if (fn !== ownerIndexer) return false;
  const refs = object.metadata.ownerReferences;
  return old.length === 0 && (refs === undefined || refs.length === 0);
}

/** A stored object with what each indexer returned for it (by indexer position), kept for upkeep. */
interface Entry<T> {
  /** Replaced in place only while no list is in progress (no other table can share the entry). */
  object: T;
  readonly values: (readonly string[])[];
}

/** key → entry, with the indexes over those entries (by indexer position). */
interface Table<T> {
  readonly entries: Map<string, Entry<T>>;
  readonly indexes: Map<string, Set<string>>[];
}

/**
 * A cache of the current objects of one watch target: a mutable Map of frozen plain objects,
 * with indexes, replaced atomically at each `InitDone`.
 *
 * ## Example
 * ```ts
 * const store = new Store<ConfigMap>();
 * watcher(source).pipe(reflector(store)).subscribe();
 * await firstValueFrom(store.ready$.pipe(filter(Boolean)));
 * store.get('default/app-config'); store.list('default'); store.byIndex('owner', widget.metadata.uid ?? '');
 * ```
 *
 * ## Semantics
 * - `Init` starts a buffer; `InitApply` fills it; `InitDone` swaps it in at once — readers see the
 *   old complete list until then, never a half list. A second `Init` before `InitDone` (a list that
 *   restarted) discards the buffer.
 * - `Apply` stores, `Delete` removes; both keep every index exact (an `Apply` only touches the
 *   indexes whose values for the object changed).
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
 * One entry per live object (the object and what each indexer returned for it), plus one Set
 * entry per (index value, object). Index buckets that become empty are released. During a relist
 * the previous objects (and their indexes) stay until `InitDone`; the new list is indexed as it
 * fills. An `InitApply` of the very instance already stored (what the watcher passes on for an
 * object whose resourceVersion did not change) shares the stored entry: a relist that changes
 * nothing costs one Map slot and one index-set slot per object, no second copy of any object.
 * The default transform edits objects in place: the Store takes ownership of the objects it is
 * given.
 */
export class Store<T extends KubeObject = KubeObject> {
  private live: Table<T>;
  /** The list in progress (between `Init` and `InitDone`), indexed as it fills. */
  private buffer: Table<T> | undefined;
  private readonly transform: (object: T) => T;
  /** Indexer names → position in {@link Entry.values} and {@link Table.indexes}. */
  private readonly indexNames = new Map<string, number>();
  private readonly indexers: Indexer<T>[] = [];
  private readonly onUserCodeError: (error: UserCodeError) => void;
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
    const report = options.onUserCodeError;
    if (report !== undefined && typeof report !== 'function') {
      throw new InvalidArgumentError(
        'Store',
        'options.onUserCodeError',
        report,
        'must be a function (error) => void or undefined',
      );
    }
    this.onUserCodeError = report ?? ((error) => console.error(error.message));
    this.live = { entries: new Map(), indexes: [] };
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
    return this.live.entries.size;
  }

  /** The object with this key (`namespace/name`, or `name` when cluster-scoped), ref or metadata. */
  get(ref: StoreRef): T | undefined {
    return this.live.entries.get(typeof ref === 'string' ? ref : objectKey(ref))?.object;
  }

  /** Every object, or those of one namespace (through the `namespace` index). A new array. */
  list(namespace?: string): T[] {
    if (namespace === undefined) return objectsOf(this.live.entries);
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  /** Whether an index of this name exists (built-in `namespace` and `owner` always do). */
  hasIndex(indexName: string): boolean {
    return this.indexNames.has(indexName);
  }

  /** Keys of every object readers see, in insertion order. */
  keys(): IterableIterator<string> {
    return this.live.entries.keys();
  }

  /**
   * The objects whose indexer `indexName` returned `value`. A new array.
   *
   * @throws {InvalidArgumentError} when no indexer has that name.
   */
  byIndex(indexName: string, value: string): T[] {
    const position = this.indexNames.get(indexName);
    if (position === undefined) {
      throw new InvalidArgumentError(
        'Store.byIndex',
        'indexName',
        indexName,
        `must name an indexer (${[...this.indexNames.keys()].join(', ')}); add one with addIndexer(name, fn)`,
      );
    }
    const keys = this.live.indexes[position]?.get(value);
    if (keys === undefined) return [];
    const out: T[] = [];
    for (const key of keys) {
      const entry = this.live.entries.get(key);
      if (entry !== undefined) out.push(entry.object);
    }
    return out;
  }

  /**
   * Adds an index; the objects already stored (and those of a list in progress) are indexed at once.
   * An indexer that throws for an object leaves that object out of the index (reported through
   * `onUserCodeError`); it never empties the Store or stops the watch.
   *
   * @throws {InvalidArgumentError} when the name is taken or `fn` is not a function.
   */
  addIndexer(name: string, fn: Indexer<T>): void {
    if (typeof name !== 'string' || name === '') {
      throw new InvalidArgumentError('Store.addIndexer', 'name', name, 'must be a non-empty string');
    }
    if (this.indexNames.has(name)) {
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
    const position = this.indexers.length;
    const tables = this.buffer === undefined ? [this.live] : [this.live, this.buffer];
    const computed = tables.map((table) =>
      [...table.entries].map(([key, entry]) => [key, entry, this.index(fn, entry.object, key)] as const),
    );
    this.indexNames.set(name, position);
    this.indexers.push(fn);
    tables.forEach((table, i) => {
      const index = new Map<string, Set<string>>();
      table.indexes.push(index);
      for (const [key, entry, values] of computed[i] ?? []) {
        // an entry shared by the live table and the list in progress gets its values once
        if (entry.values.length === position) entry.values.push(values);
        addToIndex(index, entry.values[position] ?? values, key);
      }
    });
  }

  /** A copy of what readers see, key → object (for tests and debugging). */
  state(): ReadonlyMap<string, T> {
    const out = new Map<string, T>();
    for (const [key, entry] of this.live.entries) out.set(key, entry.object);
    return out;
  }

  /**
   * Applies one event and returns it with the stored (transformed, frozen) object — the event the
   * reflector passes on: the given event itself when the transform kept the object's identity (the
   * default transform does), else a new event.
   */
  apply(event: WatchEvent<T>): WatchEvent<T> {
    switch (event.type) {
      case 'Init':
        this.buffer = this.emptyTable();
        return event;
      case 'InitApply': {
        const buffer = (this.buffer ??= this.emptyTable());
        const live = this.live.entries.get(objectKey(event.object));
        if (live !== undefined && live.object === event.object) {
          // Unchanged since it was stored (a relisting watcher passes the instance it emitted
          // before): the list shares the stored entry — no transform, freeze or indexer call.
          share(buffer, objectKey(event.object), live);
          return event;
        }
        const object = this.prepare(event.object);
        this.put(buffer, objectKey(object), object);
        return object === event.object ? event : { type: 'InitApply', object };
      }
      case 'InitDone':
        if (this.buffer !== undefined) this.live = this.buffer;
        this.buffer = undefined;
        if (!this.readySubject.getValue()) this.readySubject.next(true);
        return event;
      case 'Apply': {
        const object = this.prepare(event.object);
        this.put(this.live, objectKey(object), object);
        return object === event.object ? event : { type: 'Apply', object };
      }
      case 'Delete': {
        const object = this.prepare(event.object);
        const key = objectKey(object);
        remove(this.live, key);
        if (this.buffer !== undefined) remove(this.buffer, key);
        return object === event.object ? event : { type: 'Delete', object };
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
      for (const object of objectsOf(this.buffer.entries)) yield { type: 'InitApply', object };
      return;
    }
    if (!this.ready) return;
    yield { type: 'Init' };
    for (const object of objectsOf(this.live.entries)) yield { type: 'InitApply', object };
    yield { type: 'InitDone' };
  }

  /** Empties the Store (objects, buffer, index buckets) and sets `ready` back to `false`. */
  clear(): void {
    this.live = this.emptyTable();
    this.buffer = undefined;
    if (this.readySubject.getValue()) this.readySubject.next(false);
  }

  private emptyTable(): Table<T> {
    return { entries: new Map(), indexes: this.indexers.map(() => new Map<string, Set<string>>()) };
  }

  private prepare(object: T): T {
    let transformed: T;
    try {
      transformed = this.transform(object);
      if (
        transformed === null ||
        typeof transformed !== 'object' ||
        typeof transformed.metadata !== 'object'
      ) {
        throw new TypeError(
          `the transform returned ${typeof transformed === 'object' ? 'an object without metadata' : String(transformed)} instead of an object with metadata`,
        );
      }
    } catch (error) {
      this.onUserCodeError(new UserCodeError('transform', error, { key: objectKey(object) }));
      transformed = object;
    }
    deepFreeze(transformed);
    return transformed;
  }

  /** An indexer's values for `object`; `[]` (reported) when it throws or returns no string array. */
  private index(fn: Indexer<T>, object: T, key: string): readonly string[] {
    try {
      const values = fn(object);
      if (!isStringArray(values)) {
        throw new TypeError(
          `the indexer returned ${JSON.stringify(values) ?? String(values)}, not an array of strings`,
        );
      }
      return values;
    } catch (error) {
      this.onUserCodeError(new UserCodeError('indexer', error, { key }));
      return NO_VALUES;
    }
  }

  /**
   * Stores `object` under `key`. Index buckets are only touched for the indexers whose values
   * changed — a MODIFIED event usually changes neither namespace nor owners.
   */
  private put(table: Table<T>, key: string, object: T): void {
    const indexers = this.indexers;
    const previous = table.entries.get(key);
    if (previous !== undefined && this.buffer === undefined) {
      // A new version of a stored object, no list in progress (its entry is in no other table):
      // the entry is updated in place — no entry or values array per event.
      const old = previous.values;
      for (let i = 0; i < indexers.length; i++) {
        const fn = indexers[i] as Indexer<T>;
        const was = old[i] as readonly string[];
        if (unchangedBuiltIn(fn, object, was)) continue;
        const next = this.index(fn, object, key);
        if (sameValues(was, next)) continue;
        const index = table.indexes[i] as Map<string, Set<string>>;
        removeFromIndex(index, was, key);
        addToIndex(index, next, key);
        old[i] = next;
      }
      previous.object = object;
      return;
    }
    const values: (readonly string[])[] = new Array<readonly string[]>(indexers.length);
    for (let i = 0; i < indexers.length; i++) values[i] = this.index(indexers[i] as Indexer<T>, object, key);
    for (let i = 0; i < values.length; i++) {
      const next = values[i] as readonly string[];
      const index = table.indexes[i] as Map<string, Set<string>>;
      if (previous === undefined) {
        addToIndex(index, next, key);
        continue;
      }
      const old = previous.values[i] as readonly string[];
      if (sameValues(old, next)) {
        values[i] = old; // keep one array per object, let the new one be collected young
      } else {
        removeFromIndex(index, old, key);
        addToIndex(index, next, key);
      }
    }
    table.entries.set(key, { object, values });
  }
}

/** Puts an entry of another table (same object, same index values) into `table`. */
function share<T>(table: Table<T>, key: string, entry: Entry<T>): void {
  remove(table, key);
  for (let i = 0; i < table.indexes.length; i++) {
    addToIndex(table.indexes[i] as Map<string, Set<string>>, entry.values[i] ?? NO_VALUES, key);
  }
  table.entries.set(key, entry);
}

function remove<T>(table: Table<T>, key: string): void {
  const previous = table.entries.get(key);
  if (previous === undefined) return;
  for (let i = 0; i < table.indexes.length; i++) {
    removeFromIndex(table.indexes[i] as Map<string, Set<string>>, previous.values[i] ?? NO_VALUES, key);
  }
  table.entries.delete(key);
}

function objectsOf<T>(entries: Map<string, Entry<T>>): T[] {
  const out = new Array<T>(entries.size);
  let i = 0;
  for (const entry of entries.values()) out[i++] = entry.object;
  return out;
}

function isStringArray(values: unknown): values is readonly string[] {
  if (!Array.isArray(values)) return false;
  for (let i = 0; i < values.length; i++) if (typeof values[i] !== 'string') return false;
  return true;
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function addToIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (keys === undefined) index.set(value, (keys = new Set()));
    keys.add(key);
  }
}

function removeFromIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    const keys = index.get(value);
    if (keys === undefined) continue;
    keys.delete(key);
    if (keys.size === 0) index.delete(value);
  }
}

/**
 * Freezes a plain JSON value and everything in it. A frozen value is taken as already deep-frozen
 * (a frozen subtree is not visited again); primitives are checked inline rather than by a call each.
 */
function deepFreeze(value: unknown): void {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) freezeTree(value);
}

function freezeTree(value: object): void {
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === 'object' && !Object.isFrozen(item)) freezeTree(item);
    }
    return;
  }
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== null && typeof item === 'object' && !Object.isFrozen(item)) freezeTree(item);
  }
}
