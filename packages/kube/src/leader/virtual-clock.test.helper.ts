/**
 * A virtual clock for code that mixes scheduler timers with real HTTP: `advance(ms)` runs every
 * timer due up to now + ms (synchronously, in order) and leaves the clock there. Each elector or
 * manager under test gets its own clock, so one can be "frozen" (not advanced) while another runs.
 */
import { firstValueFrom, VirtualAction, VirtualTimeScheduler } from 'rxjs';

import type { LeaderElectionAttempt, LeaderElector } from './leader-elector.js';

export class VirtualClock {
  readonly scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);

  constructor(start = Date.UTC(2026, 10, 25)) {
    this.scheduler.frame = start;
  }

  get now(): number {
    return this.scheduler.now();
  }

  /** Runs the timers due within `ms`, then sets the clock to now + ms. */
  advance(ms: number): void {
    const target = this.scheduler.frame + ms;
    this.scheduler.maxFrames = target;
    this.scheduler.flush();
    this.scheduler.frame = target;
  }
}

/**
 * Advances `clock` by `ms` and resolves with the elector's next attempt (the try that the advance
 * started, once its HTTP round trip finished).
 */
export async function step(
  clock: VirtualClock,
  elector: LeaderElector,
  ms: number,
): Promise<LeaderElectionAttempt> {
  const next = firstValueFrom(elector.attempts$);
  clock.advance(ms);
  return next;
}
