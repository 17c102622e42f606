/**
 * Namespace lanes of `controller()`: one `applier` per namespace, each with its own concurrency,
 * so a busy namespace cannot starve the others (the controller gives every lane one shared token
 * bucket, so the retry rate limit stays global). Not exported from the package.
 *
 * Why not `groupByNamespace` + `mergeMap(applier)`: a `groupByKey` group completes after its idle
 * duration even while its subscriber is busy, and an applier whose source completes cancels its
 * requeue and retry timers. A lane closed that way would drop `requeue(ms)`s and backoff retries,
 * and a new lane of the same namespace could reconcile a key the old one still runs. Here a lane
 * closes only once every key it saw has settled (no trigger waiting, nothing running, no timer)
 * and it stayed so for `idleMs`.
 */
import type { ObservableInput, OperatorFunction, SchedulerLike, Subscription } from 'rxjs';
import { Observable, Subject } from 'rxjs';
import { applier } from '@rxkube/core';
import type { Action, ApplierOptions, ReconcileResult } from '@rxkube/core';

interface KeyState {
  /** A trigger arrived that no reconcile has started on yet. */
  dirty: boolean;
  /** The applier holds a requeue/retry timer for the key. */
  timer: boolean;
}

interface Lane<T> {
  readonly input: Subject<T>;
  readonly keys: Map<string, KeyState>;
  idle: Subscription | undefined;
  subscription: Subscription | undefined;
}

/**
 * `applier` per lane (`laneOf(value)`). Emits every lane's results; completes when the source
 * completed and every lane drained; errors when the source or a lane errors.
 */
export function laneApplier<T>(
  laneOf: (value: T) => string,
  keyOf: (value: T) => string,
  reconcile: (value: T, key: string) => ObservableInput<Action>,
  /** Each lane's applier options (pass one shared `TokenBucket` as `rateLimit` for a global limit). */
  options: ApplierOptions<string> | ((lane: string) => ApplierOptions<string>),
  idleMs: number,
  scheduler: SchedulerLike,
  /** Test hook: a lane opened or closed (its applier completes). */
  onLane?: (name: string, event: 'open' | 'close') => void,
): OperatorFunction<T, ReconcileResult<T, string>> {
  return (source) =>
    new Observable<ReconcileResult<T, string>>((subscriber) => {
      const lanes = new Map<string, Lane<T>>();
      /** Lanes whose applier has not completed yet (open ones and closing ones). */
      const running = new Set<Lane<T>>();
      let sourceDone = false;

      const maybeComplete = (): void => {
        if (sourceDone && running.size === 0) subscriber.complete();
      };

      const settle = (name: string, lane: Lane<T>, result: ReconcileResult<T, string>): void => {
        const state = lane.keys.get(result.key);
        if (state !== undefined) {
          state.timer = result.retryInMs !== undefined;
          if (!state.dirty && !state.timer) lane.keys.delete(result.key);
        }
        if (lane.keys.size > 0 || sourceDone) return;
        lane.idle?.unsubscribe();
        lane.idle = scheduler.schedule(() => {
          lane.idle = undefined;
          if (lane.keys.size > 0 || lanes.get(name) !== lane) return;
          lanes.delete(name);
          onLane?.(name, 'close');
          lane.input.complete(); // nothing runs or waits: the applier completes at once
        }, idleMs);
      };

      const open = (name: string): Lane<T> => {
        const lane: Lane<T> = {
          input: new Subject<T>(),
          keys: new Map(),
          idle: undefined,
          subscription: undefined,
        };
        lanes.set(name, lane);
        running.add(lane);
        onLane?.(name, 'open');
        const work = (value: T, key: string): ObservableInput<Action> => {
          const state = lane.keys.get(key);
          if (state === undefined) lane.keys.set(key, { dirty: false, timer: false });
          else state.dirty = false;
          return reconcile(value, key);
        };
        const laneOptions = typeof options === 'function' ? options(name) : options;
        lane.subscription = lane.input.pipe(applier(keyOf, work, laneOptions, scheduler)).subscribe({
          next: (result) => {
            settle(name, lane, result);
            subscriber.next(result);
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            running.delete(lane);
            maybeComplete();
          },
        });
        return lane;
      };

      const upstream = source.subscribe({
        next: (value) => {
          const name = laneOf(value);
          const lane = lanes.get(name) ?? open(name);
          lane.idle?.unsubscribe();
          lane.idle = undefined;
          const key = keyOf(value);
          const state = lane.keys.get(key);
          if (state === undefined) lane.keys.set(key, { dirty: true, timer: false });
          else state.dirty = true;
          lane.input.next(value);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          for (const lane of lanes.values()) {
            lane.idle?.unsubscribe();
            lane.idle = undefined;
            lane.input.complete();
          }
          lanes.clear();
          maybeComplete();
        },
      });

      return () => {
        upstream.unsubscribe();
        for (const lane of running) {
          lane.idle?.unsubscribe();
          lane.subscription?.unsubscribe();
        }
        running.clear();
        lanes.clear();
      };
    });
}
