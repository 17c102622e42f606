/**
 * Many per-key deadlines on ONE scheduler action: a binary min-heap of slots ordered by
 * (deadline, arming order), and a single action scheduled for the earliest deadline.
 *
 * Deadlines are moved lazily: an owner may push `slot.due` later at any time (a debounce
 * restarting its quiet period) without touching the heap; when the slot's heap position comes
 * due, the queue notices `due` moved and re-files the slot. So a hot key costs one field write per
 * event, and one heap operation per quiet period, never one scheduler action per event.
 * Moving a deadline EARLIER needs {@link TimedQueue.arm} again (it sifts the slot up).
 *
 * Re-entrancy: slots armed while a sweep runs (for example by a synchronous feedback loop from the
 * `fire` callback) wait for the next sweep, even when already due, so a sweep always ends.
 *
 * Not exported from the package; `debounceByKey` and `groupByKey` drive it.
 */
import type { SchedulerAction, SchedulerLike, Subscription } from 'rxjs';

/** One deadline. Create with {@link timedSlot}; only `due` is for the owner to change. */
export interface TimedSlot {
  /** Absolute time (`scheduler.now()` units) at which the slot should fire. */
  due: number;
  /** Heap position, or -1 when not queued. Owned by the queue. */
  index: number;
  /** The deadline the heap orders this slot by (`<= due`). Owned by the queue. */
  filedAt: number;
  /** Arming order, the tie-break for equal deadlines. Owned by the queue. */
  seq: number;
}

/** A fresh, unqueued slot due at `due`. */
export function timedSlot(due: number): TimedSlot {
  return { due, index: -1, filedAt: due, seq: 0 };
}

/** The min-heap of slots plus the one scheduler action; see the module comment. */
export class TimedQueue<S extends TimedSlot> {
  private readonly heap: S[] = [];
  private nextSeq = 0;
  private action: Subscription | undefined;
  /** Deadline the pending action was scheduled for (`Infinity` when none). */
  private actionDue = Infinity;
  private sweeping = false;

  /**
   * @param scheduler time source for `now()` and the single action.
   * @param fire called once per slot that came due, in (deadline, arming order); the slot is
   *   already out of the queue, so `fire` may arm it again.
   */
  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly fire: (slot: S) => void,
  ) {}

  /** Number of queued slots. */
  get size(): number {
    return this.heap.length;
  }

  /** Queues `slot` at `slot.due`, or moves it earlier if it is queued at a later deadline. */
  arm(slot: S): void {
    if (slot.index >= 0) {
      if (slot.due >= slot.filedAt) return; // later: noticed lazily when it comes due
      slot.filedAt = slot.due;
      this.siftUp(slot.index);
    } else {
      slot.filedAt = slot.due;
      slot.seq = this.nextSeq++;
      slot.index = this.heap.length;
      this.heap.push(slot);
      this.siftUp(slot.index);
    }
    if (!this.sweeping) this.ensureAction();
  }

  /** Takes `slot` out of the queue; it will not fire. A no-op when it is not queued. */
  remove(slot: S): void {
    const i = slot.index;
    if (i < 0) return;
    const last = this.heap.pop() as S;
    slot.index = -1;
    if (last !== slot) {
      this.heap[i] = last;
      last.index = i;
      this.siftDown(i);
      this.siftUp(last.index);
    }
    if (this.heap.length === 0) this.cancelAction();
  }

  /** Drops every slot and cancels the action; nothing fires afterwards. */
  clear(): void {
    for (const slot of this.heap) slot.index = -1;
    this.heap.length = 0;
    this.cancelAction();
  }

  private ensureAction(): void {
    const head = this.heap[0];
    if (head === undefined) {
      this.cancelAction();
      return;
    }
    if (this.action !== undefined && this.actionDue <= head.filedAt) return;
    this.cancelAction();
    this.actionDue = head.filedAt;
    const delay = Math.max(0, head.filedAt - this.scheduler.now());
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the action's `this` is the action
    const queue = this;
    this.action = this.scheduler.schedule(function (this: SchedulerAction<undefined>) {
      queue.sweep(this);
    }, delay);
  }

  private cancelAction(): void {
    const action = this.action;
    this.action = undefined;
    this.actionDue = Infinity;
    action?.unsubscribe();
  }

  private sweep(self: SchedulerAction<undefined>): void {
    this.action = undefined;
    this.actionDue = Infinity;
    this.sweeping = true;
    const limit = this.nextSeq;
    try {
      const now = this.scheduler.now();
      for (;;) {
        const head = this.heap[0];
        if (head === undefined || head.filedAt > now || head.seq >= limit) break;
        this.removeHead();
        if (head.due > now) {
          // The owner moved the deadline later while the slot was queued: re-file it.
          head.filedAt = head.due;
          head.seq = this.nextSeq++;
          head.index = this.heap.length;
          this.heap.push(head);
          this.siftUp(head.index);
        } else {
          this.fire(head);
        }
      }
    } finally {
      this.sweeping = false;
    }
    const head = this.heap[0];
    if (head === undefined || this.action !== undefined) return;
    // Re-use the running action: cheap for asyncScheduler (keeps its interval when the delay repeats).
    this.actionDue = head.filedAt;
    this.action = self.schedule(undefined, Math.max(0, head.filedAt - this.scheduler.now()));
  }

  private removeHead(): void {
    const head = this.heap[0] as S;
    const last = this.heap.pop() as S;
    head.index = -1;
    if (last !== head) {
      this.heap[0] = last;
      last.index = 0;
      this.siftDown(0);
    }
  }

  private less(a: S, b: S): boolean {
    return a.filedAt < b.filedAt || (a.filedAt === b.filedAt && a.seq < b.seq);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    const slot = heap[i] as S;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p] as S;
      if (!this.less(slot, parent)) break;
      heap[i] = parent;
      parent.index = i;
      i = p;
    }
    heap[i] = slot;
    slot.index = i;
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const slot = heap[i] as S;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && this.less(heap[r] as S, heap[l] as S)) c = r;
      const child = heap[c] as S;
      if (!this.less(child, slot)) break;
      heap[i] = child;
      child.index = i;
      i = c;
    }
    heap[i] = slot;
    slot.index = i;
  }
}
