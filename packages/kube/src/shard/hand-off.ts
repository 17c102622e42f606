/**
 * The order of a bucket's hand-off, as Observables (so marble tests check it in virtual time):
 * the old owner stops taking the bucket's keys, lets its reconciles in flight finish for at most
 * `drainTimeoutMs` (then cancels them), and only then releases the fence; the new owner acquires
 * the fence and only then starts taking keys. Side effects enter as functions returning
 * `ObservableInput`.
 *
 * @module
 */
import type { Observable, ObservableInput, SchedulerLike } from 'rxjs';
import {
  asyncScheduler,
  concat,
  defaultIfEmpty,
  defer,
  from,
  map,
  mergeMap,
  of,
  race,
  take,
  timer,
} from 'rxjs';

/**
 * A step of a release, in order: `stopped` (intake closed), `drained` or `cancelled` (in-flight
 * reconciles ended, or were cancelled at the deadline), `released` (fence written back).
 *
 * ## Example
 * ```ts
 * declare const steps: ReleaseSteps;
 * releaseBucket(steps, 10_000).subscribe((step: ReleaseStep) => log.debug({ step }, 'hand-off'));
 * ```
 */
export type ReleaseStep = 'stopped' | 'drained' | 'cancelled' | 'released';

/**
 * What the old owner does, as side effects.
 *
 * ## Example
 * ```ts
 * declare const gate: BucketGate;
 * declare function releaseFence(bucket: number): Promise<void>; // writes the fence Lease back released
 * const steps: ReleaseSteps = {
 *   stopIntake: () => gate.close(7),
 *   drained$: gate.drained$(7),
 *   cancel: () => gate.cancel(7),
 *   release: () => releaseFence(7),
 * };
 * ```
 */
export interface ReleaseSteps {
  readonly stopIntake: () => void;
  /** Emits when the bucket's reconciles in flight have ended. */
  readonly drained$: Observable<unknown>;
  readonly cancel: () => void;
  /** Writes the fence back released. */
  readonly release: () => ObservableInput<unknown>;
}

/**
 * The old owner's side of a hand-off: stop intake → drain (bounded) → release.
 *
 * ## Example
 * ```ts
 * declare const stopIntake: () => void;
 * declare const drained$: Observable<void>;
 * declare const cancel: () => void;
 * declare const release: () => Promise<void>;
 * releaseBucket({ stopIntake, drained$, cancel, release }, 10_000).subscribe({
 *   complete: () => log.info('released'),
 * });
 * ```
 *
 * ## Semantics
 * - Subscribing calls `stopIntake` at once and emits `stopped`.
 * - Then the first of `drained$` (emits `drained`) or `drainTimeoutMs` (calls `cancel`, emits
 *   `cancelled`); the other is unsubscribed.
 * - Then `release()` is subscribed; at its first value (or completion): `released`, complete.
 * - error: `release()`'s error is forwarded (the fence is still held: try again).
 * - unsubscribe: whatever step is pending is dropped; intake stays closed.
 *
 * @param scheduler the drain deadline's clock.
 */
export function releaseBucket(
  steps: ReleaseSteps,
  drainTimeoutMs: number,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<ReleaseStep> {
  return defer(() => {
    steps.stopIntake();
    const drain$ = race(
      steps.drained$.pipe(
        take(1),
        map(() => 'drained' as const),
      ),
      timer(drainTimeoutMs, scheduler).pipe(
        map(() => {
          steps.cancel();
          return 'cancelled' as const;
        }),
      ),
    );
    return concat(
      of('stopped' as const),
      drain$.pipe(
        mergeMap((outcome) =>
          concat(
            of(outcome),
            defer(() => from(steps.release())).pipe(
              defaultIfEmpty(undefined),
              take(1),
              map(() => 'released' as const),
            ),
          ),
        ),
      ),
    );
  });
}

/**
 * The new owner's side: acquire the fence, and only when that succeeded start taking keys.
 *
 * ## Example
 * ```ts
 * declare const gate: BucketGate;
 * declare function tryAcquireFence(bucket: number): Promise<boolean>; // false: another holds it
 * acquireBucket(() => tryAcquireFence(7), () => gate.open(7)).subscribe((held) => held && log.info('bucket 7 acquired'));
 * ```
 *
 * ## Semantics
 * - Emits `true` after `start()` ran (the first value of `acquire()` was `true`), else `false`
 *   (`start` not called); then completes. error: `acquire()`'s, `start` not called.
 */
export function acquireBucket(
  acquire: () => ObservableInput<boolean>,
  start: () => void,
): Observable<boolean> {
  return defer(() => from(acquire())).pipe(
    take(1),
    map((held) => {
      if (held) start();
      return held;
    }),
  );
}
