/**
 * Whether a controller has anything to do: nothing queued, running, waiting for a retry, a
 * requeue, a debounce or a map retry. The soak and tests read it through `Controller.idle$`
 * instead of private state.
 *
 * @module
 */
import { asapScheduler, asyncScheduler, BehaviorSubject, distinctUntilChanged, Observable } from 'rxjs';
import type { SchedulerLike, Subscription } from 'rxjs';

/**
 * Counts of pending work by source; idle when every count is 0. Work passes synchronously from
 * one stage to the next (relist gate → debounce → applier), so a count may touch 0 between two
 * stages: while `idle$` is observed, becoming idle is confirmed on the scheduler's next turn — a
 * microtask on the default scheduler — and becoming busy is immediate. Unobserved (a Manager in
 * production), nothing is scheduled per event: `idle` reads the counts (a reader outside the
 * pipeline is never between two stages), and a new observer is told the current state at once.
 */
export class IdleTracker {
  /** Sources whose count is above 0 (a number per source, no map entry per flip). */
  private busy = 0;
  private readonly subject = new BehaviorSubject<boolean>(true);
  private confirming: Subscription | undefined;
  /** Subscribers of `idle$`. */
  private observers = 0;

  constructor(private readonly scheduler: SchedulerLike = asyncScheduler) {}

  /** `true` when idle; replays the current value; emits on change only. */
  readonly idle$: Observable<boolean> = new Observable<boolean>((subscriber) => {
    if (this.observers++ === 0) {
      // unobserved, becoming idle was not confirmed: the current state, now
      const idle = this.busy === 0;
      if (this.subject.getValue() !== idle) this.subject.next(idle);
    }
    const subscription = this.subject.pipe(distinctUntilChanged()).subscribe(subscriber);
    return () => {
      this.observers--;
      subscription.unsubscribe();
    };
  });

  /** Whether every source is at 0 now. */
  get idle(): boolean {
    return this.observers > 0 ? this.subject.getValue() : this.busy === 0;
  }

  /** A new source of pending work; set its count as it changes, `release()` it when it ends. */
  source(): { set(count: number): void; release(): void } {
    let pending = false;
    const to = (next: boolean): void => {
      if (next !== pending) {
        pending = next;
        this.busy += next ? 1 : -1;
      }
      this.update();
    };
    return {
      set: (count) => to(count > 0),
      release: () => to(false),
    };
  }

  private update(): void {
    if (this.observers === 0) return; // nobody listens: nothing to tell, nothing to schedule
    if (this.busy > 0) {
      // A pending confirmation stays scheduled: it re-checks the counts when it runs. Cancelling
      // and re-arming it on every busy → idle flip cost a setInterval and a clearInterval per
      // event (issue 21's profile); one action per turn is enough.
      if (this.subject.getValue()) this.subject.next(false);
      return;
    }
    if (this.subject.getValue() || this.confirming !== undefined) return;
    // On the default scheduler the confirmation is a microtask (asapScheduler: after the
    // synchronous pass between stages, without a setInterval/clearInterval per busy → idle flip);
    // another scheduler (a test's) keeps its 0 ms action. `TestScheduler.run` virtualises both.
    const on = this.scheduler === asyncScheduler ? asapScheduler : this.scheduler;
    this.confirming = on.schedule(() => {
      this.confirming = undefined;
      if (this.busy === 0) this.subject.next(true);
    }, 0);
  }
}
