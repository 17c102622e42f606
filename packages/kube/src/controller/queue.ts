/**
 * The queue stage: requests → per-key debounce (0 ms by default: a burst of one key in one tick
 * coalesces) → intake stop on shutdown → the applier (or one per namespace lane, sharing one
 * retry rate limit). Reports what it holds to the idle tracker.
 *
 * @module
 */
import {
  applier,
  debounceByKey,
  DEFAULT_RATE_LIMIT_BURST,
  DEFAULT_RATE_LIMIT_QPS,
  TokenBucket,
} from '@rxkube/core';
import type { Action, ApplierOptions, ReconcileResult } from '@rxkube/core';
import { defer, finalize, from, takeUntil } from 'rxjs';
import type { Observable, ObservableInput, SchedulerLike } from 'rxjs';

import type { ObjectRef } from '../types.js';
import { objectKey } from '../types.js';

/**
 * A request's key. The debounce and the applier ask for the key of the same request one after the
 * other (the debounce hands it on synchronously): the last answer is kept and given again while
 * the request still names the same object (a request object reused and changed by its sender
 * gets its new key).
 */
let lastRef: ObjectRef | undefined;
let lastNamespace: string | undefined;
let lastName = '';
let lastKey = '';
const keyOf = (r: ObjectRef): string => {
  if (r === lastRef && r.name === lastName && r.namespace === lastNamespace) return lastKey;
  lastKey = objectKey(r);
  lastRef = r;
  lastName = r.name;
  lastNamespace = r.namespace;
  return lastKey;
};
import type { IdleTracker } from './idle.js';
import { laneApplier } from './lanes.js';
import type { ControllerObserver } from './options.js';
import type { ControllerPlan } from './validate-options.js';

/** What the queue stage needs. */
export interface QueueDeps {
  readonly plan: ControllerPlan<never>;
  readonly work: (request: ObjectRef, key: string) => ObservableInput<Action>;
  readonly observer: ControllerObserver | undefined;
  readonly idle: IdleTracker;
  readonly shutdown: ObservableInput<unknown> | undefined;
  readonly scheduler: SchedulerLike;
}

/** Runs `requests$` through debounce, shutdown and the applier(s); one result per reconcile. */
export function queue(
  requests$: Observable<ObjectRef>,
  deps: QueueDeps,
): Observable<ReconcileResult<ObjectRef, string>> {
  const { plan, scheduler } = deps;
  return defer(() => {
    const debounced = deps.idle.source();
    // The idle tracker only reads whether a count is 0: tell it on 0 ↔ non-0 only, not per
    // event. The debounce counts the keys it holds itself (one keyOf per event, no tap around it).
    let holding = false;
    const onPending = (keys: number): void => {
      if (keys > 0 === holding) return;
      holding = keys > 0;
      debounced.set(keys);
    };
    const maxWait = plan.debounce.maxWaitMs;
    let queued$ = requests$.pipe(
      debounceByKey(
        keyOf,
        plan.debounce.ms,
        maxWait !== undefined ? { maxWait, onPending } : { onPending },
        scheduler,
      ),
      finalize(() => debounced.release()),
    );
    // After the debounce: stopping intake drops the triggers it still holds.
    if (deps.shutdown !== undefined) queued$ = queued$.pipe(takeUntil(from(deps.shutdown)));
    const base: ApplierOptions<string> = {
      ...plan.applier,
      ...(deps.observer !== undefined ? { observer: deps.observer } : {}),
    };
    if (plan.laneIdleMs === undefined) {
      const pending = deps.idle.source();
      return queued$.pipe(
        applier(keyOf, deps.work, { ...base, onPending: (n) => pending.set(n) }, scheduler),
        finalize(() => pending.release()),
      );
    }
    // One bucket for every lane: the documented global retry limit stays global.
    const limit = plan.applier.rateLimit;
    const bucket =
      limit === false
        ? false
        : new TokenBucket(
            limit !== undefined && !(limit instanceof TokenBucket)
              ? limit
              : { qps: DEFAULT_RATE_LIMIT_QPS, burst: DEFAULT_RATE_LIMIT_BURST },
          );
    const lanes = new Map<string, { set(n: number): void; release(): void }>();
    return queued$.pipe(
      laneApplier(
        (r) => r.namespace ?? '',
        keyOf,
        deps.work,
        (lane) => {
          const pending = deps.idle.source();
          lanes.get(lane)?.release();
          lanes.set(lane, pending);
          return { ...base, rateLimit: bucket, onPending: (n) => pending.set(n) };
        },
        plan.laneIdleMs,
        scheduler,
      ),
      finalize(() => {
        for (const pending of lanes.values()) pending.release();
        lanes.clear();
      }),
    );
  });
}
