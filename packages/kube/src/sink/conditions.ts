/**
 * `setCondition`: upsert a `metav1.Condition` in a status draft, moving `lastTransitionTime` only
 * when the condition's `status` changes; `findCondition` reads one back.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import { asyncScheduler } from 'rxjs';
import type { SchedulerLike } from 'rxjs';

/**
 * A `metav1.Condition` as plain JSON.
 *
 * ## Example
 * ```ts
 * const ready: Condition | undefined = findCondition(widget.status, 'Ready');
 * if (ready?.status === 'True') console.log(`ready since ${ready.lastTransitionTime}`);
 * ```
 */
export interface Condition {
  /** CamelCase kind of the condition, e.g. `Ready`; unique in the list. */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  /** CamelCase reason of the last transition, e.g. `DeploymentAvailable`. */
  reason: string;
  /** Human-readable details ('' when none). */
  message: string;
  /** RFC 3339 (seconds) time the `status` last changed. */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number;
}

/**
 * What the caller gives {@link setCondition}: a condition without its transition time.
 *
 * ## Example
 * ```ts
 * const input: ConditionInput = { type: 'Ready', status: 'False', reason: 'Scaling', message: '2/3 replicas' };
 * draftStatus(widget, (s) => setCondition(s, input));
 * ```
 */
export interface ConditionInput {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  /** Default `''`. */
  message?: string;
  observedGeneration?: number;
}

const STATUSES = new Set(['True', 'False', 'Unknown']);

/**
 * Upserts `condition` by `type` into `draft.conditions` (created when absent), like
 * apimachinery's `meta.SetStatusCondition`: `lastTransitionTime` is set to the scheduler's now
 * when the condition is new or its `status` changed, and kept otherwise; reason, message and
 * observedGeneration are updated in place only when they differ, so re-setting an identical
 * condition leaves the draft (and the status patch) unchanged.
 *
 * ## Example
 * ```ts
 * draftStatus(widget, (s) => {
 *   setCondition(s, { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: 3 });
 * });
 * ```
 *
 * @param draft a status draft (immer) or plain status object.
 * @param condition the condition to hold.
 * @param scheduler time source of `lastTransitionTime`; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} for an empty `type`/`reason` or a `status` other than True/False/Unknown.
 */
export function setCondition(
  draft: { conditions?: Condition[] },
  condition: ConditionInput,
  scheduler: SchedulerLike = asyncScheduler,
): void {
  if (typeof condition.type !== 'string' || condition.type === '') {
    throw new InvalidArgumentError(
      'setCondition',
      'condition.type',
      condition.type,
      'must be a non-empty CamelCase string such as "Ready"',
    );
  }
  if (!STATUSES.has(condition.status)) {
    throw new InvalidArgumentError(
      'setCondition',
      'condition.status',
      condition.status,
      'must be "True", "False" or "Unknown"',
    );
  }
  if (typeof condition.reason !== 'string' || condition.reason === '') {
    throw new InvalidArgumentError(
      'setCondition',
      'condition.reason',
      condition.reason,
      'must be a non-empty CamelCase string (metav1.Condition requires one)',
    );
  }
  const message = condition.message ?? '';
  const conditions = (draft.conditions ??= []);
  const existing = conditions.find((c) => c.type === condition.type);
  if (existing === undefined) {
    conditions.push({
      type: condition.type,
      status: condition.status,
      reason: condition.reason,
      message,
      lastTransitionTime: rfc3339(scheduler.now()),
      ...(condition.observedGeneration !== undefined
        ? { observedGeneration: condition.observedGeneration }
        : {}),
    });
    return;
  }
  if (existing.status !== condition.status) {
    existing.status = condition.status;
    existing.lastTransitionTime = rfc3339(scheduler.now());
  }
  if (existing.reason !== condition.reason) existing.reason = condition.reason;
  if (existing.message !== message) existing.message = message;
  if (
    condition.observedGeneration !== undefined &&
    existing.observedGeneration !== condition.observedGeneration
  ) {
    existing.observedGeneration = condition.observedGeneration;
  }
}

/**
 * The condition of `type` in `status.conditions`, if any.
 *
 * ## Example
 * ```ts
 * const ready = findCondition(widget.status, 'Ready')?.status === 'True';
 * ```
 */
export function findCondition(
  status: { conditions?: readonly Condition[] } | undefined,
  type: string,
): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** `metav1.Time` wire form: RFC 3339 with second precision, UTC. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
