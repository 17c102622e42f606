/**
 * A `Map` whose entries are forgotten `ttl` after they were last written, swept by ONE scheduler
 * action.
 *
 * Entries are kept in last-written order (a write moves the entry to the back), so the entry that
 * expires first is always the first one: a sweep deletes from the front until it meets a live
 * entry, then re-arms itself for that entry. A write never schedules anything while a sweep is
 * pending, so the cost per write is a `Map` delete + set.
 *
 * Invariant: a sweep is pending exactly when the map is not empty (an idle map holds no timer).
 * Reads are exact, independent of when the sweep runs: an entry written at `t` is gone for
 * `get` at any `now >= t + ttl`.
 *
 * Not exported from the package; the predicates (`changedBy`, ...) use it.
 */
import type { SchedulerAction, SchedulerLike, Subscription } from 'rxjs';

interface Entry<V> {
  value: V;
  /** When the entry was last written. */
  written: number;
}

/** See the module comment. */
export class TtlMap<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  private sweepAction: Subscription | undefined;

  /**
   * @param ttl lifetime of an entry after its last write, in scheduler units (> 0).
   * @param scheduler clock and the one sweep action.
   */
  constructor(
    private readonly ttl: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Number of entries, expired-but-not-yet-swept ones included. */
  get size(): number {
    return this.entries.size;
  }

  /** Whether a sweep is scheduled (true exactly when `size > 0`). */
  get sweepPending(): boolean {
    return this.sweepAction !== undefined;
  }

  /** The entry of `key` if it was written less than `ttl` before `now`; forgets it otherwise. */
  get(key: K, now: number): { readonly value: V } | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.written + this.ttl <= now) {
      this.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Writes `value` for `key` at `now`, restarting its lifetime. */
  set(key: K, value: V, now: number): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      this.entries.delete(key); // move to the back: the map stays ordered by last write
      entry.value = value;
      entry.written = now;
      this.entries.set(key, entry);
    } else {
      this.entries.set(key, { value, written: now });
    }
    if (this.sweepAction === undefined) this.arm(now);
  }

  /** Forgets `key`. */
  delete(key: K): void {
    if (this.entries.delete(key) && this.entries.size === 0) this.cancel();
  }

  /** Forgets everything and cancels the sweep. */
  clear(): void {
    this.entries.clear();
    this.cancel();
  }

  private cancel(): void {
    const action = this.sweepAction;
    this.sweepAction = undefined;
    action?.unsubscribe();
  }

  private firstExpiry(): number | undefined {
    for (const entry of this.entries.values()) return entry.written + this.ttl;
    return undefined;
  }

  private arm(now: number): void {
    const expiry = this.firstExpiry();
    if (expiry === undefined) return;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the action's `this` is the action
    const map = this;
    this.sweepAction = this.scheduler.schedule(
      function (this: SchedulerAction<undefined>) {
        map.sweep(this);
      },
      Math.max(0, expiry - now),
    );
  }

  private sweep(self: SchedulerAction<undefined>): void {
    this.sweepAction = undefined;
    const now = this.scheduler.now();
    for (const [key, entry] of this.entries) {
      if (entry.written + this.ttl > now) break;
      this.entries.delete(key);
    }
    const expiry = this.firstExpiry();
    if (expiry !== undefined) this.sweepAction = self.schedule(undefined, Math.max(0, expiry - now));
  }
}
