/**
 * In-memory object storage with etcd's versioning model: ONE global, monotonically increasing
 * resourceVersion (+1 per write), a bounded event log for watch resume and historical reads, and
 * compaction.
 *
 * Objects are keyed by a storage key (`<group>/<resource>`, shared by all versions of a type) and
 * `namespace/name` (`name` for cluster-scoped types). Stored objects are never mutated: writers
 * pass a fresh object, readers clone before changing anything.
 *
 * Does not: validate, default, convert versions, or know about HTTP.
 *
 * @module
 */
import type { KObj, OwnerRef } from './object.js';
import { metaOf } from './object.js';

/** The kind of change an event records. */
export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One write, as kept in the event log and handed to watchers. */
export interface StoreEvent {
  readonly type: StoreEventType;
  /** The revision of this write. */
  readonly rv: number;
  readonly storageKey: string;
  readonly key: string;
  /** The new state; for DELETED the last state with the deletion's resourceVersion. */
  readonly object: KObj;
  /** The state before the write (undefined for ADDED). */
  readonly prev: KObj | undefined;
}

/** Listener of store events. */
export type StoreListener = (event: StoreEvent) => void;

/** Where an object lives: storage key and object key. */
export interface ObjectLocation {
  readonly storageKey: string;
  readonly key: string;
}

class Table {
  readonly objects = new Map<string, KObj>();
  sorted: string[] | undefined;
  /** Revision of the last write to this table (0 when never written). */
  lastRv = 0;
}

/** Key of an object: `namespace/name`, or `name` when cluster-scoped. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/**
 * The object store. Single-threaded (Node): every method runs to completion, so a read followed by
 * a subscribe in the same tick never misses an event.
 */
export class ObjectStore {
  private revision: number;
  private readonly tables = new Map<string, Table>();
  private readonly ring: (StoreEvent | undefined)[];
  private ringStart = 0;
  private ringSize = 0;
  private compacted: number;
  private readonly listeners = new Map<string, Set<StoreListener>>();
  private readonly globalListeners = new Set<StoreListener>();
  private readonly byUid = new Map<string, ObjectLocation>();
  private readonly dependents = new Map<string, Set<string>>();

  /**
   * @param historySize how many events are kept for watch resume and historical lists (≥ 1).
   * @param initialRevision the revision the store starts at.
   */
  constructor(
    readonly historySize: number,
    initialRevision = 1,
  ) {
    if (!Number.isInteger(historySize) || historySize < 1) {
      throw new RangeError(`ObjectStore: historySize must be a positive integer, got ${String(historySize)}`);
    }
    this.revision = initialRevision;
    this.compacted = initialRevision;
    this.ring = new Array<StoreEvent | undefined>(historySize);
  }

  /** The current (latest) resourceVersion. */
  get resourceVersion(): number {
    return this.revision;
  }

  /** Oldest revision from which watches and historical reads can still start. */
  get compactedRevision(): number {
    return this.compacted;
  }

  /** Revision of the last write to a storage key (0 when never written). */
  lastWriteOf(storageKey: string): number {
    return this.tables.get(storageKey)?.lastRv ?? 0;
  }

  private table(storageKey: string): Table {
    let t = this.tables.get(storageKey);
    if (!t) {
      t = new Table();
      this.tables.set(storageKey, t);
    }
    return t;
  }

  /** The stored object, or undefined. */
  get(storageKey: string, key: string): KObj | undefined {
    return this.tables.get(storageKey)?.objects.get(key);
  }

  /** Where the object with this uid lives, if it exists. */
  locateUid(uid: string): ObjectLocation | undefined {
    return this.byUid.get(uid);
  }

  /** Locations of the objects whose ownerReferences name `ownerUid`. */
  dependentsOf(ownerUid: string): ObjectLocation[] {
    const set = this.dependents.get(ownerUid);
    if (!set) return [];
    return [...set].map((s) => {
      const i = s.indexOf('\n');
      return { storageKey: s.slice(0, i), key: s.slice(i + 1) };
    });
  }

  /** Number of objects under a storage key. */
  count(storageKey: string): number {
    return this.tables.get(storageKey)?.objects.size ?? 0;
  }

  /** Object keys of a storage key in byte order (the etcd key order). */
  sortedKeys(storageKey: string): readonly string[] {
    const t = this.tables.get(storageKey);
    if (!t) return [];
    t.sorted ??= [...t.objects.keys()].sort(compareKeys);
    return t.sorted;
  }

  /** Storage keys currently holding objects or ever written. */
  storageKeys(): string[] {
    return [...this.tables.keys()];
  }

  /**
   * The objects of a storage key as they were at revision `rv` (reconstructed from the event log),
   * or `'expired'` when `rv` is older than the log. Returns a Map key → object.
   */
  stateAt(storageKey: string, rv: number): Map<string, KObj> | 'expired' {
    const t = this.tables.get(storageKey);
    const state = new Map(t?.objects ?? []);
    if (rv >= this.revision) return state;
    if (rv < this.compacted) return 'expired';
    for (let i = this.ringSize - 1; i >= 0; i--) {
      const e = this.ring[(this.ringStart + i) % this.historySize];
      if (!e || e.rv <= rv) break;
      if (e.storageKey !== storageKey) continue;
      if (e.type === 'ADDED') state.delete(e.key);
      else if (e.prev) state.set(e.key, e.prev);
    }
    return state;
  }

