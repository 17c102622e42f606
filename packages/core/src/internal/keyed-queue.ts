/**
 * The bookkeeping of a controller-runtime style workqueue, with no Observables and no time of its
 * own: which keys wait (in FIFO order), which run, and which have a value parked behind a run.
 *
 * - `ready`: keys waiting for a slot, oldest first. A new value for a waiting key replaces its value
 *   in its slot, so the key keeps its place.
 * - `active`: keys whose work is in flight.
 * - `parked`: keys in flight that received a newer value; on `finish` the parked value moves to the
 *   BACK of `ready`, so a hot key cannot starve the others.
 *
 * A key is in `ready` or `active`, never both; `parked` ⊆ `active`. Every structure holds at most
 * one entry per key, so memory is bounded by distinct keys, and a key with nothing waiting and
 * nothing in flight has no entry anywhere.
 *
 * Not exported from the package; `runByKey` and `sinkByKey` drive it.
 */

/** A waiting value and the time (from the caller's clock) its key started waiting. */
export interface Slot<K, V> {
  readonly key: K;
  value: V;
  readonly since: number;
}

/** What {@link KeyedQueue.push} did with a value. */
export type PushOutcome<V> =
  /** The key was idle; it now waits at the back of the FIFO, `depth` keys waiting in all. */
  | { readonly kind: 'enqueued'; readonly depth: number }
  /** The key was in flight with nothing parked; the value is parked until the run finishes. */
  | { readonly kind: 'parked' }
  /** The key already had a waiting or parked value; `previous` was replaced (latest wins). */
  | { readonly kind: 'replaced'; readonly previous: V };

/** A value taken for processing. */
export interface Taken<K, V> {
  readonly key: K;
  readonly value: V;
  readonly since: number;
}

const PARKED = { kind: 'parked' } as const;

/** Per-key FIFO with coalescing and per-key mutual exclusion; see the module comment. */
export class KeyedQueue<K, V> {
  /** Waiting keys → their slot (lookup). */
  private readonly ready = new Map<K, Slot<K, V>>();
  /**
   * The same slots in FIFO order, consumed from `head`. (Deleting from the front of a `Map` leaves
   * holes that every later `keys().next()` walks over: O(n²) for a deep backlog; an array does not.)
   */
  private fifo: (Slot<K, V> | undefined)[] = [];
  private head = 0;
  private readonly parked = new Map<K, Slot<K, V>>();
  private readonly active = new Set<K>();

  /** Number of keys waiting for a slot (not counting parked values). */
  get depth(): number {
    return this.ready.size;
  }

  /** Number of keys in flight. */
  get activeCount(): number {
    return this.active.size;
  }

  /** Number of keys with a value parked behind their in-flight run. */
  get parkedCount(): number {
    return this.parked.size;
  }

  /** True when nothing waits, nothing is parked and nothing runs: no per-key state is held. */
  get idle(): boolean {
    return this.ready.size === 0 && this.active.size === 0;
  }

  /** Adds `value` for `key` at time `now`; see {@link PushOutcome}. */
  push(key: K, value: V, now: number): PushOutcome<V> {
    if (this.active.has(key)) {
      const slot = this.parked.get(key);
      if (slot === undefined) {
        this.parked.set(key, { key, value, since: now });
        return PARKED;
      }
      const previous = slot.value;
      slot.value = value;
      return { kind: 'replaced', previous };
    }
    const slot = this.ready.get(key);
    if (slot === undefined) {
      this.enqueue({ key, value, since: now });
      return { kind: 'enqueued', depth: this.ready.size };
    }
    const previous = slot.value;
    slot.value = value;
    return { kind: 'replaced', previous };
  }

  /**
   * Takes the oldest waiting key if fewer than `limit` keys are in flight, and marks it in flight.
   * Returns `undefined` when nothing waits or the limit is reached.
   */
  take(limit: number): Taken<K, V> | undefined {
    if (this.active.size >= limit) return undefined;
    const slot = this.fifo[this.head];
    if (slot === undefined) return undefined;
    this.fifo[this.head++] = undefined;
    if (this.head === this.fifo.length) {
      this.fifo.length = 0; // emptied: the same array again (a key at a time, once per event)
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.fifo.length) {
      this.fifo = this.fifo.slice(this.head);
      this.head = 0;
    }
    this.ready.delete(slot.key);
    this.active.add(slot.key);
    return slot;
  }

  /**
   * Marks `key` no longer in flight. A parked value moves to the back of the FIFO; the new depth is
   * returned then, `undefined` when the key went idle (and so holds no state any more).
   */
  finish(key: K): number | undefined {
    this.active.delete(key);
    const slot = this.parked.get(key);
    if (slot === undefined) return undefined;
    this.parked.delete(key);
    this.enqueue(slot);
    return this.ready.size;
  }

  private enqueue(slot: Slot<K, V>): void {
    this.ready.set(slot.key, slot);
    this.fifo.push(slot);
  }

  /** Drops every waiting and parked value and forgets what is in flight. */
  clear(): void {
    this.ready.clear();
    this.fifo = [];
    this.head = 0;
    this.parked.clear();
    this.active.clear();
  }
}
