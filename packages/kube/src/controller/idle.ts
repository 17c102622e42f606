/**
 * Whether a controller has anything to do: nothing queued, running, waiting for a retry, a
 * requeue, a debounce or a map retry. The soak and tests read it through `Controller.idle$`
 * instead of private state.
 *
 * @module
 */
import { BehaviorSubject, distinctUntilChanged } from 'rxjs';
import type { Observable } from 'rxjs';

/** Counts of pending work by source; idle when every count is 0. */
export class IdleTracker {
  private readonly counts = new Map<object, number>();
  private readonly subject = new BehaviorSubject<boolean>(true);
  /** `true` when idle; replays the current value; emits on change only. */
  readonly idle$: Observable<boolean> = this.subject.pipe(distinctUntilChanged());

  /** Whether every source is at 0 now. */
  get idle(): boolean {
    return this.subject.getValue();
  }

  /** A new source of pending work; set its count as it changes, `release()` it when it ends. */
  source(): { set(count: number): void; release(): void } {
    const token = {};
    return {
      set: (count) => {
        if (count > 0) this.counts.set(token, count);
        else this.counts.delete(token);
        this.update();
      },
      release: () => {
        this.counts.delete(token);
        this.update();
      },
    };
  }

  private update(): void {
    const idle = this.counts.size === 0;
    if (idle !== this.subject.getValue()) this.subject.next(idle);
  }
}