  /** Events after `rv` (exclusive) in order, or `'expired'` when `rv` is older than the log. */
  eventsSince(rv: number): StoreEvent[] | 'expired' {
    if (rv < this.compacted) return 'expired';
    const out: StoreEvent[] = [];
    // binary search for the first event with e.rv > rv
    let lo = 0;
    let hi = this.ringSize;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = this.ring[(this.ringStart + mid) % this.historySize];
      if (e && e.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.ringSize; i++) {
      const e = this.ring[(this.ringStart + i) % this.historySize];
      if (e) out.push(e);
    }
    return out;
  }

  /** The revision of the first event after `rv`, or undefined if none is retained. */
  firstEventAfter(rv: number): StoreEvent | undefined {
    const evs = this.eventsSince(rv);
    return evs === 'expired' ? undefined : evs[0];
  }

  /** Drops history up to `rv` (default: the current revision). Returns the new compacted revision. */
  compact(rv: number = this.revision): number {
    const target = Math.min(Math.max(rv, this.compacted), this.revision);
    while (this.ringSize > 0) {
      const e = this.ring[this.ringStart];
      if (!e || e.rv > target) break;
      this.ring[this.ringStart] = undefined;
      this.ringStart = (this.ringStart + 1) % this.historySize;
      this.ringSize--;
    }
    this.compacted = target;
    return target;
  }

  /** Stores a new object at the next revision. The object's resourceVersion is set. */
  create(storageKey: string, key: string, object: KObj): StoreEvent {
    return this.write('ADDED', storageKey, key, object);
  }

  /** Replaces an object at the next revision. */
  update(storageKey: string, key: string, object: KObj): StoreEvent {
    return this.write('MODIFIED', storageKey, key, object);
  }

  /** Removes an object at the next revision; `last` is its final state (its RV is set to the deletion's). */
  remove(storageKey: string, key: string, last: KObj): StoreEvent {
    return this.write('DELETED', storageKey, key, last);
  }

  private write(type: StoreEventType, storageKey: string, key: string, object: KObj): StoreEvent {
    const t = this.table(storageKey);
    const prev = t.objects.get(key);
    if (type === 'ADDED' && prev) throw new Error(`ObjectStore: ${storageKey} ${key} already exists`);
    if (type !== 'ADDED' && !prev) throw new Error(`ObjectStore: ${storageKey} ${key} does not exist`);
    const rv = ++this.revision;
    object.metadata.resourceVersion = String(rv);
    if (type === 'DELETED') {
      t.objects.delete(key);
      t.sorted = undefined;
    } else {
      if (!prev) t.sorted = undefined;
      t.objects.set(key, object);
    }
    t.lastRv = rv;
    this.index(storageKey, key, prev, type === 'DELETED' ? undefined : object);
    const event: StoreEvent = { type, rv, storageKey, key, object, prev };
    this.append(event);
    const ls = this.listeners.get(storageKey);
    if (ls) for (const l of [...ls]) l(event);
    for (const l of [...this.globalListeners]) l(event);
    return event;
  }

  private index(storageKey: string, key: string, prev: KObj | undefined, next: KObj | undefined): void {
    const loc = `${storageKey}\n${key}`;
    const prevUid = prev ? metaOf(prev).uid : undefined;
    const nextUid = next ? metaOf(next).uid : undefined;
    if (prevUid && prevUid !== nextUid) this.byUid.delete(prevUid);
    if (nextUid) this.byUid.set(nextUid, { storageKey, key });
    const before = new Set((prev ? ownersOf(prev) : []).map((o) => o.uid));
    const after = new Set((next ? ownersOf(next) : []).map((o) => o.uid));
    for (const u of before) {
      if (after.has(u)) continue;
      const s = this.dependents.get(u);
      s?.delete(loc);
      if (s?.size === 0) this.dependents.delete(u);
    }
    for (const u of after) {
      let s = this.dependents.get(u);
      if (!s) {
        s = new Set();
        this.dependents.set(u, s);
      }
      s.add(loc);
    }
  }

  private append(e: StoreEvent): void {
    if (this.ringSize === this.historySize) {
      const dropped = this.ring[this.ringStart];
      this.ringStart = (this.ringStart + 1) % this.historySize;
      this.ringSize--;
      if (dropped) this.compacted = Math.max(this.compacted, dropped.rv);
    }
    this.ring[(this.ringStart + this.ringSize) % this.historySize] = e;
    this.ringSize++;
  }

  /** Listens to writes of one storage key. Returns the unsubscribe function. */
  subscribe(storageKey: string, listener: StoreListener): () => void {
    let s = this.listeners.get(storageKey);
    if (!s) {
      s = new Set();
      this.listeners.set(storageKey, s);
    }
    s.add(listener);
    return () => {
      const cur = this.listeners.get(storageKey);
      cur?.delete(listener);
      if (cur?.size === 0) this.listeners.delete(storageKey);
    };
  }

  /** Listens to every write. Returns the unsubscribe function. */
  subscribeAll(listener: StoreListener): () => void {
    this.globalListeners.add(listener);
    return () => this.globalListeners.delete(listener);
  }
}

/** Byte-order comparison of object keys. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The ownerReferences of an object (empty when none). */
export function ownersOf(o: KObj): OwnerRef[] {
  const refs = o.metadata.ownerReferences;
  return Array.isArray(refs) ? refs.filter((r) => typeof r.uid === 'string') : [];
}
